import { StoreKeyError } from "./errors.ts";
import { compareIds, identityKey } from "./identity.ts";

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
  value: V;
  /** The leaf this slot sits in, so removal needs no walk from the root. */
  leaf!: TrieNode<V>;
  /** Position in `leaf.slots`, for O(1) swap-removal. */
  pos = 0;

  constructor(
    readonly id: string,
    readonly namespace: string,
    readonly name: string,
    value: V,
  ) {
    this.value = value;
  }
}

class TrieNode<V> {
  /** Child per next key segment; only on branches. */
  readonly children: Map<string, TrieNode<V>> | undefined;
  /** Identities under exactly this key path; only on leaves. */
  readonly slots: SlotImpl<V>[] | undefined;
  /** Leaf `slots` are sorted lazily: appends and swap-removals set this. */
  dirty = false;
  /** Sorted slots of the whole subtree of a branch, built on demand. */
  cache: SlotImpl<V>[] | undefined = undefined;

  /** A leaf is created with its first slot, a branch without. */
  constructor(
    readonly parent: TrieNode<V> | undefined,
    readonly segment: string,
    first: SlotImpl<V> | undefined,
  ) {
    // A literal sizes the backing store for one slot; `[]` plus push would
    // reserve room for 17, which adds up with one leaf per object.
    this.slots = first ? [first] : undefined;
    this.children = first ? undefined : new Map();
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
  #byId = new Map<string, SlotImpl<V>>();
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
    return this.#byId.size;
  }

  /** The slot of an identity, if held. */
  lookup(namespace: string, name: string): Slot<V> | undefined {
    return this.#byId.get(identityKey(namespace, name));
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
    this.#checkKeys(keys);
    const id = identityKey(namespace, name);
    let slot = this.#byId.get(id);
    if (slot) {
      // Sorted caches hold slots, not values, so replacing the value in
      // place leaves them valid; only a change of keys moves the slot.
      slot.value = value;
      if (!sameKeys(slot.leaf, keys)) {
        this.#detach(slot);
        this.#attach(slot, keys);
      }
      return slot;
    }
    slot = new SlotImpl(id, namespace, name, value);
    this.#attach(slot, keys);
    this.#byId.set(id, slot);
    return slot;
  }

  /** Removes an identity; returns its slot when it was held. */
  delete(namespace: string, name: string): Slot<V> | undefined {
    const id = identityKey(namespace, name);
    const slot = this.#byId.get(id);
    if (!slot) return undefined;
    this.#byId.delete(id);
    this.#detach(slot);
    return slot;
  }

  /**
   * The slots under `keys` (all keys: exact match, fewer: prefix match, none:
   * everything), sorted by namespace, then name. The array belongs to the
   * index and changes with the next write: copy what you need at once.
   */
  select(keys: readonly string[]): readonly Slot<V>[] {
    const keyCount = this.#keyCount;
    if (keyCount === undefined) return NO_SLOTS;
    if (keys.length > keyCount) {
      throw new StoreKeyError(
        `The store is indexed by ${keyCount} keys but get() was given ${keys.length}`,
        { expected: keyCount, actual: keys.length },
      );
    }
    let node: TrieNode<V> | undefined = this.#root;
    for (let i = 0; i < keys.length; i++) {
      node = node.children!.get(keys[i]);
      if (node === undefined) {
        keyIndexCounters.visited += i + 1;
        return NO_SLOTS;
      }
    }
    keyIndexCounters.visited += keys.length;
    return sortedSlots(node);
  }

  /** Every slot, in insertion order; deleting while iterating is safe. */
  slots(): IterableIterator<Slot<V>> {
    return this.#byId.values();
  }

  /** Removes every identity; the key count stays. */
  clear(): void {
    this.#byId.clear();
    this.#root = new TrieNode<V>(undefined, "", undefined);
  }

  #checkKeys(keys: readonly string[]): void {
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
    this.#keyCount = keys.length;
  }

  #attach(slot: SlotImpl<V>, keys: readonly string[]): void {
    let node = this.#root;
    const last = keys.length - 1;
    for (let i = 0; i <= last; i++) {
      node.cache = undefined;
      let child = node.children!.get(keys[i]);
      if (child === undefined) {
        child = new TrieNode<V>(node, keys[i], i === last ? slot : undefined);
        node.children!.set(keys[i], child);
        if (i === last) {
          slot.leaf = child;
          slot.pos = 0;
          return;
        }
      }
      node = child;
    }
    const slots = node.slots!;
    if (!node.dirty && slots.length > 0) {
      node.dirty = compareIds(slots[slots.length - 1], slot) > 0;
    }
    slot.leaf = node;
    slot.pos = slots.length;
    slots.push(slot);
  }

  #detach(slot: SlotImpl<V>): void {
    const leaf = slot.leaf;
    const slots = leaf.slots!;
    const moved = slots.pop()!;
    if (moved !== slot) {
      slots[slot.pos] = moved;
      moved.pos = slot.pos;
      leaf.dirty = true;
    }
    // Invalidate every cache on the path and prune nodes left empty, so
    // later queries never walk through dead branches.
    let node = leaf;
    while (node.parent !== undefined) {
      const parent: TrieNode<V> = node.parent;
      parent.cache = undefined;
      if (node.empty) parent.children!.delete(node.segment);
      node = parent;
    }
  }
}

function sameKeys<V>(leaf: TrieNode<V>, keys: readonly string[]): boolean {
  let node: TrieNode<V> = leaf;
  for (let i = keys.length - 1; i >= 0; i--) {
    if (node.segment !== keys[i]) return false;
    node = node.parent!;
  }
  return true;
}

function sortedSlots<V>(node: TrieNode<V>): readonly SlotImpl<V>[] {
  const leafSlots = node.slots;
  if (leafSlots !== undefined) {
    if (node.dirty) {
      leafSlots.sort(compareIds);
      for (let i = 0; i < leafSlots.length; i++) leafSlots[i].pos = i;
      node.dirty = false;
      keyIndexCounters.visited += leafSlots.length;
    }
    return leafSlots;
  }
  if (node.cache !== undefined) return node.cache;
  const out: SlotImpl<V>[] = [];
  for (const child of node.children!.values()) {
    const part = sortedSlots(child);
    for (let i = 0; i < part.length; i++) out.push(part[i]);
  }
  keyIndexCounters.visited += node.children!.size + out.length;
  // Each child's part is already sorted; TimSort merges such runs cheaply.
  if (node.children!.size > 1) out.sort(compareIds);
  node.cache = out;
  return out;
}
