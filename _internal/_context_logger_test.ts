import assert from "node:assert/strict";
import { contextLogger, failureFields } from "./_context_logger.ts";
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
