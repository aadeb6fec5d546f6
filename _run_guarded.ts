import { failureFields } from "./_context_logger.ts";
import type { Logger } from "./types.ts";

/**
 * Runs a user callback so that neither a throw nor a rejection escapes:
 * both are logged at error level and the caller goes on. Returns the
 * callback's promise (settled, never rejected) when it returned one.
 */
export function runGuarded(
  callback: () => unknown,
  logger: Logger,
  what: string,
): Promise<void> | undefined {
  let result: unknown;
  try {
    result = callback();
  } catch (error) {
    logger.error(what, failureFields(error));
    return undefined;
  }
  if (result instanceof Promise) {
    return result.then(
      () => {},
      (error) => logger.error(what, failureFields(error)),
    );
  }
  return undefined;
}
