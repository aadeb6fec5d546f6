/**
 * The indexes both stores use: an object's identity (its namespace/name
 * key, NUL-separated, ordered), the key index (per trie node: sorted slots,
 * and the value array a get copies), and the named indexes (`indexes`,
 * `byIndex`): one key index per name, written with the primary one.
 *
 * @module
 */
import type { IndexKeyFunction, KubeObjectLike } from "../types.ts";
import { StoreKeyError, StoreObjectError } from "./errors.ts";

// --- Identity ---------------------------------------------------------------

/**
 * The identity key of namespace/name. NUL sorts before every other code
 * unit, so comparing keys as strings orders by namespace, then name; and
 * since {@linkcode identityOf} refuses NUL in either part, keys are unambiguous.
 */
export function identityKey(namespace: string, name: string): string {
  return namespace + "\0" + name;
}

/**
 * The namespace (`""` when cluster-scoped) and name of an object a store is
 * asked to hold; throws a {@linkcode StoreObjectError} naming what is missing.
 */
export function identityOf(
  obj: KubeObjectLike,
): [namespace: string, name: string] {
  const meta = (obj as { metadata?: unknown } | null | undefined)?.metadata;
  if (meta === null || typeof meta !== "object") {
    throw new StoreObjectError("Object has no metadata");
  }
  const { name, namespace = "" } = meta as {
    name?: unknown;
    namespace?: unknown;
  };
  if (typeof name !== "string" || name === "") {
    throw new StoreObjectError("Object has no metadata.name");
  }
  if (typeof namespace !== "string") {
    throw new StoreObjectError(
      `Object "${name}" has a metadata.namespace that is not a string`,
    );
  }
  if (name.includes("\0") || namespace.includes("\0")) {
    throw new StoreObjectError(
      `Object "${name}" has a NUL character in its namespace or name`,
    );
  }
  return [namespace, name];
}

// --- The key index ----------------------------------------------------------

/**
 * One identity held by a {@linkcode KeyIndex}, with the value a store keeps
 * for it (the object itself, or a reference).
 */
export interface Slot<V> {
  /** Identity key; see `identityKey`. */
  readonly id: string;
  /** Namespace, `""` when cluster-scoped. */
  readonly namespace: string;
  /** Name. */
  readonly name: string;
  /** What the store keeps for this identity. */
  readonly value: V;
}

/**
 * Work done by {@linkcode KeyIndex} queries: trie nodes entered plus slots
 * gathered or sorted. Only tests read it, to prove that a query's cost grows
 * with its answer and not with the store.
 */
export const keyIndexCounters: { visited: number } = { visited: 0 };

const NO_SLOTS: readonly never[] = Object.freeze([]);

class SlotImpl<V> implements Slot<V> {
  readonly namespace: string;
  readonly name: string;
  value: V;
  /**
   * Where the slot sits, so removal needs no walk from the root: the branch
   * whose `children` hold it directly (`pos` < 0), or a shared leaf.
   */
  node!: TrieNode<V>;
  /** The last key; the slot's entry in `node.children` when held there. */
  segment = "";
  /** Position in `node.slots`, or -1 when held directly by a branch. */
  pos = -1;

  constructor(namespace: string, name: string, value: V) {
    this.namespace = namespace;
    this.name = name;
    this.value = value;
  }

  /** Built on demand: held per slot, the strings would cost ~80 B each. */
  get id(): string {
    return identityKey(this.namespace, this.name);
  }
}

/**
 * Orders by namespace, then name: the order of identity keys, without
 * building them.
 */
function compareSlots<V>(a: SlotImpl<V>, b: SlotImpl<V>): number {
  if (a.namespace !== b.namespace) return a.namespace < b.namespace ? -1 : 1;
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

class TrieNode<V> {
  readonly parent: TrieNode<V> | undefined;
  readonly segment: string;
  /**
   * Child per next key segment; only on branches. A key path with a single
   * identity ends in its slot, not in a leaf: with a unique index that is
   * every path, and a leaf per object would cost a node and an array.
   */
  readonly children: Map<string, TrieNode<V> | SlotImpl<V>> | undefined;
  /** Identities sharing exactly this key path; only on leaves. */
  readonly slots: SlotImpl<V>[] | undefined;
  /** Leaf `slots` are sorted lazily: appends and swap-removals set this. */
  dirty = false;
  /** Sorted slots of the whole subtree of a branch, built on demand. */
  cache: SlotImpl<V>[] | undefined = undefined;
  /**
   * The values of the sorted slots under this node, in one array: a
   * repeated query copies it instead of reading each slot, wherever the
   * slots are in memory. Any write under the node drops it, an update of a
   * value in place included.
   */
  values: V[] | undefined = undefined;

  /** A leaf is created with its slots, a branch without. */
  constructor(
    parent: TrieNode<V> | undefined,
    segment: string,
    slots: SlotImpl<V>[] | undefined,
  ) {
    this.parent = parent;
    this.segment = segment;
    this.slots = slots;
    this.children = slots ? undefined : new Map();
  }

  get empty(): boolean {
    return this.slots ? this.slots.length === 0 : this.children!.size === 0;
  }
}

/**
 * A non-unique index from composite keys to identities, shared by
 * `MemoryStore` and `CachedStore`: a trie with one level per key, identities
 * at the leaves. A query walks to the node of its key prefix and gathers
 * that subtree only, so its cost grows with the answer, not with the index.
 * Answers are sorted by identity (namespace, then name); the sorted array of
 * each node is kept until a write below it, so repeated queries are cheap.
 */
export class KeyIndex<V> {
  /**
   * Slots by namespace, then name: two lookups of strings whose hashes are
   * already known beat building and hashing an identity key per call.
   */
  #byNamespace = new Map<string, Map<string, SlotImpl<V>>>();
  #size = 0;
  #root: TrieNode<V> = new TrieNode<V>(undefined, "", undefined);
  #keyCount: number | undefined;

  /**
   * Creates an empty index.
   *
   * @param keyCount How many keys every entry has; when omitted, the first
   * write decides.
   */
  constructor(keyCount?: number) {
    if (keyCount !== undefined) {
      if (!Number.isInteger(keyCount) || keyCount < 1) {
        throw new StoreKeyError(
          `Key count must be a positive integer but got ${keyCount}`,
          { actual: keyCount },
        );
      }
      this.#keyCount = keyCount;
    }
  }

  /** How many keys every entry has, once known. */
  get keyCount(): number | undefined {
    return this.#keyCount;
  }

  /** Number of identities held. */
  get size(): number {
    return this.#size;
  }

  /** The slot of an identity, if held. */
  lookup(namespace: string, name: string): Slot<V> | undefined {
    return this.#byNamespace.get(namespace)?.get(name);
  }

  /**
   * Stores `value` for an identity under `keys`, moving it when it was held
   * under other keys. Keys are validated before anything changes.
   *
   * @returns The identity's slot.
   */
  set(
    namespace: string,
    name: string,
    value: V,
    keys: readonly string[],
  ): Slot<V> {
    this.checkKeys(keys);
    this.#keyCount = keys.length;
    let names = this.#byNamespace.get(namespace);
    let slot = names?.get(name);
    if (slot) {
      // Sorted caches hold slots, not values, so replacing the value in
      // place leaves them valid; only a change of keys moves the slot. The
      // value arrays on its path go.
      slot.value = value;
      for (let n: TrieNode<V> | undefined = slot.node; n; n = n.parent) {
        n.values = undefined;
      }
      if (!sameKeys(slot, keys)) {
        this.#detach(slot);
        this.#attach(slot, keys);
      }
      return slot;
    }
    slot = new SlotImpl(namespace, name, value);
    this.#attach(slot, keys);
    if (names === undefined) {
      names = new Map();
      this.#byNamespace.set(namespace, names);
    }
    names.set(name, slot);
    this.#size++;
    return slot;
  }

  /** Removes an identity; returns its slot when it was held. */
  delete(namespace: string, name: string): Slot<V> | undefined {
    const names = this.#byNamespace.get(namespace);
    const slot = names?.get(name);
    if (!slot) return undefined;
    names!.delete(name);
    if (names!.size === 0) this.#byNamespace.delete(namespace);
    this.#size--;
    this.#detach(slot);
    return slot;
  }

  /**
   * The slots under `keys` (all keys: exact match, fewer: prefix match, none:
   * everything), sorted by namespace, then name. The array belongs to the
   * index and changes with the next write: copy what you need at once.
   */
  select(keys: readonly string[], caller = "get()"): readonly Slot<V>[] {
    const node = this.#find(keys, caller);
    return node === undefined
      ? NO_SLOTS
      : node instanceof SlotImpl
      ? [node]
      : sortedSlots(node);
  }

  /**
   * The values under `keys`, in the order of {@linkcode KeyIndex.select},
   * in a new array the caller owns. A repeated query copies one array kept
   * per node (see `TrieNode.values`) instead of reading each slot.
   */
  selectValues(keys: readonly string[], caller = "get()"): V[] {
    const node = this.#find(keys, caller);
    if (node === undefined) return [];
    if (node instanceof SlotImpl) return [node.value];
    let values = node.values;
    if (values === undefined) {
      const slots = sortedSlots(node);
      values = new Array<V>(slots.length);
      for (let i = 0; i < slots.length; i++) values[i] = slots[i].value;
      node.values = values;
    }
    return values.slice();
  }

  #find(
    keys: readonly string[],
    caller: string,
  ): TrieNode<V> | SlotImpl<V> | undefined {
    const keyCount = this.#keyCount;
    if (keyCount === undefined) return undefined;
    if (keys.length > keyCount) {
      throw new StoreKeyError(
        `The store is indexed by ${keyCount} keys but ${caller} was given ${keys.length}`,
        { expected: keyCount, actual: keys.length },
      );
    }
    let node: TrieNode<V> | SlotImpl<V> | undefined = this.#root;
    for (let i = 0; i < keys.length; i++) {
      node = (node as TrieNode<V>).children!.get(keys[i]);
      if (node === undefined) {
        keyIndexCounters.visited += i + 1;
        return undefined;
      }
    }
    keyIndexCounters.visited += keys.length;
    // Only a full key path ends in a slot, so the walk above never tries
    // to descend from one.
    return node;
  }

  /**
   * Every slot, grouped by namespace, each group and the slots in it in
   * insertion order; deleting while iterating is safe.
   */
  *slots(): IterableIterator<Slot<V>> {
    for (const names of this.#byNamespace.values()) yield* names.values();
  }

  /** Removes every identity; the key count stays. */
  clear(): void {
    this.#byNamespace.clear();
    this.#size = 0;
    this.#root = new TrieNode<V>(undefined, "", undefined);
  }

  /**
   * Checks keys as `set` does, changing nothing: a non-empty array of
   * strings, as many as every other entry has.
   *
   * @throws {StoreKeyError} When they are not.
   */
  checkKeys(keys: readonly string[]): void {
    if (!Array.isArray(keys) || keys.length === 0) {
      throw new StoreKeyError("Index keys must be a non-empty array", {
        expected: this.#keyCount,
        actual: Array.isArray(keys) ? 0 : NaN,
      });
    }
    if (this.#keyCount !== undefined && keys.length !== this.#keyCount) {
      throw new StoreKeyError(
        `The store is indexed by ${this.#keyCount} keys but ${keys.length} were given`,
        { expected: this.#keyCount, actual: keys.length },
      );
    }
    for (let i = 0; i < keys.length; i++) {
      if (typeof keys[i] !== "string") {
        throw new StoreKeyError(
          `Index key ${i} must be a string but is ${typeof keys[i]}`,
          { expected: this.#keyCount, actual: keys.length },
        );
      }
    }
  }

  #attach(slot: SlotImpl<V>, keys: readonly string[]): void {
    let node = this.#root;
    const last = keys.length - 1;
    for (let i = 0; i < last; i++) {
      node.cache = node.values = undefined;
      let child = node.children!.get(keys[i]);
      if (child === undefined) {
        child = new TrieNode<V>(node, keys[i], undefined);
        node.children!.set(keys[i], child);
      }
      node = child as TrieNode<V>;
    }
    node.cache = node.values = undefined;
    const segment = keys[last];
    slot.segment = segment;
    const held = node.children!.get(segment);
    if (held === undefined) {
      node.children!.set(segment, slot);
      slot.node = node;
      slot.pos = -1;
      return;
    }
    if (held instanceof SlotImpl) {
      // A second identity on this key path: give the path a shared leaf.
      // A literal sizes the array for two; `[]` plus push reserves 17.
      const leaf = new TrieNode<V>(node, segment, [held, slot]);
      leaf.dirty = compareSlots(held, slot) > 0;
      node.children!.set(segment, leaf);
      held.node = leaf;
      held.pos = 0;
      slot.node = leaf;
      slot.pos = 1;
      return;
    }
    const slots = held.slots!;
    if (!held.dirty && slots.length > 0) {
      held.dirty = compareSlots(slots[slots.length - 1], slot) > 0;
    }
    held.values = undefined;
    slot.node = held;
    slot.pos = slots.length;
    slots.push(slot);
  }

  #detach(slot: SlotImpl<V>): void {
    let node = slot.node;
    if (slot.pos < 0) {
      node.children!.delete(slot.segment);
      node.cache = node.values = undefined;
    } else {
      node.values = undefined;
      const slots = node.slots!;
      const moved = slots.pop()!;
      if (moved !== slot) {
        slots[slot.pos] = moved;
        moved.pos = slot.pos;
        node.dirty = true;
      }
    }
    // Invalidate every cache on the path and prune nodes left empty, so
    // later queries never walk through dead branches.
    while (node.parent !== undefined) {
      const parent: TrieNode<V> = node.parent;
      parent.cache = parent.values = undefined;
      if (node.empty) parent.children!.delete(node.segment);
      node = parent;
    }
  }
}

function sameKeys<V>(slot: SlotImpl<V>, keys: readonly string[]): boolean {
  const last = keys.length - 1;
  if (slot.segment !== keys[last]) return false;
  let node = slot.pos < 0 ? slot.node : slot.node.parent!;
  for (let i = last - 1; i >= 0; i--) {
    if (node.segment !== keys[i]) return false;
    node = node.parent!;
  }
  return true;
}

function sortedSlots<V>(node: TrieNode<V>): readonly SlotImpl<V>[] {
  const leafSlots = node.slots;
  if (leafSlots !== undefined) {
    if (node.dirty) {
      leafSlots.sort(compareSlots);
      for (let i = 0; i < leafSlots.length; i++) leafSlots[i].pos = i;
      node.dirty = false;
      keyIndexCounters.visited += leafSlots.length;
    }
    return leafSlots;
  }
  if (node.cache !== undefined) return node.cache;
  const out: SlotImpl<V>[] = [];
  for (const child of node.children!.values()) {
    if (child instanceof SlotImpl) {
      out.push(child);
      continue;
    }
    const part = sortedSlots(child);
    for (let i = 0; i < part.length; i++) out.push(part[i]);
  }
  keyIndexCounters.visited += node.children!.size + out.length;
  // Each child's part is already sorted; TimSort merges such runs cheaply.
  if (node.children!.size > 1) out.sort(compareSlots);
  node.cache = out;
  return out;
}

// --- Named indexes ----------------------------------------------------------

// The named indexes of a store, besides its primary one (`indexes`): one
// `KeyIndex` per name, each keyed by its own function of the object, holding
// what the primary index holds for the identity (the object in a
// `MemoryStore`, its reference in a `CachedStore`). Shared by both stores, as
// the primary index is.

interface Named<V, T> {
  readonly keysOf: IndexKeyFunction<T>;
  readonly index: KeyIndex<V>;
}

/** Every named index of a store; writes go to all, reads to one by name. */
export class NamedIndexes<V, T> {
  #byName = new Map<string, Named<V, T>>();
  /** The indexes, for the write path (no Map iterator per write). */
  #all: Named<V, T>[] = [];

  /**
   * Checks the options' `indexes`: a map of names to key functions.
   *
   * @throws {TypeError} Not an object, an empty name, or not a function.
   */
  constructor(
    indexes: Readonly<Record<string, IndexKeyFunction<T>>> | undefined,
    owner: string,
  ) {
    if (indexes === undefined) return;
    if (indexes === null || typeof indexes !== "object") {
      throw new TypeError(
        `${owner} option indexes must map index names to key functions`,
      );
    }
    for (const [name, keysOf] of Object.entries(indexes)) {
      if (name === "" || typeof keysOf !== "function") {
        throw new TypeError(
          `${owner} option indexes.${
            name || '""'
          } must be a function returning the object's keys in that index`,
        );
      }
      const named = { keysOf, index: new KeyIndex<V>() };
      this.#byName.set(name, named);
      this.#all.push(named);
    }
  }

  /** Whether there is any (the write path skips all work when not). */
  get empty(): boolean {
    return this.#all.length === 0;
  }

  /** The names, in the order given. */
  get names(): string[] {
    return [...this.#byName.keys()];
  }

  /**
   * The keys of `obj` in every index (`undefined` where it has none),
   * checked: taken before the store changes anything, so that a key
   * function that throws, or keys of the wrong count, leave it as it was.
   *
   * @throws {StoreKeyError} Keys that are empty, not strings, or of another
   * count than the index's other objects have.
   */
  keysOf(obj: T): (readonly string[] | undefined)[] {
    const all = this.#all;
    const keys = new Array<readonly string[] | undefined>(all.length);
    for (let i = 0; i < all.length; i++) {
      const own = all[i].keysOf(obj);
      if (own !== undefined) all[i].index.checkKeys(own);
      keys[i] = own;
    }
    return keys;
  }

  /** Keys an identity in every index as `keysOf` said; drops it where none. */
  set(
    namespace: string,
    name: string,
    value: V,
    keys: readonly (readonly string[] | undefined)[],
  ): void {
    const all = this.#all;
    for (let i = 0; i < all.length; i++) {
      const own = keys[i];
      if (own === undefined) all[i].index.delete(namespace, name);
      else all[i].index.set(namespace, name, value, own);
    }
  }

  /** Drops an identity from every index. */
  delete(namespace: string, name: string): void {
    const all = this.#all;
    for (let i = 0; i < all.length; i++) all[i].index.delete(namespace, name);
  }

  /** Empties every index. */
  clear(): void {
    for (const named of this.#all) named.index.clear();
  }

  /**
   * The slots under `keys` in the index `name`, as `KeyIndex.select`
   * answers them.
   *
   * @throws {StoreKeyError} No index of that name, or too many keys.
   */
  select(name: string, keys: readonly string[]): readonly Slot<V>[] {
    const named = this.#byName.get(name);
    if (named === undefined) {
      const known = this.#all.length === 0
        ? "it has none"
        : `it has ${this.names.map((n) => JSON.stringify(n)).join(", ")}`;
      throw new StoreKeyError(
        `The store has no index named ${JSON.stringify(name)} (${known})`,
        { actual: keys.length },
      );
    }
    return named.index.select(keys, `byIndex(${JSON.stringify(name)})`);
  }
}
