import assert from "node:assert/strict";
import {
  contextLogger,
  failureFields,
  neverThrowingLogger,
} from "./_logging.ts";
import { RecordingLogger } from "../testing/recording_logger.ts";

Deno.test("contextLogger adds who speaks to every line; a line's own field wins", () => {
  const inner = new RecordingLogger();
  const context: Record<string, unknown> = { resource: "ingresses" };
  const logger = contextLogger(inner, context);
  logger.info("plain");
  logger.warn("own resource", { resource: "services", n: 1 });
  context.watcher = "main"; // completed later
  logger.error("later", { n: 2 });
  context.namespace = undefined; // an undefined value is left out
  logger.debug("undefined left out");
  assert.deepEqual(inner.records, [
    { level: "info", message: "plain", fields: { resource: "ingresses" } },
    {
      level: "warn",
      message: "own resource",
      fields: { resource: "services", n: 1 },
    },
    {
      level: "error",
      message: "later",
      fields: { n: 2, resource: "ingresses", watcher: "main" },
    },
    {
      level: "debug",
      message: "undefined left out",
      fields: { resource: "ingresses", watcher: "main" },
    },
  ]);
});

Deno.test("failureFields carries the stack of an Error, and anything else as it is", () => {
  const error = new Error("boom");
  assert.deepEqual(failureFields(error), { error, stack: error.stack });
  assert.match(String(failureFields(error).stack), /^Error: boom\n\s+at /);
  assert.deepEqual(failureFields("a string"), { error: "a string" });
});

Deno.test("neverThrowingLogger passes every level through", () => {
  const inner = new RecordingLogger();
  const logger = neverThrowingLogger(inner);
  logger.debug("d", { a: 1 });
  logger.info("i");
  logger.warn("w");
  logger.error("e");
  assert.deepEqual(
    inner.records.map((r) => `${r.level} ${r.message}`),
    ["debug d", "info i", "warn w", "error e"],
  );
  assert.deepEqual(inner.records[0].fields, { a: 1 });
});

Deno.test("neverThrowingLogger swallows what the logger throws", () => {
  const throwing = {
    debug: () => {
      throw new Error("disk full");
    },
    info: () => {
      throw new Error("disk full");
    },
    warn: () => {
      throw new Error("disk full");
    },
    error: () => {
      throw new Error("disk full");
    },
  };
  const logger = neverThrowingLogger(throwing);
  logger.error("still fine");
  logger.warn("still fine");
});
