/**
 * Loggers to hand to the watchers. {@linkcode consoleLogger} writes to
 * stderr, so a tool's own output on stdout stays its own.
 *
 * @module
 */
import { assertOptionNames } from "./_internal/_option_checks.ts";
import type { Logger } from "./types.ts";

/**
 * A log level name.
 *
 * @example Choosing a level
 * ```ts
 * import type { LogLevel } from "@haptic/k8s-watcher/logger";
 *
 * const level: LogLevel = "warn";
 * ```
 */
export type LogLevel = "debug" | "info" | "warn" | "error";

/** Severity order, lowest first. */
const LEVELS: readonly LogLevel[] = ["debug", "info", "warn", "error"];

/**
 * Options for {@linkcode consoleLogger}.
 *
 * @example Debug output
 * ```ts
 * import type { ConsoleLoggerOptions } from "@haptic/k8s-watcher/logger";
 *
 * const options: ConsoleLoggerOptions = { level: "debug" };
 * ```
 */
export interface ConsoleLoggerOptions {
  /**
   * Lowest level printed.
   *
   * @default {"info"}
   */
  level?: LogLevel;
  /**
   * Receives each formatted line (`WARN message {"field":1}`), whatever its
   * level. The default, `console.error`, writes to stderr; pass
   * `(line) => console.log(line)` for stdout, or anything else that takes a
   * line.
   *
   * @default {(line) => console.error(line)}
   */
  write?: (line: string) => void;
}

/**
 * A logger that writes one line per message, with its fields as JSON,
 * dropping messages below `level`. Every level goes to stderr (through
 * `console.error`) unless `write` says otherwise, so logs never mix with
 * what a tool prints on stdout. Errors show as their name and message,
 * BigInts as their digits; a field JSON cannot encode (a cycle, a throwing
 * `toJSON`) is described as `"[not JSON: …]"` instead of throwing.
 *
 * @example Warnings and errors only
 * ```ts
 * import { consoleLogger } from "@haptic/k8s-watcher";
 *
 * const logger = consoleLogger({ level: "warn" });
 * logger.info("not printed");
 * logger.warn("printed to stderr", { resource: "ingresses" });
 * ```
 *
 * @example Collecting lines instead of printing them
 * ```ts
 * import { consoleLogger } from "@haptic/k8s-watcher";
 * import assert from "node:assert/strict";
 *
 * const lines: string[] = [];
 * const logger = consoleLogger({ write: (line) => lines.push(line) });
 * logger.info("Resource synced", { resource: "services", count: 4 });
 * assert.deepEqual(lines, ['INFO Resource synced {"resource":"services","count":4}']);
 * ```
 *
 * @param options Lowest level and where lines go; all optional.
 * @returns A logger with the four levels.
 * @throws {RangeError} When `level` is not a {@linkcode LogLevel}.
 * @throws {TypeError} When `write` is given and is not a function, or
 * `options` has a name it does not take.
 */
export function consoleLogger(options?: ConsoleLoggerOptions): Logger {
  assertOptionNames(
    "consoleLogger options",
    LOGGER_NAMES,
    options,
    "ConsoleLoggerOptions",
  );
  const level = options?.level ?? "info";
  const min = LEVELS.indexOf(level);
  if (min < 0) {
    throw new RangeError(
      `Log level must be one of ${LEVELS.join(", ")}, got ${
        JSON.stringify(level)
      }`,
    );
  }
  if (options?.write !== undefined && typeof options.write !== "function") {
    throw new TypeError("consoleLogger option write must be a function");
  }
  const write = options?.write ?? ((line: string) => console.error(line));
  const make = (level: LogLevel) => {
    if (LEVELS.indexOf(level) < min) return () => {};
    return (message: string, fields?: Record<string, unknown>) => {
      const suffix = fields && Object.keys(fields).length > 0
        ? " " + encodeFields(fields)
        : "";
      write(`${level.toUpperCase()} ${message}${suffix}`);
    };
  };
  return {
    debug: make("debug"),
    info: make("info"),
    warn: make("warn"),
    error: make("error"),
  };
}

/**
 * A logger that drops everything.
 *
 * @example Quiet watchers in tests
 * ```ts
 * import { silentLogger } from "@haptic/k8s-watcher";
 *
 * silentLogger.error("goes nowhere");
 * ```
 */
export const silentLogger: Logger = {
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
};

/**
 * Errors stringify to `{}` by default: show their message instead. BigInts
 * make `JSON.stringify` throw: show their digits.
 */
function replacer(_key: string, value: unknown): unknown {
  if (value instanceof Error) return `${value.name}: ${value.message}`;
  return typeof value === "bigint" ? String(value) : value;
}

/**
 * The fields as JSON. A field JSON cannot encode (a cycle, a throwing
 * `toJSON`) is described instead: logging must not throw at its caller.
 */
function encodeFields(fields: Record<string, unknown>): string {
  try {
    return JSON.stringify(fields, replacer);
  } catch {
    const described: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(fields)) {
      try {
        JSON.stringify(value, replacer);
        described[key] = value;
      } catch (error) {
        described[key] = `[not JSON: ${
          error instanceof Error ? error.message : String(error)
        }]`;
      }
    }
    return JSON.stringify(described, replacer);
  }
}

/** The names `ConsoleLoggerOptions` takes (a record over its keys). */
const LOGGER_NAMES: Record<keyof ConsoleLoggerOptions, true> = {
  level: true,
  write: true,
};
