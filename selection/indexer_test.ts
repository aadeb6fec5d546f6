import assert from "node:assert/strict";
import type { KubeObject } from "../types.ts";
import { Indexer, IndexerOptionsError } from "./indexer.ts";
import { InvalidObjectError } from "./invalid_object_error.ts";
import { JsonPathError } from "./jsonpath.ts";

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object") {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

const keyOf = (value: unknown): string[] | undefined =>
  new Indexer({ indexBy: ["spec.v"] }).extractKeys({
    metadata: { name: "x" },
    spec: { v: value },
  });

Deno.test("Indexer renders keys of every JSON type", () => {
  assert.deepEqual(keyOf("web"), ["web"]);
  assert.deepEqual(keyOf(""), [""]);
  assert.deepEqual(keyOf(3), ["3"]);
  assert.deepEqual(keyOf(3.0), ["3"]);
  assert.deepEqual(keyOf(JSON.parse("3.0")), ["3"]);
  assert.deepEqual(keyOf(-0), ["0"]);
  assert.deepEqual(keyOf(1.5), ["1.5"]);
  assert.deepEqual(keyOf(true), ["true"]);
  assert.deepEqual(keyOf(false), ["false"]);
  assert.deepEqual(keyOf({ b: 1, a: "x" }), ['{"b":1,"a":"x"}']);
  assert.deepEqual(keyOf([1, "two", null]), ['[1,"two",null]']);
  assert.deepEqual(keyOf({}), ["{}"]);
});

Deno.test("Indexer gives no keys when a value is null or missing", () => {
  assert.equal(keyOf(null), undefined);
  assert.equal(keyOf(undefined), undefined);
  const indexer = new Indexer({
    indexBy: ["metadata.namespace", "metadata.name"],
  });
  assert.equal(indexer.extractKeys({ metadata: { name: "a" } }), undefined);
  assert.equal(indexer.extractKeys(null), undefined);
  assert.equal(
    indexer.missingKey({ metadata: { name: "a" } }),
    "metadata.namespace",
  );
  assert.equal(
    indexer.missingKey({ metadata: { name: "a", namespace: "b" } }),
    undefined,
  );
});

Deno.test("Indexer keys follow indexBy order and take the first wildcard match", () => {
  const indexer = new Indexer({
    indexBy: [
      "metadata.name",
      "metadata.labels['app.kubernetes.io/name']",
      "spec.rules[*].host",
    ],
  });
  assert.equal(indexer.keyCount, 3);
  assert.deepEqual(
    indexer.extractKeys({
      metadata: { name: "a", labels: { "app.kubernetes.io/name": "shop" } },
      spec: { rules: [{ http: {} }, { host: "b.example" }, { host: "c" }] },
    }),
    ["a", "shop", "b.example"],
  );
});

Deno.test("Indexer validates indexBy and ignoreFields, naming option and index", () => {
  assert.throws(() => new Indexer({ indexBy: [] }), (err) => {
    assert(err instanceof IndexerOptionsError);
    assert.equal(err.option, "indexBy");
    assert.equal(err.index, undefined);
    assert.match(err.message, /indexBy/);
    return true;
  });
  assert.throws(
    () => new Indexer({} as unknown as { indexBy: string[] }),
    IndexerOptionsError,
  );
  assert.throws(
    () => new Indexer({ indexBy: ["metadata.name", "metadata..x"] }),
    (err) => {
      assert(err instanceof IndexerOptionsError);
      assert.equal(err.option, "indexBy");
      assert.equal(err.index, 1);
      assert(err.cause instanceof JsonPathError);
      assert.equal(
        err.message,
        'Option indexBy[1] is invalid: cannot parse JSONPath "metadata..x": expected a field name at position 9, found "."',
      );
      return true;
    },
  );
  assert.throws(
    () =>
      new Indexer({ indexBy: ["metadata.name"], ignoreFields: ["a", "b["] }),
    (err) => {
      assert(err instanceof IndexerOptionsError);
      assert.equal(err.option, "ignoreFields");
      assert.equal(err.index, 1);
      assert.match(
        err.message,
        /^Option ignoreFields\[1\] is invalid: .*"b\["/,
      );
      return true;
    },
  );
  assert.throws(
    () =>
      new Indexer({
        indexBy: ["metadata.name"],
        ignoreFields: "status" as unknown as string[],
      }),
    (err) =>
      err instanceof IndexerOptionsError && err.option === "ignoreFields",
  );
});

Deno.test("Indexer rejects ignoreFields that would remove index keys or identity", () => {
  const cases: [indexBy: string[], ignore: string, what: RegExp][] = [
    [["metadata.labels.app"], "metadata.labels", /indexBy\[0\]/],
    [["metadata.labels.app"], "metadata.labels[*]", /indexBy\[0\]/],
    [["spec.rules[*].host"], "spec.rules[0]", /indexBy\[0\]/],
    [["metadata.name", "spec.x"], "spec", /indexBy\[1\]/],
    [["spec.x"], "metadata", /metadata.name/],
    [["spec.x"], "metadata.namespace", /metadata.namespace/],
    [["spec.x"], "metadata[*]", /metadata.name/],
    [["spec.x"], "[*]", /./],
    [["spec.x"], "$.metadata.resourceVersion", /metadata.resourceVersion/],
  ];
  for (const [indexBy, ignore, what] of cases) {
    assert.throws(
      () => new Indexer({ indexBy, ignoreFields: ["status", ignore] }),
      (err) => {
        assert(err instanceof IndexerOptionsError, ignore);
        assert.equal(err.option, "ignoreFields");
        assert.equal(err.index, 1);
        assert.match(err.message, what);
        assert(err.message.includes(JSON.stringify(ignore)), err.message);
        return true;
      },
    );
  }
  // Siblings are fine.
  new Indexer({
    indexBy: ["metadata.labels.app", "spec.rules[*].host"],
    ignoreFields: [
      "metadata.labels.other",
      "spec.rules[*].http",
      "metadata.managedFields",
    ],
  });
});

Deno.test("filterFields returns the same object without ignoreFields", () => {
  const obj: KubeObject = { metadata: { name: "a" }, spec: {} };
  assert.equal(
    new Indexer({ indexBy: ["metadata.name"] }).filterFields(obj),
    obj,
  );
});

Deno.test("filterFields removes nested paths, sharing what it does not touch", () => {
  const indexer = new Indexer({
    indexBy: ["metadata.name"],
    ignoreFields: [
      "metadata.managedFields",
      "metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']",
      "status",
    ],
  });
  const input = deepFreeze({
    apiVersion: "v1",
    kind: "Service",
    metadata: {
      name: "web",
      managedFields: [{ manager: "kubectl" }],
      annotations: {
        "kubectl.kubernetes.io/last-applied-configuration": "{…}",
        keep: "me",
      },
      labels: { app: "web" },
    },
    spec: { ports: [{ port: 80 }] },
    status: { loadBalancer: {} },
  });
  const before = structuredClone(input);
  const out = indexer.filterFields(input);
  assert.deepEqual(out, {
    apiVersion: "v1",
    kind: "Service",
    metadata: {
      name: "web",
      annotations: { keep: "me" },
      labels: { app: "web" },
    },
    spec: { ports: [{ port: 80 }] },
  });
  assert.deepEqual(input, before);
  assert.equal(out.spec, input.spec);
  assert.equal(out.metadata.labels, input.metadata.labels);
  assert.notEqual(out.metadata, input.metadata);
  // Key order is kept.
  assert.deepEqual(Object.keys(out), [
    "apiVersion",
    "kind",
    "metadata",
    "spec",
  ]);
  assert.deepEqual(Object.keys(out.metadata), [
    "name",
    "annotations",
    "labels",
  ]);
});

Deno.test("filterFields is fine with missing paths and returns the input when nothing matched", () => {
  const indexer = new Indexer({
    indexBy: ["metadata.name"],
    ignoreFields: [
      "metadata.managedFields",
      "status.conditions[*].message",
      "spec.list[3]",
      "spec.scalar.deeper",
      "spec.array.key",
      "spec.map[0]",
    ],
  });
  const input = deepFreeze({
    metadata: { name: "a" },
    spec: { list: [1, 2], scalar: "s", array: [{ key: 1 }], map: { "0": 1 } },
  });
  assert.equal(indexer.filterFields(input), input);
  const nullStatus = deepFreeze({ metadata: { name: "a" }, status: null });
  assert.equal(indexer.filterFields(nullStatus), nullStatus);
});

Deno.test("filterFields removes [*] over arrays", () => {
  const indexer = new Indexer({
    indexBy: ["metadata.name"],
    ignoreFields: ["status.conditions[*].message", "spec.tolerations[*]"],
  });
  const input = deepFreeze({
    metadata: { name: "a" },
    spec: { tolerations: [{ key: "x" }, { key: "y" }], nodeName: "n" },
    status: {
      conditions: [
        { type: "Ready", message: "fine" },
        { type: "Scheduled" },
        { type: "Other", message: "m", reason: "r" },
      ],
    },
  });
  const before = structuredClone(input);
  const out = indexer.filterFields(input) as typeof input;
  assert.deepEqual(out, {
    metadata: { name: "a" },
    spec: { tolerations: [], nodeName: "n" },
    status: {
      conditions: [
        { type: "Ready" },
        { type: "Scheduled" },
        { type: "Other", reason: "r" },
      ],
    },
  });
  assert.deepEqual(input, before);
  assert.equal(out.metadata, input.metadata);
  // The untouched element is shared.
  assert.equal(out.status.conditions[1], input.status.conditions[1]);
});

Deno.test("filterFields removes [*] over map values", () => {
  const indexer = new Indexer({
    indexBy: ["metadata.name"],
    ignoreFields: ["data[*].secret", "metadata.annotations[*]"],
  });
  const input = deepFreeze({
    metadata: { name: "a", annotations: { a: "1", b: "2" } },
    data: { one: { secret: "s", keep: 1 }, two: "plain", three: { keep: 3 } },
  });
  const before = structuredClone(input);
  const out = indexer.filterFields(input) as typeof input;
  assert.deepEqual(out, {
    metadata: { name: "a", annotations: {} },
    data: { one: { keep: 1 }, two: "plain", three: { keep: 3 } },
  });
  assert.deepEqual(input, before);
  assert.equal(out.data.three, input.data.three);
});

Deno.test("filterFields removes array indexes against the original positions", () => {
  const indexer = new Indexer({
    indexBy: ["metadata.name"],
    ignoreFields: ["spec.items[0]", "spec.items[2]", "spec.items[1].x"],
  });
  const input = deepFreeze({
    metadata: { name: "a" },
    spec: { items: ["zero", { x: 1, y: 2 }, "two", "three"] },
  });
  assert.deepEqual(indexer.filterFields(input), {
    metadata: { name: "a" },
    spec: { items: [{ y: 2 }, "three"] },
  });
});

Deno.test("filterFields combines overlapping specific and wildcard paths", () => {
  const indexer = new Indexer({
    indexBy: ["metadata.name"],
    ignoreFields: [
      "spec.rules[0].a",
      "spec.rules[*].b",
      "spec.rules[1]",
      "spec.rules[1].c",
    ],
  });
  const input = deepFreeze({
    metadata: { name: "a" },
    spec: { rules: [{ a: 1, b: 2, c: 3 }, { a: 1 }, { b: 2, c: 3 }] },
  });
  assert.deepEqual(indexer.filterFields(input), {
    metadata: { name: "a" },
    spec: { rules: [{ c: 3 }, { c: 3 }] },
  });
});

Deno.test("filterFields keeps an own __proto__ key as data", () => {
  const indexer = new Indexer({
    indexBy: ["metadata.name"],
    ignoreFields: ["spec.drop"],
  });
  const input = JSON.parse(
    '{"metadata":{"name":"a"},"spec":{"__proto__":{"polluted":true},"drop":1}}',
  );
  const out = indexer.filterFields(input) as KubeObject & {
    spec: Record<string, unknown>;
  };
  assert.equal(Object.getPrototypeOf(out.spec), Object.prototype);
  assert.deepEqual(Object.keys(out.spec), ["__proto__"]);
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
});

Deno.test("process filters and indexes", () => {
  const indexer = new Indexer({
    indexBy: ["metadata.namespace", "metadata.name"],
    ignoreFields: ["metadata.managedFields"],
  });
  const input = deepFreeze({
    metadata: { namespace: "ns", name: "a", managedFields: [] },
    spec: { x: 1 },
  });
  const done = indexer.process(input);
  assert.deepEqual(done, {
    obj: { metadata: { namespace: "ns", name: "a" }, spec: { x: 1 } },
    keys: ["ns", "a"],
  });
  assert.equal(done?.obj.spec, input.spec);
  assert.equal(indexer.process({ metadata: { name: "a" } }), undefined);
});

Deno.test("process throws InvalidObjectError naming what was wrong", () => {
  const indexer = new Indexer({ indexBy: ["metadata.name"] });
  const cases: [value: unknown, message: string][] = [
    [null, "Expected a Kubernetes object, got null"],
    [undefined, "Expected a Kubernetes object, got undefined"],
    ["pod", "Expected a Kubernetes object, got a string"],
    [[], "Expected a Kubernetes object, got an array"],
    [{ kind: "Pod" }, "Kubernetes object of kind Pod has no metadata"],
    [{}, "Kubernetes object has no metadata"],
    [
      { metadata: "x" },
      "Kubernetes object has invalid metadata: expected an object, got a string",
    ],
    [
      { metadata: null },
      "Kubernetes object has invalid metadata: expected an object, got null",
    ],
    [{ metadata: {} }, "Kubernetes object has no metadata.name"],
    [
      { kind: "Pod", metadata: { name: "" } },
      "Kubernetes object of kind Pod has invalid metadata.name: expected a non-empty string, got an empty string",
    ],
    [
      { metadata: { name: 7 } },
      "Kubernetes object has invalid metadata.name: expected a non-empty string, got a number",
    ],
    [
      { metadata: { name: "a", namespace: 7 } },
      "Kubernetes object has invalid metadata.namespace: expected a string, got a number",
    ],
  ];
  for (const [value, message] of cases) {
    assert.throws(() => indexer.process(value), (err) => {
      assert(err instanceof InvalidObjectError);
      assert.equal(err.name, "InvalidObjectError");
      assert.equal(err.message, message);
      return true;
    });
  }
});
