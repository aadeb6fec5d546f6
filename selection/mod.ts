/**
 * Selection: what a watcher's config strings become, each picking something
 * out of an object. {@linkcode FieldSelector} (client-side, over any path)
 * and {@linkcode LabelSelector} (kubectl's syntax or a
 * `metav1.LabelSelector`) pick objects; {@linkcode JsonPath} (the JSONPath
 * subset of `indexBy`, `ignoreFields` and field selectors) picks values;
 * {@linkcode Indexer} picks index keys and drops ignored fields, throwing
 * {@linkcode InvalidObjectError} for a value that is no object. (In 0.3,
 * `@haptic/k8s-watcher/indexer`.)
 *
 * The watchers use them for you; import them to evaluate the same
 * expressions elsewhere, e.g. to check a configuration before starting.
 *
 * @example Checking a watcher's paths up front
 * ```ts
 * import { FieldSelector, Indexer, LabelSelector } from "@haptic/k8s-watcher/selection";
 * import assert from "node:assert/strict";
 *
 * const ingress = {
 *   metadata: { namespace: "shop", name: "web", labels: { team: "web" } },
 *   spec: { ingressClassName: "haproxy" },
 * };
 * const indexer = new Indexer({ indexBy: ["metadata.namespace", "spec.ingressClassName"] });
 * assert.deepEqual(indexer.extractKeys(ingress), ["shop", "haproxy"]);
 * assert.ok(new FieldSelector("spec.ingressClassName=haproxy").matches(ingress));
 * assert.ok(new LabelSelector("team in (web,api)").matches(ingress.metadata.labels));
 * assert.throws(() => new FieldSelector("spec.ingressClassName")); // no operator
 * ```
 *
 * ## Files
 *
 * - `jsonpath.ts`: `JsonPath`, the JSONPath subset.
 * - `indexer.ts`: `Indexer`: `ignoreFields` and index keys.
 * - `field_selector.ts`, `label_selector.ts`: the two selectors.
 * - `invalid_object_error.ts`: the check that a value is a storable object
 *   (the `Indexer`'s and the writer's), and its `InvalidObjectError`.
 * - `_prune.ts`: `ignoreFields` as a trie: removing paths, and whether they
 *   cover a path (`mayCover`, the selection rule's).
 *
 * @module
 */
export * from "./jsonpath.ts";
export * from "./indexer.ts";
export { InvalidObjectError } from "./invalid_object_error.ts";
export * from "./field_selector.ts";
export * from "./label_selector.ts";
