/**
 * Freezing an object and everything it holds: the debug aid that makes a
 * mutation of a stored object throw (`MemoryStore`'s `freeze`, a watcher's
 * `freezeObjects`). A walk of the whole object, so off unless asked for.
 *
 * @module
 */

/**
 * Freezes `value` and every object and array under it; stops at what is
 * frozen already (a part shared with an object frozen before).
 */
export function deepFreeze(value: unknown): void {
  if (value === null || typeof value !== "object" || Object.isFrozen(value)) {
    return;
  }
  Object.freeze(value);
  for (const child of Object.values(value)) deepFreeze(child);
}
