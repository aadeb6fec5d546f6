import assert from "node:assert/strict";
import { JsonPath, JsonPathError } from "./jsonpath.ts";

const pod = {
  metadata: {
    name: "web-1",
    namespace: "shop",
    labels: { "app.kubernetes.io/name": "web", "tier": "front" },
    annotations: { 'say "hi"': "quoted", "it's": "apostrophe" },
  },
  spec: {
    containers: [
      { name: "app", ports: [{ containerPort: 8080 }, { name: "metrics" }] },
      { name: "sidecar", ports: [{ containerPort: 9090 }] },
    ],
    nodeName: null,
  },
};

Deno.test("JsonPath reads dotted names with or without a leading dot or $", () => {
  for (const expr of ["metadata.name", ".metadata.name", "$.metadata.name"]) {
    assert.equal(new JsonPath(expr).get(pod), "web-1", expr);
  }
});

Deno.test("JsonPath accepts kubectl's {…} wrapper", () => {
  for (
    const expr of [
      "{.metadata.name}",
      "{metadata.name}",
      "{$.metadata.name}",
      "{.metadata['name']}",
    ]
  ) {
    assert.equal(new JsonPath(expr).get(pod), "web-1", expr);
  }
});

Deno.test("JsonPath reads single- and double-quoted keys with dots, slashes and escapes", () => {
  assert.equal(
    new JsonPath("metadata.labels['app.kubernetes.io/name']").get(pod),
    "web",
  );
  assert.equal(
    new JsonPath('metadata.labels["app.kubernetes.io/name"]').get(pod),
    "web",
  );
  assert.equal(
    new JsonPath(`metadata.annotations['say "hi"']`).get(pod),
    "quoted",
  );
  assert.equal(
    new JsonPath("metadata.annotations['it\\'s']").get(pod),
    "apostrophe",
  );
  assert.equal(new JsonPath("['metadata'].name").get(pod), "web-1");
  assert.equal(new JsonPath("$['metadata']['name']").get(pod), "web-1");
  assert.equal(new JsonPath("a['']").get({ a: { "": 1 } }), 1);
});

Deno.test("JsonPath reads backslash-escaped dotted names as kubectl does", () => {
  assert.equal(
    new JsonPath("metadata.labels.app\\.kubernetes\\.io/name").get(pod),
    "web",
  );
  assert.deepEqual(
    new JsonPath("a\\.b.c").segments,
    [{ kind: "key", key: "a.b" }, { kind: "key", key: "c" }],
  );
});

Deno.test("JsonPath reads array indexes only in arrays", () => {
  assert.equal(new JsonPath("spec.containers[1].name").get(pod), "sidecar");
  assert.equal(
    new JsonPath("spec.containers[0].ports[0].containerPort").get(pod),
    8080,
  );
  assert.equal(new JsonPath("spec.containers[2]").get(pod), undefined);
  assert.equal(new JsonPath("a[0]").get({ a: { "0": "map" } }), undefined);
  assert.equal(new JsonPath("a.length").get({ a: [1, 2] }), undefined);
  assert.equal(new JsonPath("a['0']").get({ a: { "0": "map" } }), "map");
});

Deno.test("JsonPath returns undefined for missing paths and null for null", () => {
  assert.equal(new JsonPath("spec.missing.deeper").get(pod), undefined);
  assert.equal(new JsonPath("metadata.name.deeper").get(pod), undefined);
  assert.equal(new JsonPath("spec.nodeName").get(pod), null);
  assert.equal(new JsonPath("a").get(null), undefined);
  assert.equal(new JsonPath("a").get("string"), undefined);
  assert.deepEqual(new JsonPath("spec.missing").getAll(pod), []);
  assert.deepEqual(new JsonPath("metadata.name").getAll(pod), ["web-1"]);
});

Deno.test("JsonPath ignores inherited properties", () => {
  for (
    const key of ["constructor", "toString", "__proto__", "hasOwnProperty"]
  ) {
    assert.equal(new JsonPath(`metadata.${key}`).get(pod), undefined, key);
    assert.equal(new JsonPath(`metadata[*].${key}`).get(pod), undefined, key);
  }
  const own = JSON.parse('{"constructor": "mine", "__proto__": "own"}');
  assert.equal(new JsonPath("constructor").get(own), "mine");
  assert.equal(new JsonPath("['__proto__']").get(own), "own");
});

Deno.test("JsonPath [*] walks arrays and map values", () => {
  const names = new JsonPath("spec.containers[*].name");
  assert.equal(names.hasWildcard, true);
  assert.deepEqual(names.getAll(pod), ["app", "sidecar"]);
  assert.equal(names.get(pod), "app");
  assert.deepEqual(
    new JsonPath("spec.containers[*].ports[*].containerPort").getAll(pod),
    [8080, 9090],
  );
  assert.deepEqual(new JsonPath("metadata.labels[*]").getAll(pod), [
    "web",
    "front",
  ]);
  assert.deepEqual(new JsonPath("metadata.labels.*").getAll(pod), [
    "web",
    "front",
  ]);
  assert.deepEqual(new JsonPath("metadata.name[*]").getAll(pod), []);
});

Deno.test("JsonPath get with [*] returns the first branch that matches", () => {
  const path = new JsonPath("spec.containers[*].ports[*].name");
  assert.equal(path.get(pod), "metrics");
  assert.equal(new JsonPath("spec.containers[*].image").get(pod), undefined);
});

Deno.test("JsonPath exposes its segments and expression", () => {
  const path = new JsonPath("{.a['b.c'][2][*]}");
  assert.deepEqual(path.segments, [
    { kind: "key", key: "a" },
    { kind: "key", key: "b.c" },
    { kind: "index", index: 2 },
    { kind: "wildcard" },
  ]);
  assert.equal(path.expression, "{.a['b.c'][2][*]}");
  assert.equal(path.toString(), "{.a['b.c'][2][*]}");
  assert.equal(new JsonPath("a.b").hasWildcard, false);
});

const invalid: [expr: string, position: number, expected: string][] = [
  ["", 0, "a field name"],
  [".", 1, "a field name"],
  ["$", 1, "a field name"],
  ["{}", 1, "a field name"],
  ["{.}", 2, "a field name"],
  ["a..b", 2, "a field name"],
  ["a.", 2, "a field name"],
  [".a.b.", 5, "a field name"],
  ["a.[0]", 2, "a field name"],
  ["a[0", 3, '"]"'],
  ["a[0]]", 4, '".", "[" or the end of the expression'],
  ["a]", 1, '".", "[" or the end of the expression'],
  ["a[]", 2, 'a quoted key, an array index or "*"'],
  ["a[b]", 2, 'a quoted key, an array index or "*"'],
  ["a[-1]", 2, "a non-negative array index"],
  ["a[01]", 2, "an array index without leading zeros"],
  ["a[1x]", 3, '"]"'],
  ["a[99999999999999999999]", 2, "a smaller array index"],
  ["a['b", 4, "a closing ' for the quote at position 2"],
  ["a[\"b']", 6, 'a closing " for the quote at position 2'],
  ["a['b'", 5, '"]"'],
  ["a['b'x]", 5, '"]"'],
  ["a[0]b", 4, '".", "[" or the end of the expression'],
  ["a b", 1, '".", "[" or the end of the expression'],
  ["{.a.b", 5, '"}"'],
  ["{.a}.b", 4, 'the end of the expression after "}"'],
  ["{.a} ", 4, 'the end of the expression after "}"'],
  ["{.a b}", 3, '".", "[" or "}"'],
  ["$a", 1, '"." or "[" after "$"'],
  ["a..*", 2, "a field name"],
  ["*", 0, "a field name"],
  ["a\\", 2, 'a character after "\\"'],
  ["a.b=c", 3, '".", "[" or the end of the expression'],
];

for (const [expr, position, expected] of invalid) {
  Deno.test(`JsonPath rejects ${JSON.stringify(expr)} at position ${position}`, () => {
    assert.throws(() => new JsonPath(expr), (err) => {
      assert(err instanceof JsonPathError);
      assert.equal(err.name, "JsonPathError");
      assert.equal(err.expression, expr);
      assert.equal(err.position, position);
      assert.equal(err.expected, expected);
      assert(
        err.message.includes(JSON.stringify(expr)),
        `message names the expression: ${err.message}`,
      );
      assert(
        err.message.includes(`at position ${position}`),
        `message names the position: ${err.message}`,
      );
      assert(err.message.includes(expected), err.message);
      return true;
    });
  });
}

Deno.test("JsonPathError message says what was found", () => {
  assert.throws(
    () => new JsonPath("a..b"),
    {
      message:
        'Cannot parse JSONPath "a..b": expected a field name at position 2, found "."',
    },
  );
  assert.throws(
    () => new JsonPath("a."),
    {
      message:
        'Cannot parse JSONPath "a.": expected a field name at position 2, found the end of the expression',
    },
  );
});

Deno.test("JsonPath rejects a non-string expression", () => {
  assert.throws(
    () => new JsonPath(undefined as unknown as string),
    JsonPathError,
  );
});
