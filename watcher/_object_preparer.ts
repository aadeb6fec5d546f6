/**
 * The first half of the store writer: what turns a decoded object into the
 * one copy that is stored, the same for every consumer of a stream (checked,
 * `ignoreFields` removed, `transform` applied). The second half (selection,
 * index keys, the store, the batch) is each consumer's: see
 * `_store_writer.ts`.
 *
 * @module
 */
import type { KubeObject, Logger } from "../types.ts";
import type { Indexer } from "../indexer/indexer.ts";
import { assertKubeObject } from "../indexer/_kube_object.ts";
import { write, writerLine, type WriterNote } from "../listwatch/_log_lines.ts";

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
}

/**
 * Checks an object, removes `ignoreFields`, then runs `transform`. The
 * input is never mutated.
 */
export class ObjectPreparer<T extends KubeObject> {
  #indexer: Indexer;
  #transform: Transform<T> | undefined;
  #logger: Logger;
  #resource: string;

  constructor(options: ObjectPreparerOptions<T>) {
    this.#indexer = options.indexer;
    this.#transform = options.transform;
    this.#logger = options.logger;
    this.#resource = options.resource;
  }

  /**
   * The object to store; `undefined` when it is not storable (invalid, or
   * dropped by `transform`): a stored version leaves the store. `SKIPPED`
   * when `transform` threw (or changed the object's identity): the stored
   * version, if any, stays.
   */
  prepare(raw: KubeObject): T | undefined | typeof SKIPPED {
    try {
      assertKubeObject(raw);
    } catch (error) {
      this.#note({ kind: "invalidObject", error });
      return undefined;
    }
    const filtered = this.#indexer.filterFields(raw);
    const transform = this.#transform;
    if (transform === undefined) return filtered as T;
    const { namespace, name } = raw.metadata;
    try {
      const out = transform(filtered);
      if (out === undefined) return undefined;
      const meta = (out as Partial<KubeObject> | null)?.metadata;
      if (
        typeof meta !== "object" || meta === null || meta.name !== name ||
        (meta.namespace ?? "") !== (namespace ?? "")
      ) {
        throw new TypeError(
          "transform must return undefined or an object with the same metadata.namespace and metadata.name",
        );
      }
      return out;
    } catch (error) {
      this.#note({ kind: "transformFailed", namespace, name, error });
      return SKIPPED;
    }
  }

  #note(note: WriterNote): void {
    write(this.#logger, writerLine(note, this.#resource));
  }
}
