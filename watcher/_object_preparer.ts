/**
 * The first half of the store writer: what turns a decoded object into the
 * one copy that is stored, the same for every consumer of a stream (checked,
 * `ignoreFields` removed, `transform` applied). The second half (selection,
 * index keys, the store, the batch) is each consumer's: see
 * `_store_writer.ts`.
 *
 * @module
 */
import type { KubeObject, KubeObjectLike, Logger } from "../types.ts";
import type { Indexer } from "../selection/indexer.ts";
import { assertKubeObject } from "../selection/invalid_object_error.ts";
import { asPartialObjectMetadata } from "../_internal/_objects.ts";
import { deepFreeze } from "../_internal/_objects.ts";
import { write, writerLine, type WriterNote } from "./_log_lines.ts";

/**
 * What {@linkcode ObjectPreparer.prepare} returns for an object `transform`
 * threw for: skip it, and keep what is stored.
 */
export const SKIPPED: unique symbol = Symbol("skipped");

/** A user's `transform`: `undefined` drops the object. */
export type Transform<T> = (obj: KubeObject) => T | undefined;

/** Options of an {@linkcode ObjectPreparer}. */
export interface ObjectPreparerOptions<T> {
  /** Removes `ignoreFields`. */
  indexer: Indexer;
  /** The user's transform, if any. */
  transform?: Transform<T> | undefined;
  /** Where skipped objects are reported. */
  logger: Logger;
  /** The resource, for log lines. */
  resource: string;
  /**
   * Keep only `apiVersion`, `kind` and `metadata`, in the form the API
   * server's `PartialObjectMetadata` has, whatever the client fetched.
   */
  metadataOnly?: boolean;
  /** Deep-freeze every object prepared (`freezeObjects`). */
  freeze?: boolean;
}

/**
 * Checks an object, removes `ignoreFields`, then runs `transform`. The
 * input is never mutated.
 */
export class ObjectPreparer<T extends KubeObjectLike> {
  #indexer: Indexer;
  #transform: Transform<T> | undefined;
  #logger: Logger;
  #resource: string;
  #metadataOnly: boolean;
  #freeze: boolean;
  /** The namespace string of the last object prepared. */
  #namespace: string | undefined;

  constructor(options: ObjectPreparerOptions<T>) {
    this.#metadataOnly = options.metadataOnly === true;
    this.#freeze = options.freeze === true;
    this.#indexer = options.indexer;
    this.#transform = options.transform;
    this.#logger = options.logger;
    this.#resource = options.resource;
  }

  /**
   * The object to store; `undefined` when it is not storable (invalid, or
   * dropped by `transform`): a stored version leaves the store. `SKIPPED`
   * when `transform` threw (or changed the object's identity): the stored
   * version, if any, stays. With `freeze`, what it returns is deep-frozen.
   */
  prepare(raw: KubeObject): T | undefined | typeof SKIPPED {
    try {
      assertKubeObject(raw);
    } catch (error) {
      this.#note({ kind: "invalidObject", error });
      return undefined;
    }
    // A client that ignored `accept` sent the full object: reduce it here,
    // so that what is stored does not depend on the client.
    const filtered = this.#indexer.filterFields(
      this.#metadataOnly ? asPartialObjectMetadata(raw) : raw,
    );
    this.#shareNamespace(filtered.metadata);
    const transform = this.#transform;
    if (transform === undefined) {
      if (this.#freeze) deepFreeze(filtered);
      return filtered as unknown as T;
    }
    const { namespace, name } = raw.metadata;
    try {
      const out = transform(filtered);
      if (out === undefined) return undefined;
      const meta = (out as KubeObjectLike | null)?.metadata;
      if (
        typeof meta !== "object" || meta === null || meta.name !== name ||
        (meta.namespace ?? "") !== (namespace ?? "")
      ) {
        throw new TypeError(
          "transform must return undefined or an object with the same metadata.namespace and metadata.name",
        );
      }
      if (this.#freeze) deepFreeze(out);
      return out;
    } catch (error) {
      this.#note({ kind: "transformFailed", namespace, name, error });
      return SKIPPED;
    }
  }

  /**
   * Gives an object the namespace string of the object before it when the
   * two are equal (a LIST comes sorted by namespace). Every decoded object
   * brings its own copy of the string, and each copy is hashed once by
   * the first Map it keys; on a large heap V8's string hashing is what
   * bends the sync curve (bench/ANALYSIS.md), and the copies cost memory.
   */
  #shareNamespace(meta: KubeObject["metadata"]): void {
    const namespace = meta.namespace;
    if (namespace === undefined) return;
    if (namespace !== this.#namespace) {
      this.#namespace = namespace;
      return;
    }
    try {
      meta.namespace = this.#namespace;
    } catch {
      // A frozen object (from a custom client) keeps its own copy.
    }
  }

  #note(note: WriterNote): void {
    write(this.#logger, writerLine(note, this.#resource));
  }
}
