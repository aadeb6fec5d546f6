import { assertOptionNames } from "../_option_names.ts";
import type { KubeObject, KubeObjectLike, Store } from "../types.ts";
import { identityOf } from "./_identity.ts";
import { KeyIndex, type Slot } from "./_key_index.ts";

/**
 * Options for {@linkcode MemoryStore}.
 *
 * @example Two index keys, frozen objects
 * ```ts
 * import type { MemoryStoreOptions } from "@haptic/k8s-watcher/store";
 *
 * const options: MemoryStoreOptions = { keyCount: 2, freeze: true };
 * ```
 */
export interface MemoryStoreOptions {
  /**
   * How many index keys every object has (the length of the watcher's
   * `indexBy`). When omitted, the first write decides; fixing it up front
   * lets `get` reject too many keys before anything is stored.
   */
  keyCount?: number;
  /**
   * Deep-freeze every object when it is stored, so that a caller mutating a
   * shared object fails loudly. Costs a walk of each object: a debug aid.
   *
   * @default {false}
   */
  freeze?: boolean;
}

const NO_KEYS: readonly string[] = [];

/**
 * A {@linkcode Store} holding whole objects in memory, indexed by composite
 * keys that need not be unique.
 *
 * - Identity is namespace/name (`""` for cluster-scoped objects); `add` of a
 *   known identity replaces it, like `update`, and `update` of an unknown one
 *   adds it. When an object's keys change it moves; nothing stays behind under
 *   the old keys. `delete` removes exactly one object.
 * - `get(...keys)` with every key is an exact match, with fewer a prefix
 *   match, with none everything. It walks a trie with one level per key and
 *   touches only the answer, so its cost grows with the answer, not with the
 *   store. Answers are sorted by namespace, then name.
 * - Reads are synchronous and return fresh arrays. The objects in them are
 *   shared with the store, not copied: do not mutate them (the `freeze`
 *   option makes attempts throw). The store keeps the objects it is given, so
 *   do not mutate those after writing them either.
 *
 * @example A non-unique index by namespace and ingress class
 * ```ts
 * import { MemoryStore } from "@haptic/k8s-watcher";
 * import assert from "node:assert/strict";
 *
 * const store = new MemoryStore({ keyCount: 2 });
 * const ingress = (namespace: string, name: string, cls: string) => ({
 *   metadata: { namespace, name, resourceVersion: "1" },
 *   spec: { ingressClassName: cls },
 * });
 * // Indexed by namespace and ingress class: several objects share keys.
 * store.add(ingress("web", "b", "haproxy"), ["web", "haproxy"]);
 * store.add(ingress("web", "a", "haproxy"), ["web", "haproxy"]);
 * store.add(ingress("api", "c", "nginx"), ["api", "nginx"]);
 *
 * assert.deepEqual(store.get("web", "haproxy").map((o) => o.metadata.name), ["a", "b"]);
 * assert.equal(store.get("web").length, 2); // prefix match
 * assert.equal(store.list().length, 3);
 *
 * store.delete("web", "a");
 * assert.deepEqual(store.get("web", "haproxy").map((o) => o.metadata.name), ["b"]);
 * ```
 */
export class MemoryStore<T extends KubeObjectLike = KubeObject>
  implements Store<T> {
  #index: KeyIndex<T>;
  #freeze: boolean;
  #modifications = 0;

  /**
   * Creates an empty store.
   *
   * @example Frozen objects, as a debug aid
   * ```ts
   * import { MemoryStore } from "@haptic/k8s-watcher";
   * import assert from "node:assert/strict";
   *
   * const store = new MemoryStore({ freeze: true });
   * const web = { metadata: { namespace: "shop", name: "web" }, spec: { port: 80 } };
   * store.add(web, ["shop"]);
   * assert.throws(() => { web.spec.port = 8080; }, TypeError);
   * ```
   *
   * @param options Key count and the debug `freeze` switch; all optional.
   * @throws {TypeError} When `options` has a name it does not take.
   */
  constructor(options?: MemoryStoreOptions) {
    assertOptionNames(
      "MemoryStore options",
      MEMORY_NAMES,
      options,
      "MemoryStoreOptions",
    );
    this.#index = new KeyIndex<T>(options?.keyCount);
    this.#freeze = options?.freeze ?? false;
  }

  /**
   * Number of objects held.
   *
   * @example Counting objects
   * ```ts
   * import { MemoryStore } from "@haptic/k8s-watcher";
   * import assert from "node:assert/strict";
   *
   * const store = new MemoryStore();
   * store.add({ metadata: { namespace: "shop", name: "web" } }, ["shop"]);
   * assert.equal(store.size, 1);
   * ```
   */
  get size(): number {
    return this.#index.size;
  }

  /**
   * Incremented by every write that changes the store.
   *
   * @example Telling whether anything changed
   * ```ts
   * import { MemoryStore } from "@haptic/k8s-watcher";
   * import assert from "node:assert/strict";
   *
   * const store = new MemoryStore();
   * const before = store.modificationCount;
   * store.delete("shop", "absent"); // changes nothing
   * assert.equal(store.modificationCount, before);
   * store.add({ metadata: { namespace: "shop", name: "web" } }, ["shop"]);
   * assert.equal(store.modificationCount, before + 1);
   * ```
   */
  get modificationCount(): number {
    return this.#modifications;
  }

  /**
   * Adds an object under `keys`; an object with the same namespace/name is
   * replaced (and moved, when its keys differ).
   *
   * @example Adding under two keys
   * ```ts
   * import { MemoryStore } from "@haptic/k8s-watcher";
   * import assert from "node:assert/strict";
   *
   * const store = new MemoryStore();
   * store.add({ metadata: { namespace: "shop", name: "web" } }, ["shop", "haproxy"]);
   * assert.equal(store.get("shop", "haproxy").length, 1);
   * ```
   *
   * @param obj The object; kept by reference.
   * @param keys Its index keys, as many as every other object's.
   * @throws {StoreObjectError} The object has no usable namespace/name.
   * @throws {StoreKeyError} The keys are empty, not strings, or of the wrong count.
   */
  add(obj: T, keys: string[]): void {
    this.#put(obj, keys);
  }

  /**
   * Replaces the object of the same namespace/name, moving it when its keys
   * changed; adds it when absent.
   *
   * @example Moving an object to new keys
   * ```ts
   * import { MemoryStore } from "@haptic/k8s-watcher";
   * import assert from "node:assert/strict";
   *
   * const store = new MemoryStore();
   * store.add({ metadata: { namespace: "shop", name: "web" } }, ["shop", "nginx"]);
   * store.update({ metadata: { namespace: "shop", name: "web" } }, ["shop", "haproxy"]);
   * assert.equal(store.get("shop", "nginx").length, 0);
   * assert.equal(store.get("shop", "haproxy").length, 1);
   * ```
   *
   * @param obj The new version; kept by reference.
   * @param keys Its index keys now.
   * @throws {StoreObjectError} The object has no usable namespace/name.
   * @throws {StoreKeyError} The keys are empty, not strings, or of the wrong count.
   */
  update(obj: T, keys: string[]): void {
    this.#put(obj, keys);
  }

  /**
   * Removes exactly the object with this namespace/name; others under the
   * same keys stay.
   *
   * @example Deleting one of two objects under the same key
   * ```ts
   * import { MemoryStore } from "@haptic/k8s-watcher";
   * import assert from "node:assert/strict";
   *
   * const store = new MemoryStore();
   * store.add({ metadata: { namespace: "shop", name: "web" } }, ["shop"]);
   * store.add({ metadata: { namespace: "shop", name: "api" } }, ["shop"]);
   * assert.equal(store.delete("shop", "web"), true);
   * assert.equal(store.delete("shop", "web"), false); // gone already
   * assert.deepEqual(store.get("shop").map((o) => o.metadata.name), ["api"]);
   * ```
   *
   * @param namespace The object's namespace, `""` when cluster-scoped.
   * @param name The object's name.
   * @returns Whether the object was there.
   */
  delete(namespace: string, name: string): boolean {
    if (this.#index.delete(namespace, name) === undefined) return false;
    this.#modifications++;
    return true;
  }

  /**
   * Objects whose keys equal `keys` (all keys given) or start with them
   * (fewer given; none gives everything), by namespace, then name.
   *
   * @example Exact and prefix matches
   * ```ts
   * import { MemoryStore } from "@haptic/k8s-watcher";
   * import assert from "node:assert/strict";
   *
   * const store = new MemoryStore({ keyCount: 2 });
   * store.add({ metadata: { namespace: "shop", name: "web" } }, ["shop", "haproxy"]);
   * store.add({ metadata: { namespace: "shop", name: "api" } }, ["shop", "nginx"]);
   * assert.equal(store.get("shop", "haproxy").length, 1); // every key: exact
   * assert.equal(store.get("shop").length, 2); // fewer keys: prefix
   * ```
   *
   * @param keys Leading index keys; none matches every object.
   * @returns The matching objects, shared with the store.
   * @throws {StoreKeyError} More keys than the store is indexed by.
   */
  get(...keys: string[]): T[] {
    return values(this.#index.select(keys));
  }

  /**
   * Every object, ordered by namespace, then name.
   *
   * @example Listing in a stable order
   * ```ts
   * import { MemoryStore } from "@haptic/k8s-watcher";
   * import assert from "node:assert/strict";
   *
   * const store = new MemoryStore();
   * store.add({ metadata: { namespace: "web", name: "b" } }, ["web"]);
   * store.add({ metadata: { namespace: "api", name: "z" } }, ["api"]);
   * store.add({ metadata: { namespace: "web", name: "a" } }, ["web"]);
   * assert.deepEqual(store.list().map((o) => `${o.metadata.namespace}/${o.metadata.name}`), ["api/z", "web/a", "web/b"]);
   * ```
   *
   * @returns Every object, shared with the store.
   */
  list(): T[] {
    return values(this.#index.select(NO_KEYS));
  }

  /**
   * The stored resourceVersion of an object: `undefined` when absent, `""`
   * when the stored object has none.
   *
   * @example Checking what version is stored
   * ```ts
   * import { MemoryStore } from "@haptic/k8s-watcher";
   * import assert from "node:assert/strict";
   *
   * const web = { metadata: { namespace: "shop", name: "web", resourceVersion: "7" } };
   * const store = new MemoryStore();
   * store.add(web, ["shop"]);
   * assert.equal(store.resourceVersionOf("shop", "web"), "7");
   * assert.equal(store.resourceVersionOf("shop", "api"), undefined);
   * ```
   *
   * @param namespace The object's namespace, `""` when cluster-scoped.
   * @param name The object's name.
   */
  resourceVersionOf(namespace: string, name: string): string | undefined {
    const slot = this.#index.lookup(namespace, name);
    if (slot === undefined) return undefined;
    return slot.value.metadata?.resourceVersion ?? "";
  }

  /**
   * The stored object, or `undefined` when absent; no copy is made.
   *
   * @example Reading one object by identity
   * ```ts
   * import { MemoryStore } from "@haptic/k8s-watcher";
   * import assert from "node:assert/strict";
   *
   * const store = new MemoryStore();
   * store.add({ metadata: { namespace: "shop", name: "web" } }, ["shop"]);
   * assert.equal(store.peek("shop", "web")?.metadata.name, "web");
   * assert.equal(store.peek("shop", "api"), undefined);
   * ```
   *
   * @param namespace The object's namespace, `""` when cluster-scoped.
   * @param name The object's name.
   * @returns The object, shared with the store.
   */
  peek(namespace: string, name: string): T | undefined {
    return this.#index.lookup(namespace, name)?.value;
  }

  /**
   * Every stored identity as `[namespace, name]`, grouped by namespace,
   * in insertion order within each. Deleting while iterating is safe.
   *
   * @example Deleting while iterating
   * ```ts
   * import { MemoryStore } from "@haptic/k8s-watcher";
   * import assert from "node:assert/strict";
   *
   * const store = new MemoryStore();
   * store.add({ metadata: { namespace: "shop", name: "web" } }, ["shop"]);
   * store.add({ metadata: { namespace: "shop", name: "api" } }, ["shop"]);
   * for (const [namespace, name] of store.identities()) store.delete(namespace, name);
   * assert.equal(store.size, 0);
   * ```
   */
  *identities(): IterableIterator<[namespace: string, name: string]> {
    for (const slot of this.#index.slots()) yield [slot.namespace, slot.name];
  }

  /**
   * Removes every object. The key count stays.
   *
   * @example Emptying the store
   * ```ts
   * import { MemoryStore } from "@haptic/k8s-watcher";
   * import assert from "node:assert/strict";
   *
   * const store = new MemoryStore();
   * store.add({ metadata: { namespace: "shop", name: "web" } }, ["shop"]);
   * store.clear();
   * assert.equal(store.list().length, 0);
   * ```
   */
  clear(): void {
    if (this.#index.size === 0) return;
    this.#index.clear();
    this.#modifications++;
  }

  #put(obj: T, keys: string[]): void {
    const [namespace, name] = identityOf(obj);
    this.#index.set(namespace, name, obj, keys);
    if (this.#freeze) deepFreeze(obj);
    this.#modifications++;
  }
}

function values<T>(slots: readonly Slot<T>[]): T[] {
  // The common answer of a unique index; a literal is the cheapest array.
  if (slots.length === 1) return [slots[0].value];
  const out = new Array<T>(slots.length);
  for (let i = 0; i < slots.length; i++) out[i] = slots[i].value;
  return out;
}

function deepFreeze(value: unknown): void {
  if (value === null || typeof value !== "object" || Object.isFrozen(value)) {
    return;
  }
  Object.freeze(value);
  for (const child of Object.values(value)) deepFreeze(child);
}

/** The names `MemoryStoreOptions` takes (a record over its keys). */
const MEMORY_NAMES: Record<keyof MemoryStoreOptions, true> = {
  keyCount: true,
  freeze: true,
};
