/**
 * Stores a watcher writes to and its users read from:
 * {@linkcode MemoryStore} keeps whole objects, {@linkcode CachedStore}
 * keeps references and fetches objects on read (with an LRU cache). Both
 * index by composite, non-unique keys and answer `get(...keys)` for exact
 * keys or a key prefix. Their interfaces, `Store` and `ReadableStore`, are
 * in the root module (and `@haptic/k8s-watcher/types`).
 *
 * A watcher makes its own store with the backend its `store` option names:
 * {@linkcode memoryStore} (the default), {@linkcode cachedStore}, or any
 * {@linkcode StoreFactory}. Use the stores directly for objects you keep
 * yourself, in the same shape.
 *
 * @example An index by host
 * ```ts
 * import { MemoryStore } from "@haptic/k8s-watcher/store";
 * import assert from "node:assert/strict";
 *
 * const byHost = new MemoryStore({ keyCount: 1 });
 * byHost.add({ metadata: { namespace: "shop", name: "web" } }, ["shop.example.com"]);
 * byHost.add({ metadata: { namespace: "shop", name: "api" } }, ["shop.example.com"]);
 * assert.equal(byHost.get("shop.example.com").length, 2);
 * ```
 *
 * ## Files
 *
 * - `memory_store.ts`: `MemoryStore`, whole objects; `StoreFactory`, a backend
 *   as a value, and `memoryStore()`, the default (`cachedStore()` is beside
 *   its store).
 * - `cached_store.ts`, `_lru.ts`: `CachedStore`, references, with objects
 *   fetched on read through an LRU cache.
 * - `_key_index.ts`: the indexes both stores use: an object's identity (the
 *   namespace/name key, NUL-separated, ordered), the key index (per trie
 *   node: sorted slots, and the value array a get copies), and the named
 *   indexes (`indexes`, `byIndex`): one key index per name, written with the
 *   primary one.
 * - `errors.ts`: the stores' typed errors.
 *
 * @module
 */
export * from "./memory_store.ts";
export * from "./cached_store.ts";
export * from "./errors.ts";
