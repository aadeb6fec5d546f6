/**
 * The named indexes of a store, besides its primary one (`indexes`): one
 * {@linkcode KeyIndex} per name, each keyed by its own function of the
 * object, holding what the primary index holds for the identity (the object
 * in a `MemoryStore`, its reference in a `CachedStore`). Shared by both
 * stores, as the primary index is.
 *
 * @module
 */
import { StoreKeyError } from "./errors.ts";
import { KeyIndex, type Slot } from "./_key_index.ts";
import type { IndexKeyFunction } from "../types.ts";

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
