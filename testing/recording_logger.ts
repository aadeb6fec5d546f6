import type { Logger } from "../types.ts";
import type { LogLevel } from "../logger.ts";

/**
 * One captured log call.
 *
 * @example One warning
 * ```ts
 * import type { LogRecord } from "@haptic/k8s-watcher/testing";
 *
 * const record: LogRecord = { level: "warn", message: "slow", fields: {} };
 * ```
 */
export interface LogRecord {
  /** The level it was logged at. */
  level: LogLevel;
  /** The message. */
  message: string;
  /** The structured fields (empty when none were given). */
  fields: Record<string, unknown>;
}

/**
 * A {@linkcode Logger} that keeps every call, for assertions in tests.
 *
 * @example Asserting what was logged
 * ```ts
 * import { RecordingLogger } from "@haptic/k8s-watcher/testing";
 * import assert from "node:assert/strict";
 *
 * const logger = new RecordingLogger();
 * logger.warn("Object skipped", { name: "web" });
 * assert.equal(logger.at("warn").length, 1);
 * assert.ok(logger.text().includes("Object skipped"));
 * ```
 */
export class RecordingLogger implements Logger {
  /** Every record, oldest first. */
  readonly records: LogRecord[] = [];

  /**
   * Records a debug message.
   *
   * @example A debug line with fields
   * ```ts
   * import { RecordingLogger } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * const logger = new RecordingLogger();
   * logger.debug("Page received", { name: "web" });
   * assert.deepEqual(logger.records, [{ level: "debug", message: "Page received", fields: { name: "web" } }]);
   * ```
   */
  debug(message: string, fields?: Record<string, unknown>): void {
    this.records.push({ level: "debug", message, fields: fields ?? {} });
  }
  /**
   * Records an info message.
   *
   * @example An info line
   * ```ts
   * import { RecordingLogger } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * const logger = new RecordingLogger();
   * logger.info("Synced", { name: "web" });
   * assert.deepEqual(logger.records, [{ level: "info", message: "Synced", fields: { name: "web" } }]);
   * ```
   */
  info(message: string, fields?: Record<string, unknown>): void {
    this.records.push({ level: "info", message, fields: fields ?? {} });
  }
  /**
   * Records a warning.
   *
   * @example A warning with fields
   * ```ts
   * import { RecordingLogger } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * const logger = new RecordingLogger();
   * logger.warn("Object skipped", { name: "web" });
   * assert.deepEqual(logger.records, [{ level: "warn", message: "Object skipped", fields: { name: "web" } }]);
   * ```
   */
  warn(message: string, fields?: Record<string, unknown>): void {
    this.records.push({ level: "warn", message, fields: fields ?? {} });
  }
  /**
   * Records an error.
   *
   * @example An error with its cause
   * ```ts
   * import { RecordingLogger } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * const logger = new RecordingLogger();
   * logger.error("Callback failed", { name: "web" });
   * assert.deepEqual(logger.records, [{ level: "error", message: "Callback failed", fields: { name: "web" } }]);
   * ```
   */
  error(message: string, fields?: Record<string, unknown>): void {
    this.records.push({ level: "error", message, fields: fields ?? {} });
  }

  /**
   * The records at one level.
   *
   * @example Only the warnings
   * ```ts
   * import { RecordingLogger } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * const logger = new RecordingLogger();
   * logger.info("Synced");
   * logger.warn("Object skipped", { name: "web" });
   * assert.deepEqual(logger.at("warn").map((r) => r.message), ["Object skipped"]);
   * ```
   */
  at(level: LogLevel): LogRecord[] {
    return this.records.filter((r) => r.level === level);
  }

  /**
   * Every record as text, one per line, fields as JSON; for `includes` checks.
   *
   * @example Everything as text, for a regex
   * ```ts
   * import { RecordingLogger } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * const logger = new RecordingLogger();
   * logger.warn("Object skipped", { name: "web" });
   * assert.match(logger.text(), /Object skipped/);
   * ```
   */
  text(): string {
    return this.records
      .map((r) =>
        `${r.level} ${r.message} ${JSON.stringify(r.fields, replacer)}`
      )
      .join("\n");
  }
}

function replacer(_key: string, value: unknown): unknown {
  return value instanceof Error ? `${value.name}: ${value.message}` : value;
}
