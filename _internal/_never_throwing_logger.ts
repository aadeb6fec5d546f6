import type { Logger } from "../types.ts";

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
