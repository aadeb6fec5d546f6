/**
 * Which owners' user callbacks (a watcher's, a group's, an elector's) the
 * running code is inside of, across `await`s: a `stop()` called from inside one of its own
 * callbacks cannot wait for that callback (it is waiting for the stop), so
 * it must know it is there.
 *
 * The context rides on the runtime's `AsyncLocalStorage` (`node:
 * async_hooks`, on Deno, Node 22.3+ and Bun alike), which follows a
 * callback through its awaits, timers and I/O. A runtime without it gets a
 * stack of the callbacks running synchronously: a `stop()` before the
 * callback's first `await` is still recognised.
 *
 * @module
 */

/**
 * One callback running inside another's (or at the top). Work the callback
 * starts (a timer, a loop, a server) inherits the frame for good, so the
 * frame says when the callback itself has settled: from then on, that work
 * is outside it.
 */
interface Frame {
  readonly owner: object;
  readonly parent: Frame | undefined;
  settled: boolean;
}

interface FrameStorage {
  run<R>(frame: Frame, fn: () => R): R;
  getStore(): Frame | undefined;
}

const storage: FrameStorage = asyncStorage() ?? stackStorage();

/**
 * Runs `fn`, a user callback of `owner`, marked as such until it returns
 * or, when it returns a promise, until that settles.
 */
export function runAsCallbackOf<R>(owner: object, fn: () => R): R {
  const frame: Frame = { owner, parent: storage.getStore(), settled: false };
  let result: R;
  try {
    result = storage.run(frame, fn);
  } catch (error) {
    frame.settled = true;
    throw error;
  }
  if (result instanceof Promise) {
    const end = () => void (frame.settled = true);
    result.then(end, end);
  } else frame.settled = true;
  return result;
}

/** Whether the running code is inside a running callback of one of `owners`. */
export function insideCallbackOf(...owners: readonly object[]): boolean {
  for (let frame = storage.getStore(); frame; frame = frame.parent) {
    if (!frame.settled && owners.includes(frame.owner)) return true;
  }
  return false;
}

function asyncStorage(): FrameStorage | undefined {
  const process = (globalThis as {
    process?: { getBuiltinModule?: (id: string) => unknown };
  }).process;
  try {
    const hooks = process?.getBuiltinModule?.("node:async_hooks") as
      | { AsyncLocalStorage?: new () => FrameStorage }
      | undefined;
    return hooks?.AsyncLocalStorage ? new hooks.AsyncLocalStorage() : undefined;
  } catch {
    return undefined;
  }
}

function stackStorage(): FrameStorage {
  let current: Frame | undefined;
  return {
    run(frame, fn) {
      const outer = current;
      current = frame;
      try {
        return fn();
      } finally {
        current = outer;
      }
    },
    getStore: () => current,
  };
}
