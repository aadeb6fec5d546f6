/**
 * Which store backend a `Watcher` uses: its `store` factory, or the
 * deprecated `storeType` (and `cacheTTL`) mapped to one. The watcher asks
 * the factory alone whether its stream may be shared.
 *
 * @module
 */
import type { KubeObjectLike, StoreReads } from "../types.ts";
import { memoryStore } from "../store/memory_store.ts";
import { cachedStore } from "../store/cached_store.ts";
import type { StoreFactory } from "../store/store_factory.ts";
import { type WatcherConfig, WatcherConfigError } from "./watcher_config.ts";

/** A watcher's backend, and why its stream cannot be shared when it cannot. */
export interface StoreChoice {
  readonly factory: StoreFactory;
  /** As `health().notShared` says it; `undefined` for a shareable backend. */
  readonly notShared: `store: ${string}` | "storeType: cached" | undefined;
}

/** The backend `config` asks for; a `WatcherConfigError` naming a bad one. */
export function chooseStore<
  T extends KubeObjectLike,
  R extends StoreReads,
  I extends readonly string[],
>(
  config: WatcherConfig<T, R, I>,
): StoreChoice {
  const { store, storeType } = config;
  if (store !== undefined) {
    if (!isStoreFactory(store)) {
      throw new WatcherConfigError(
        "store",
        "must be a store factory (memoryStore(), cachedStore() or an object with name, shareable and create)",
      );
    }
    if (storeType !== undefined) {
      throw new WatcherConfigError(
        "storeType",
        "is not allowed with store: store replaces it",
      );
    }
    if (config.cacheTTL !== undefined) {
      throw new WatcherConfigError(
        "cacheTTL",
        "is not allowed with store: give cachedStore({ ttl })",
      );
    }
    return {
      factory: store,
      notShared: store.shareable ? undefined : `store: ${store.name}`,
    };
  }
  if (storeType === undefined || storeType === "memory") {
    return { factory: memoryStore(), notShared: undefined };
  }
  if (storeType === "cached") {
    return {
      factory: cachedStore({ ttl: config.cacheTTL }),
      notShared: "storeType: cached",
    };
  }
  throw new WatcherConfigError(
    "storeType",
    `must be "memory" or "cached", got ${String(storeType)}`,
  );
}

function isStoreFactory(value: unknown): value is StoreFactory {
  if (value === null || typeof value !== "object") return false;
  const { name, shareable, create } = value as Record<string, unknown>;
  return typeof name === "string" && typeof shareable === "boolean" &&
    typeof create === "function";
}
