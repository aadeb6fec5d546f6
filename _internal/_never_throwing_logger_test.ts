import assert from "node:assert/strict";
import { neverThrowingLogger } from "./_never_throwing_logger.ts";
import { RecordingLogger } from "../testing/recording_logger.ts";

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
