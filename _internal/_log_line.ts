/**
 * One log line as data (level, message, fields), so that a component's
 * wording is a pure function its tests read; each component words its own
 * lines (`listwatch/_log_lines.ts`, `watcher/_log_lines.ts`).
 *
 * @module
 */
import type { Logger } from "../types.ts";
import type { LogLevel } from "../logger.ts";

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
