/**
 * Index-key extraction and field removal for objects before they are stored.
 *
 * @module
 */
import type { KubeObject } from "../types.ts";
import { JsonPath } from "./jsonpath.ts";
import { renderValue } from "../_internal/_objects.ts";
import { buildPruneTrie, mayCover, prune, type PruneNode } from "./_prune.ts";
import { assertKubeObject } from "./invalid_object_error.ts";
// deno-lint-ignore no-unused-vars -- linked from the docs
import type { InvalidObjectError } from "./invalid_object_error.ts";

/**
 * Options for {@linkcode Indexer}.
 *
 * @example Keys by namespace and name, without managed fields
 * ```ts
 * import type { IndexerOptions } from "@haptic/k8s-watcher/selection";
 *
 * const options: IndexerOptions = {
 *   indexBy: ["metadata.namespace", "metadata.name"],
 *   ignoreFields: ["metadata.managedFields"],
 * };
 * ```
 */
export interface IndexerOptions {
  /** JSONPath-lite expressions whose first matches form the index keys, in order. At least one. */
  indexBy: readonly string[];
  /** JSONPath-lite expressions removed from every object before it is stored. */
  ignoreFields?: readonly string[];
}

/**
 * Invalid {@linkcode IndexerOptions}: names the option and, for a list entry,
 * its index.
 *
 * @example A path that does not parse
 * ```ts
 * import { Indexer, IndexerOptionsError } from "@haptic/k8s-watcher/selection";
 * import assert from "node:assert/strict";
 *
 * assert.throws(() => new Indexer({ indexBy: ["metadata.name", "spec..x"] }), (err) => {
 *   assert(err instanceof IndexerOptionsError);
 *   assert.equal(err.option, "indexBy");
 *   assert.equal(err.index, 1);
 *   return true;
 * });
 * ```
 */
export class IndexerOptionsError extends Error {
  /** The offending option, `indexBy` or `ignoreFields`. */
  readonly option: string;
  /** The offending entry of that list, when one entry is at fault. */
  readonly index: number | undefined;

  /**
   * Creates the error.
   *
   * @example The option and the entry at fault
   * ```ts
   * import { IndexerOptionsError } from "@haptic/k8s-watcher/selection";
   * import assert from "node:assert/strict";
   *
   * const err = new IndexerOptionsError("indexBy", 1, "expected a field name");
   * assert.equal(err.option, "indexBy");
   * assert.equal(err.index, 1);
   * ```
   *
   * @param option The offending option.
   * @param index The offending entry, if any.
   * @param message What is wrong.
   * @param options The underlying cause, such as a `JsonPathError`.
   */
  constructor(
    option: string,
    index: number | undefined,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = "IndexerOptionsError";
    this.option = option;
    this.index = index;
  }
}

/**
 * An object ready to store: filtered, with its index keys.
 *
 * @example An object and its keys
 * ```ts
 * import type { ProcessedObject } from "@haptic/k8s-watcher/selection";
 *
 * const done: ProcessedObject = { obj: { metadata: { name: "a" } }, keys: ["a"] };
 * ```
 */
export interface ProcessedObject {
  /** The object without the ignored fields. */
  obj: KubeObject;
  /** One key per `indexBy` expression, in order. */
  keys: string[];
}

/** Fields the stores need to identify and compare objects. */
const PROTECTED: readonly JsonPath[] = [
  new JsonPath("metadata.name"),
  new JsonPath("metadata.namespace"),
  new JsonPath("metadata.resourceVersion"),
];

/**
 * Extracts index keys and removes ignored fields, as configured once.
 *
 * A key is the first match of its `indexBy` expression rendered as a string:
 * strings as-is, numbers via `String` (an integer has no fractional part:
 * `3`, not `3.0`), booleans as `true`/`false`, objects and arrays as JSON. A
 * missing or `null` value means the object cannot be indexed.
 *
 * Removal never mutates its input: only the objects and arrays on the way to
 * a removed field are copied, everything else is shared. Because of that
 * sharing, nobody may mutate a processed object either.
 *
 * The constructor rejects `ignoreFields` that could remove an `indexBy` field
 * (or `metadata.name`, `metadata.namespace`, `metadata.resourceVersion`), so
 * keys are the same whether taken before or after filtering.
 *
 * @example Keys and a trimmed copy
 * ```ts
 * import { Indexer } from "@haptic/k8s-watcher/selection";
 * import assert from "node:assert/strict";
 *
 * const indexer = new Indexer({
 *   indexBy: ["metadata.namespace", "metadata.name"],
 *   ignoreFields: ["metadata.managedFields"],
 * });
 * const obj = {
 *   metadata: { namespace: "shop", name: "web", managedFields: [{ manager: "kubectl" }] },
 *   spec: { replicas: 3 },
 * };
 * const done = indexer.process(obj);
 * assert.deepEqual(done?.keys, ["shop", "web"]);
 * assert.deepEqual(done?.obj.metadata, { namespace: "shop", name: "web" });
 * assert.equal(done?.obj.spec, obj.spec); // shared, not copied
 * assert.equal(obj.metadata.managedFields.length, 1); // input untouched
 * ```
 */
export class Indexer {
  /** The `indexBy` expressions, in key order. */
  readonly indexBy: readonly string[];
  /** The `ignoreFields` expressions. */
  readonly ignoreFields: readonly string[];
  #keyPaths: JsonPath[];
  #trie: PruneNode | undefined;

  /**
   * Parses and checks the options.
   *
   * @example Keys by namespace and label
   * ```ts
   * import { Indexer } from "@haptic/k8s-watcher/selection";
   * import assert from "node:assert/strict";
   *
   * const indexer = new Indexer({ indexBy: ["metadata.namespace", "metadata.labels.app"] });
   * assert.deepEqual(
   *   indexer.extractKeys({ metadata: { namespace: "shop", name: "a", labels: { app: "web" } } }),
   *   ["shop", "web"],
   * );
   * ```
   *
   * @param options The paths to index by and to ignore.
   * @throws {IndexerOptionsError} When `indexBy` is empty, an expression is
   * invalid, or an ignored field could remove an indexed or identifying one.
   */
  constructor(options: IndexerOptions) {
    const { indexBy, ignoreFields = [] } = options ?? {};
    if (!Array.isArray(indexBy) || indexBy.length === 0) {
      throw new IndexerOptionsError(
        "indexBy",
        undefined,
        "Option indexBy must list at least one JSONPath expression",
      );
    }
    if (!Array.isArray(ignoreFields)) {
      throw new IndexerOptionsError(
        "ignoreFields",
        undefined,
        "Option ignoreFields must be an array of JSONPath expressions",
      );
    }
    this.indexBy = [...indexBy];
    this.ignoreFields = [...ignoreFields];
    this.#keyPaths = this.indexBy.map((e, i) => compile("indexBy", i, e));
    const ignored = this.ignoreFields.map((e, i) =>
      compile("ignoreFields", i, e)
    );
    const needed = [
      ...this.#keyPaths.map((k, j) => ({
        segments: k.segments,
        what: `indexBy[${j}] ${
          JSON.stringify(k.expression)
        }, which objects need for their index keys`,
      })),
      ...PROTECTED.map((p) => ({
        segments: p.segments,
        what: `${p.expression}, which the store needs to identify objects`,
      })),
    ];
    ignored.forEach((path, i) => {
      const clash = needed.find((c) => mayCover(path.segments, c.segments));
      if (clash) {
        throw new IndexerOptionsError(
          "ignoreFields",
          i,
          `Option ignoreFields[${i}] ${
            JSON.stringify(path.expression)
          } would remove ${clash.what}`,
        );
      }
    });
    this.#trie = buildPruneTrie(ignored.map((p) => p.segments));
  }

  /**
   * The number of index keys per object (the length of `indexBy`).
   *
   * @example How many keys each object gets
   * ```ts
   * import { Indexer } from "@haptic/k8s-watcher/selection";
   * import assert from "node:assert/strict";
   *
   * assert.equal(new Indexer({ indexBy: ["metadata.namespace", "metadata.name"] }).keyCount, 2);
   * ```
   */
  get keyCount(): number {
    return this.#keyPaths.length;
  }

  /**
   * The index keys of `obj`, or `undefined` when one of them is missing or
   * `null` (the object cannot be indexed; the caller warns and skips it).
   *
   * @param obj The object to index.
   * @returns One key per `indexBy` expression, or `undefined`.
   *
   * @example Keys from strings, numbers and booleans
   * ```ts
   * import { Indexer } from "@haptic/k8s-watcher/selection";
   * import assert from "node:assert/strict";
   *
   * const indexer = new Indexer({ indexBy: ["metadata.name", "spec.replicas", "spec.paused"] });
   * const keys = indexer.extractKeys({ metadata: { name: "web" }, spec: { replicas: 3, paused: false } });
   * assert.deepEqual(keys, ["web", "3", "false"]);
   * assert.equal(indexer.extractKeys({ metadata: { name: "web" }, spec: {} }), undefined);
   * ```
   */
  extractKeys(obj: unknown): string[] | undefined {
    const paths = this.#keyPaths;
    const keys: string[] = [];
    for (let i = 0; i < paths.length; i++) {
      const key = renderValue(paths[i].get(obj));
      if (key === undefined) return undefined;
      keys.push(key);
    }
    return keys;
  }

  /**
   * The first `indexBy` expression with no usable value in `obj`, for the
   * warning about an object that cannot be indexed; `undefined` when every
   * key is present.
   *
   * @param obj The object that could not be indexed.
   * @returns The missing expression, or `undefined`.
   *
   * @example Naming the path an object lacks
   * ```ts
   * import { Indexer } from "@haptic/k8s-watcher/selection";
   * import assert from "node:assert/strict";
   *
   * const indexer = new Indexer({ indexBy: ["metadata.name", "spec.ingressClassName"] });
   * assert.equal(indexer.missingKey({ metadata: { name: "web" } }), "spec.ingressClassName");
   * ```
   */
  missingKey(obj: unknown): string | undefined {
    for (const path of this.#keyPaths) {
      if (renderValue(path.get(obj)) === undefined) return path.expression;
    }
    return undefined;
  }

  /**
   * `obj` without the `ignoreFields` paths. Missing paths are fine. The
   * input is not mutated: the containers on the way to a removed field are
   * copied and everything else is shared. Returns `obj` itself when nothing
   * was removed (always, without `ignoreFields`).
   *
   * @param obj The object to filter.
   * @returns The filtered object.
   *
   * @example Dropping an annotation and condition messages
   * ```ts
   * import { Indexer } from "@haptic/k8s-watcher/selection";
   * import assert from "node:assert/strict";
   *
   * const indexer = new Indexer({
   *   indexBy: ["metadata.name"],
   *   ignoreFields: ["metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']", "status.conditions[*].message"],
   * });
   * const pod = {
   *   metadata: { name: "web", annotations: { "kubectl.kubernetes.io/last-applied-configuration": "{}" } },
   *   status: { conditions: [{ type: "Ready", message: "ok" }] },
   * };
   * const out = indexer.filterFields(pod);
   * assert.deepEqual(out, { metadata: { name: "web", annotations: {} }, status: { conditions: [{ type: "Ready" }] } });
   * assert.equal(pod.status.conditions[0].message, "ok");
   * ```
   */
  filterFields(obj: KubeObject): KubeObject {
    const trie = this.#trie;
    return trie === undefined ? obj : prune(trie, obj) as KubeObject;
  }

  /**
   * Checks that `obj` is a Kubernetes object, removes the ignored fields and
   * extracts the keys. Keys are the same before and after filtering (the
   * constructor makes sure of it); they are taken first, so an object that
   * cannot be indexed is not copied.
   *
   * @param obj A decoded object, e.g. from a list or watch event.
   * @returns The filtered object and its keys, or `undefined` when a key is
   * missing (see {@linkcode Indexer.missingKey}).
   * @throws {InvalidObjectError} When `obj` is not an object, or has no
   * `metadata` object or no `metadata.name`, or a `metadata.namespace` that
   * is not a string.
   *
   * @example An object without its key is skipped
   * ```ts
   * import { Indexer } from "@haptic/k8s-watcher/selection";
   * import assert from "node:assert/strict";
   *
   * const indexer = new Indexer({ indexBy: ["metadata.labels.app"] });
   * assert.deepEqual(
   *   indexer.process({ metadata: { name: "a", labels: { app: "web" } } })?.keys,
   *   ["web"],
   * );
   * assert.equal(indexer.process({ metadata: { name: "b" } }), undefined);
   * ```
   */
  process(obj: unknown): ProcessedObject | undefined {
    assertKubeObject(obj);
    const keys = this.extractKeys(obj);
    if (keys === undefined) return undefined;
    return { obj: this.filterFields(obj), keys };
  }
}

function compile(option: string, index: number, expression: unknown): JsonPath {
  try {
    return new JsonPath(expression as string);
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw new IndexerOptionsError(
      option,
      index,
      `Option ${option}[${index}] is invalid: ${
        why[0].toLowerCase() + why.slice(1)
      }`,
      { cause: err },
    );
  }
}
