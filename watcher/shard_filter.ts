/**
 * What a `Watcher` needs of a shard to watch only its objects: the
 * `shard` option's type. `ShardRing` (`./sharding`) is one; the interface
 * lives here, below it, so that the watcher does not depend on the ring.
 * A sharded source's side of its shard (`ShardScope`, internal) is here
 * too.
 *
 * @module
 */
import type { Awaitable, Logger } from "../types.ts";
import { shardModeLine, write } from "./_log_lines.ts";

/**
 * A replica's share of the objects, as a `Watcher` reads it: which objects
 * it keeps, the server-side `shardSelector` asking for exactly them, and
 * a way to hear that they changed. `ShardRing` from `./sharding` fits it.
 *
 * The watcher keeps an object exactly while `isAssigned(obj)` answers
 * true. When `selector()` answers something new (the listeners are told),
 * it drops the objects no longer assigned without reporting them as
 * deleted, and lists again to pick up the objects newly assigned.
 *
 * @example A fixed shard: the lower half of the uid hash space
 * ```ts
 * import type { ShardFilter } from "@haptic/k8s-watcher/watcher";
 *
 * const lowerHalf: ShardFilter = {
 *   isAssigned: (obj) => (obj.metadata?.uid ?? "") < "8",
 *   selector: () =>
 *     "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')",
 *   subscribe: () => () => {},
 * };
 * ```
 */
export interface ShardFilter {
  /**
   * Whether this replica keeps `obj` (its cache holds it): for a ring,
   * its assigned ranges, keys it will work on once a hand-off is over
   * included.
   *
   * @param obj An object as the server sent it.
   */
  isAssigned(obj: { readonly metadata?: ShardFilterMetadata }): boolean;
  /**
   * The `shardSelector` asking the API server (KEP-5866, the
   * `ShardedListAndWatch` gate) for exactly the objects `isAssigned`
   * keeps; `""` while it keeps none.
   */
  selector(): string;
  /**
   * Calls `listener` whenever the share changes (and may call it at once
   * with the share as it is). A ring waits for the listeners before it
   * gives keys away: the watcher's listener has dropped the objects the
   * replica lost when it settles. Returns the function that removes it.
   *
   * @param listener Told of each change; what it is given is not read.
   */
  subscribe(listener: (state: unknown) => Awaitable<void>): () => void;
}

/** The metadata fields a shard may hash. */
export interface ShardFilterMetadata {
  /** The object's uid. */
  readonly uid?: string;
  /** The object's namespace. */
  readonly namespace?: string;
}

/**
 * How a sharded watcher gets only its shard, as `health().shard.mode` says:
 * `"server"` when the API server applied the `shardSelector` (its LIST
 * said so in `metadata.shardInfo`), `"client"` when it ignored it and the
 * watcher drops the other objects itself, `"pending"` before a LIST with
 * a selector was answered. A watcher whose lists come as a watch's initial
 * events (`initialList: "stream"`) stays `"pending"`: kube-apiserver
 * 1.37.2 applies the selector to such a stream but says nothing of it.
 *
 * @example Alerting on a server that lost the gate
 * ```ts
 * import type { ShardMode } from "@haptic/k8s-watcher/watcher";
 *
 * const mode: ShardMode = "client";
 * if (mode === "client") console.log("every replica receives every event");
 * ```
 */
export type ShardMode = "server" | "client" | "pending";

/**
 * A sharded watcher's part of `health()`.
 *
 * @example Reading it
 * ```ts
 * import type { ShardHealth } from "@haptic/k8s-watcher/watcher";
 *
 * const shard: ShardHealth = {
 *   mode: "server",
 *   selector: "shardRange(object.metadata.uid, '0x0000000000000000', '0x10000000000000000')",
 *   skipped: 0,
 *   released: 0,
 *   viewChanges: 1,
 * };
 * ```
 */
export interface ShardHealth {
  /** Who filters: see {@linkcode ShardMode}. */
  readonly mode: ShardMode;
  /** The shard's selector now (`""`: it keeps nothing). */
  readonly selector: string;
  /** Objects and events received and dropped as another shard's. */
  readonly skipped: number;
  /** Objects dropped because the shard no longer holds them (not deleted). */
  readonly released: number;
  /**
   * Changes of the shard's selector seen, the first (when the shard first
   * holds something) included; each later one relists.
   */
  readonly viewChanges: number;
}

// A sharded source's side of its shard (the `shard` option): what it keeps,
// the selector each request carries, who filters (detected from the LIST
// answers), when the loops may start, and what a change of the shard does.
//
// - The loops start once the shard holds something (its selector is not
//   empty): a replica that has not joined its ring lists nothing yet.
// - Every request carries the latest non-empty selector. A LIST answer with
//   `metadata.shardInfo` says the server applied it (`"server"`); one
//   without says it ignored it (`"client"`). Either way every object is
//   checked against the shard as it arrives, so the store never holds
//   another shard's object, whatever the server did.
// - When the selector changes, the source drops what the shard lost and
//   lists again for what it gained (`onChange`).

/** Calls of {@linkcode ShardScope}'s owner. */
export interface ShardScopeHooks {
  /** The selector changed: drop what is no longer held, relist if not empty. */
  changed(selector: string): Promise<void> | void;
}

export class ShardScope {
  readonly filter: ShardFilter;
  readonly #logger: Logger;
  readonly #resource: string;
  #hooks: ShardScopeHooks | undefined;
  #mode: ShardMode = "pending";
  /** The selector as the last change told it. */
  #selector = "";
  /** The latest non-empty selector handed to a request. */
  #asked = "";
  #skipped = 0;
  #released = 0;
  #viewChanges = 0;
  #unsubscribe: (() => void) | undefined;
  #ready: Promise<void>;
  #resolveReady!: () => void;

  constructor(filter: ShardFilter, logger: Logger, resource: string) {
    this.filter = filter;
    this.#logger = logger;
    this.#resource = resource;
    this.#ready = new Promise((resolve) => this.#resolveReady = resolve);
  }

  /** Listens to the shard from now on; `hooks` hear of its changes. */
  open(hooks: ShardScopeHooks): void {
    if (this.#unsubscribe !== undefined) return;
    this.#hooks = hooks;
    this.#unsubscribe = this.filter.subscribe(() => this.#changed());
    // A shard may hold something already, and tell only of later changes.
    void this.#changed();
  }

  /** Stops listening; loops still waiting to start are let go. */
  close(): void {
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
    this.#hooks = undefined;
    this.#resolveReady();
  }

  /** Resolves once the shard holds something, or the scope is closed. */
  get ready(): Promise<void> {
    return this.#ready;
  }

  /** The `shardSelector` of the next request: the latest non-empty one. */
  requestSelector = (): string | undefined => {
    const now = this.filter.selector();
    if (now !== "") this.#asked = now;
    return this.#asked === "" ? undefined : this.#asked;
  };

  /** Whether the source keeps `sent`; a refusal is counted. */
  keeps(sent: { readonly metadata?: object }): boolean {
    if (this.filter.isAssigned(sent)) return true;
    this.#skipped++;
    return false;
  }

  /** Whether a stored copy is still the shard's (not counted). */
  holds = (obj: { readonly metadata?: object }): boolean =>
    this.filter.isAssigned(obj);

  /** `count` stored objects were dropped as no longer the shard's. */
  released(count: number): void {
    this.#released += count;
  }

  /**
   * A list ended: the server's `metadata.shardInfo.selector` (or its
   * absence) says who filters. Logged when first decided and when it
   * changes.
   */
  listed(serverSelector: string | undefined): void {
    if (this.#asked === "") return;
    const mode = serverSelector === undefined ? "client" : "server";
    if (mode === this.#mode) return;
    this.#mode = mode;
    write(this.#logger, shardModeLine(this.#resource, mode, this.#asked));
  }

  health(): ShardHealth {
    return {
      mode: this.#mode,
      selector: this.filter.selector(),
      skipped: this.#skipped,
      released: this.#released,
      viewChanges: this.#viewChanges,
    };
  }

  async #changed(): Promise<void> {
    const hooks = this.#hooks;
    if (hooks === undefined) return;
    const selector = this.filter.selector();
    if (selector === this.#selector) return;
    this.#selector = selector;
    this.#viewChanges++;
    if (selector !== "") this.#resolveReady();
    await hooks.changed(selector);
  }
}
