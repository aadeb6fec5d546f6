/**
 * What the components share of logging: a logger that says who speaks on
 * every line and the fields of a failure, a logger that never throws into
 * the loop that logs, and one log line as data.
 *
 * A log line as data (level, message, fields) makes a component's wording
 * a pure function its tests read; each component words its own lines
 * (`listwatch/_log_lines.ts`, `watcher/_log_lines.ts`).
 *
 * @module
 */
import type { Logger } from "../types.ts";
import type { LogLevel } from "../logger.ts";

/**
 * A logger that says who speaks on every line: `context`'s fields (a
 * watcher's resource, namespace and name; an elector's Lease and identity)
 * join each line's fields, except where the line has a field of that name
 * (its own wins). `context` is read at each line, so that it may be
 * completed after the logger is made (once the options are checked).
 */
export function contextLogger(
  logger: Logger,
  context: Readonly<Record<string, unknown>>,
): Logger {
  const withContext = (fields: Record<string, unknown> | undefined) => {
    let out: Record<string, unknown> | undefined;
    for (const key in context) {
      const value = context[key];
      if (value === undefined || (fields !== undefined && key in fields)) {
        continue;
      }
      (out ??= { ...fields })[key] = value;
    }
    return out ?? fields;
  };
  return {
    debug: (message, fields) => logger.debug(message, withContext(fields)),
    info: (message, fields) => logger.info(message, withContext(fields)),
    warn: (message, fields) => logger.warn(message, withContext(fields)),
    error: (message, fields) => logger.error(message, withContext(fields)),
  };
}

/**
 * The fields of a line about a user callback that threw or rejected: the
 * error and, for an `Error`, its stack (a logger that prints fields as
 * JSON shows only the message of an error), so that the line says where
 * in the user's code it failed.
 */
export function failureFields(error: unknown): Record<string, unknown> {
  const stack = error instanceof Error ? error.stack : undefined;
  return stack === undefined ? { error } : { error, stack };
}

/**
 * Wraps a user's logger so that a throwing one cannot break the loop that
 * logs: the loop's own state must not depend on a log line.
 */
export function neverThrowingLogger(logger: Logger): Logger {
  const guard =
    (level: keyof Logger) =>
    (message: string, fields?: Record<string, unknown>) => {
      try {
        logger[level](message, fields);
      } catch {
        // Nowhere left to report it.
      }
    };
  return {
    debug: guard("debug"),
    info: guard("info"),
    warn: guard("warn"),
    error: guard("error"),
  };
}

/** One line for the logger. */
export interface LogLine {
  level: LogLevel;
  message: string;
  fields: Record<string, unknown>;
}

/** Writes `line` to `logger`. */
export function write(logger: Logger, line: LogLine): void {
  logger[line.level](line.message, line.fields);
}

/** A line of `level`. */
export function line(
  level: LogLevel,
  message: string,
  fields: Record<string, unknown>,
): LogLine {
  return { level, message, fields };
}
