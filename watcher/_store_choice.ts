/**
 * Which store backend a `Watcher` uses: its `store` factory, or a memory
 * store when it gives none. The watcher asks the factory alone whether its
 * stream may be shared.
 *
 * @module
 */
import type { KubeObjectLike, StoreReads } from "../types.ts";
import { memoryStore } from "../store/memory_store.ts";
import type { StoreFactory } from "../store/store_factory.ts";
import { type WatcherConfig, WatcherConfigError } from "./watcher_config.ts";

/** A watcher's backend, and why its stream cannot be shared when it cannot. */
export interface StoreChoice {
  readonly factory: StoreFactory;
  /** As `health().notShared` says it; `undefined` for a shareable backend. */
  readonly notShared: `store: ${string}` | undefined;
}

/** The backend `config` asks for; a `WatcherConfigError` naming a bad one. */
export function chooseStore<
  T extends KubeObjectLike,
  R extends StoreReads,
  I extends readonly string[],
>(
  config: WatcherConfig<T, R, I>,
): StoreChoice {
  const { store } = config;
  if (store === undefined) {
    return { factory: memoryStore(), notShared: undefined };
  }
  if (!isStoreFactory(store)) {
    throw new WatcherConfigError(
      "store",
      "must be a store factory (memoryStore(), cachedStore() or an object with name, shareable and create)",
    );
  }
  return {
    factory: store,
    notShared: store.shareable ? undefined : `store: ${store.name}`,
  };
}

function isStoreFactory(value: unknown): value is StoreFactory {
  if (value === null || typeof value !== "object") return false;
  const { name, shareable, create } = value as Record<string, unknown>;
  return typeof name === "string" && typeof shareable === "boolean" &&
    typeof create === "function";
}
