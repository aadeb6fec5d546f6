/**
 * Stores a watcher writes to and its users read from: {@linkcode MemoryStore}
 * keeps whole objects, {@linkcode CachedStore} keeps references and fetches
 * objects on read. Both index by composite, non-unique keys.
 *
 * @module
 */
export * from "./memory_store.ts";
export * from "./cached_store.ts";
export * from "./errors.ts";
