/**
 * Read your own writes: a key whose reconcile wrote objects is held back
 * until the cache holds what each write returned (or a newer version, or
 * saw the object deleted), or until each write's deadline.
 *
 * @module
 */
import type { Clock, TimerHandle } from "../clock.ts";

/** What a reconcile wrote: where the cache should show it, and which version. */
export interface Written {
  readonly store: string;
  readonly namespace: string | undefined;
  readonly name: string;
  readonly resourceVersion: string;
  /** Its `metadata.uid`, when the write returned one. */
  readonly uid?: string;
}

interface Wait extends Written {
  readonly object: string;
  readonly timer: TimerHandle;
  expired: boolean;
  deleted: boolean;
}

/** What the waits need of the controller. */
export interface WriteWaitHooks {
  /** The resourceVersion the store holds for the object, if it holds it. */
  cached(store: string, namespace: string | undefined, name: string):
    | string
    | undefined;
  /** Hands a held key back to the queue. */
  release(key: string): void;
  /** The deadline passed before the cache showed the write. */
  expired(key: string, written: Written, cached: string | undefined): void;
}

const DIGITS = /^\d+$/;

/**
 * Whether a cached resourceVersion is `wanted` or newer. Since Kubernetes
 * 1.35 (KEP-5504) resourceVersions compare as integers; one that is not an
 * integer is only known to be reached when it is seen.
 */
export function reached(cached: string, wanted: string): boolean {
  if (DIGITS.test(cached) && DIGITS.test(wanted)) {
    return cached.length !== wanted.length
      ? cached.length > wanted.length
      : cached >= wanted;
  }
  return cached === wanted;
}

/**
 * The waits of every key that wrote, and the keys held back by them. A
 * reconcile may write several objects (its child, then its own status):
 * its key waits for each of them, each for at most the timeout from its
 * write; a second write of one object replaces the first's wait.
 */
export class WriteWaits {
  readonly #clock: Clock;
  readonly #timeoutMs: number;
  readonly #hooks: WriteWaitHooks;
  /** Each key's waits, by object. */
  readonly #byKey = new Map<string, Map<string, Wait>>();
  /** Keys whose waits include an object, by `store\0namespace\0name`. */
  readonly #byObject = new Map<string, Set<string>>();
  readonly #held = new Set<string>();

  constructor(clock: Clock, timeoutMs: number, hooks: WriteWaitHooks) {
    this.#clock = clock;
    this.#timeoutMs = timeoutMs;
    this.#hooks = hooks;
  }

  /** How many keys are held back now. */
  get held(): number {
    return this.#held.size;
  }

  /** `key`'s reconcile wrote `written`: its next one waits for it. */
  expect(key: string, written: Written): void {
    const object = objectId(written.store, written.namespace, written.name);
    let waits = this.#byKey.get(key);
    if (waits === undefined) this.#byKey.set(key, waits = new Map());
    const earlier = waits.get(object);
    if (earlier !== undefined) this.#clock.clearTimeout(earlier.timer);
    const wait: Wait = {
      ...written,
      object,
      expired: false,
      deleted: false,
      timer: this.#clock.setTimeout(() => {
        wait.expired = true;
        // A held key goes back to the queue; `ready` says why it runs.
        this.#release(key);
      }, this.#timeoutMs),
    };
    waits.set(object, wait);
    let keys = this.#byObject.get(object);
    if (keys === undefined) this.#byObject.set(object, keys = new Set());
    keys.add(key);
  }

  /**
   * Whether `key` may be reconciled now: no waits, or each of its waits is
   * over (which ends them; each one that expired is reported). Otherwise
   * the key is held until they are.
   */
  ready(key: string): boolean {
    const waits = this.#byKey.get(key);
    if (waits === undefined) return true;
    const pending = [...waits.values()].filter((w) => !this.#reached(w));
    if (pending.some((wait) => !wait.expired)) {
      this.#held.add(key);
      return false;
    }
    this.clear(key);
    for (const wait of pending) {
      this.#hooks.expired(
        key,
        wait,
        this.#hooks.cached(wait.store, wait.namespace, wait.name),
      );
    }
    return true;
  }

  /**
   * A change of an object in `store`: releases the keys it satisfies.
   * `deleted` says it was deleted, with the uid it was last stored with.
   */
  observed(
    store: string,
    namespace: string | undefined,
    name: string,
    deleted?: { readonly uid?: string },
  ): void {
    if (this.#byObject.size === 0) return;
    const object = objectId(store, namespace, name);
    const keys = this.#byObject.get(object);
    if (keys === undefined) return;
    for (const key of keys) {
      const waits = this.#byKey.get(key)!;
      const wait = waits.get(object)!;
      if (deleted !== undefined && sameIncarnation(deleted.uid, wait.uid)) {
        wait.deleted = true;
      }
      if (!this.#held.has(key)) continue;
      const over = (w: Wait) => w.expired || this.#reached(w);
      if ([...waits.values()].every(over)) this.#release(key);
    }
  }

  /** Ends `key`'s waits, if any. */
  clear(key: string): void {
    const waits = this.#byKey.get(key);
    if (waits === undefined) return;
    this.#byKey.delete(key);
    this.#held.delete(key);
    for (const wait of waits.values()) {
      this.#clock.clearTimeout(wait.timer);
      const keys = this.#byObject.get(wait.object)!;
      keys.delete(key);
      if (keys.size === 0) this.#byObject.delete(wait.object);
    }
  }

  /** Ends every wait (the controller stops). */
  clearAll(): void {
    for (const key of [...this.#byKey.keys()]) this.clear(key);
  }

  #reached(wait: Wait): boolean {
    if (wait.deleted) return true;
    const cached = this.#hooks.cached(wait.store, wait.namespace, wait.name);
    return cached !== undefined && reached(cached, wait.resourceVersion);
  }

  #release(key: string): void {
    if (!this.#held.delete(key)) return;
    this.#hooks.release(key);
  }
}

/**
 * Whether a deletion is of what was written: not when both uids are known
 * and differ, a late deletion of an earlier incarnation (the reconcile
 * deleted the object and created it again).
 */
function sameIncarnation(
  deleted: string | undefined,
  written: string | undefined,
): boolean {
  return deleted === undefined || written === undefined || deleted === written;
}

function objectId(
  store: string,
  namespace: string | undefined,
  name: string,
): string {
  return `${store}\0${namespace ?? ""}\0${name}`;
}
