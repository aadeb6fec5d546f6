import { failureFields } from "./_context_logger.ts";
import type { Logger } from "../types.ts";

/**
 * Runs a user callback so that neither a throw nor a rejection escapes:
 * both are logged at error level and the caller goes on. Says whether the
 * callback succeeded: at once when it returned no promise, else by a
 * promise that never rejects.
 */
export function runGuarded(
  callback: () => unknown,
  logger: Logger,
  what: string,
): boolean | Promise<boolean> {
  let result: unknown;
  try {
    result = callback();
  } catch (error) {
    logger.error(what, failureFields(error));
    return false;
  }
  if (result instanceof Promise) {
    return result.then(
      () => true,
      (error) => {
        logger.error(what, failureFields(error));
        return false;
      },
    );
  }
  return true;
}
