/**
 * A sharded source's side of its shard (the `shard` option): what it keeps,
 * the selector each request carries, who filters (detected from the LIST
 * answers), when the loops may start, and what a change of the shard does.
 *
 * - The loops start once the shard holds something (its selector is not
 *   empty): a replica that has not joined its ring lists nothing yet.
 * - Every request carries the latest non-empty selector. A LIST answer with
 *   `metadata.shardInfo` says the server applied it (`"server"`); one
 *   without says it ignored it (`"client"`). Either way every object is
 *   checked against the shard as it arrives, so the store never holds
 *   another shard's object, whatever the server did.
 * - When the selector changes, the source drops what the shard lost and
 *   lists again for what it gained (`onChange`).
 *
 * @module
 */
import type { Logger } from "../types.ts";
import type { ShardFilter, ShardHealth, ShardMode } from "./shard_filter.ts";
import { shardModeLine, write } from "./_log_lines.ts";

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
