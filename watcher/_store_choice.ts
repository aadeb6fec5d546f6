/**
 * Which store backend a `Watcher` uses: its `store` factory, or a memory
 * store when it gives none, and the named `indexes` it must keep. The
 * watcher asks the factory alone whether its stream may be shared.
 *
 * @module
 */
import type { IndexKeyFunction, KubeObjectLike, StoreReads } from "../types.ts";
import { Indexer } from "../selection/indexer.ts";
import { memoryStore, type StoreFactory } from "../store/memory_store.ts";
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

/**
 * The watcher's `indexes`, checked: each name's key function (over the
 * stored copy, as `indexBy`'s keys are), and a key for the view.
 */
export interface NamedIndexPaths {
  readonly names: readonly string[];
  readonly keyFunctions: Readonly<
    Record<string, IndexKeyFunction<KubeObjectLike>>
  >;
  /** What watchers sharing a store must agree on. */
  readonly key: [string, readonly string[]][];
}

/** The `indexes` option, checked; a `WatcherConfigError` names the index. */
export function namedIndexes(
  indexes: unknown,
  ignoreFields: readonly string[] | undefined,
): NamedIndexPaths {
  if (indexes === undefined) return { names: [], keyFunctions: {}, key: [] };
  if (
    indexes === null || typeof indexes !== "object" || Array.isArray(indexes)
  ) {
    throw new WatcherConfigError(
      "indexes",
      "must map index names to lists of JSONPath expressions",
    );
  }
  const keyFunctions: Record<string, IndexKeyFunction<KubeObjectLike>> = {};
  const key: [string, readonly string[]][] = [];
  for (const [name, paths] of Object.entries(indexes)) {
    if (name === "") {
      throw new WatcherConfigError("indexes", "has an index with no name");
    }
    const field = `indexes.${name}`;
    if (!Array.isArray(paths) || paths.length === 0) {
      throw new WatcherConfigError(
        field,
        "must list at least one JSONPath expression",
      );
    }
    let indexer: Indexer;
    try {
      indexer = new Indexer({ indexBy: paths, ignoreFields });
    } catch (error) {
      // The indexer words its problems for indexBy; these paths are the
      // index's own.
      const message = error instanceof Error ? error.message : String(error);
      throw new WatcherConfigError(
        field,
        message.replaceAll("indexBy", field),
        { cause: error },
      );
    }
    keyFunctions[name] = (obj) => indexer.extractKeys(obj);
    key.push([name, indexer.indexBy]);
  }
  key.sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0);
  return { names: Object.keys(keyFunctions), keyFunctions, key };
}
