/**
 * Loggers to hand to the watchers.
 *
 * @module
 */
import type { Logger } from "./types.ts";

/**
 * A log level name.
 *
 * @example
 * ```ts
 * import type { LogLevel } from "@haptic/k8s-watcher";
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
 * @example
 * ```ts
 * import type { ConsoleLoggerOptions } from "@haptic/k8s-watcher";
 *
 * const options: ConsoleLoggerOptions = { level: "debug" };
 * ```
 */
export interface ConsoleLoggerOptions {
  /** Lowest level printed. Defaults to `"info"`. */
  level?: LogLevel;
}

/**
 * A logger that writes one line per message to the console, with its fields
 * as JSON, dropping messages below `level`.
 *
 * @example
 * ```ts
 * import { consoleLogger } from "@haptic/k8s-watcher";
 *
 * const logger = consoleLogger({ level: "warn" });
 * logger.info("not printed");
 * ```
 */
export function consoleLogger(options: ConsoleLoggerOptions = {}): Logger {
  const min = LEVELS.indexOf(options.level ?? "info");
  const make = (level: LogLevel) => {
    if (LEVELS.indexOf(level) < min) return () => {};
    const write = level === "error"
      ? console.error
      : level === "warn"
      ? console.warn
      : console.log;
    return (message: string, fields?: Record<string, unknown>) => {
      const suffix = fields && Object.keys(fields).length > 0
        ? " " + JSON.stringify(fields, errorReplacer)
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
 * @example
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

/** Errors stringify to `{}` by default; show their message instead. */
function errorReplacer(_key: string, value: unknown): unknown {
  return value instanceof Error ? `${value.name}: ${value.message}` : value;
}
