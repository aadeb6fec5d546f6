import assert from "node:assert/strict";
import { KeyIndex, keyIndexCounters, type Slot } from "./key_index.ts";
import { StoreKeyError } from "./errors.ts";

const names = (slots: readonly Slot<unknown>[]) =>
  slots.map((s) => `${s.namespace}/${s.name}`);

function visitsOf(fn: () => unknown): number {
  const before = keyIndexCounters.visited;
  fn();
  return keyIndexCounters.visited - before;
}

Deno.test("KeyIndex keeps several identities under the same keys", () => {
  const index = new KeyIndex<number>();
  index.set("ns", "b", 1, ["x", "y"]);
  index.set("ns", "a", 2, ["x", "y"]);
  index.set("ns", "c", 3, ["x", "z"]);
  assert.deepEqual(names(index.select(["x", "y"])), ["ns/a", "ns/b"]);
  assert.deepEqual(names(index.select(["x"])), ["ns/a", "ns/b", "ns/c"]);
  assert.equal(index.size, 3);
  assert.equal(index.keyCount, 2);
});

Deno.test("KeyIndex moves an identity whose keys changed and prunes the old path", () => {
  const index = new KeyIndex<string>();
  index.set("ns", "a", "v1", ["old", "k"]);
  index.set("ns", "a", "v2", ["new", "k"]);
  assert.deepEqual(index.select(["old"]), []);
  assert.deepEqual(index.select(["new", "k"]).map((s) => s.value), ["v2"]);
  // The pruned branch costs nothing to query: the walk stops at once.
  assert.equal(visitsOf(() => index.select(["old", "k"])), 1);
});

Deno.test("KeyIndex replaces a value in place and keeps cached answers valid", () => {
  const index = new KeyIndex<string>();
  index.set("ns", "a", "v1", ["k"]);
  index.set("ns", "b", "v1", ["k"]);
  assert.deepEqual(index.select(["k"]).map((s) => s.value), ["v1", "v1"]);
  index.set("ns", "a", "v2", ["k"]);
  assert.deepEqual(index.select(["k"]).map((s) => s.value), ["v2", "v1"]);
  assert.deepEqual(index.select([]).map((s) => s.value), ["v2", "v1"]);
});

Deno.test("KeyIndex keeps answers sorted across swap-removals", () => {
  const index = new KeyIndex<number>();
  const all = ["a", "b", "c", "d", "e", "f"];
  for (const n of all) index.set("ns", n, 0, ["k"]);
  assert.deepEqual(names(index.select(["k"])), all.map((n) => `ns/${n}`));
  index.delete("ns", "b"); // "f" takes its place in the leaf
  index.delete("ns", "f");
  index.set("ns", "b", 0, ["k"]);
  assert.deepEqual(names(index.select(["k"])), [
    "ns/a",
    "ns/b",
    "ns/c",
    "ns/d",
    "ns/e",
  ]);
});

Deno.test("KeyIndex orders by namespace before name", () => {
  const index = new KeyIndex<number>();
  // "a-b" sorts before "a/…" as a string; the namespace "a" must still come first.
  index.set("a-b", "x", 0, ["k"]);
  index.set("a", "z", 0, ["k"]);
  index.set("", "cluster", 0, ["k"]);
  assert.deepEqual(names(index.select(["k"])), ["/cluster", "a/z", "a-b/x"]);
});

Deno.test("KeyIndex rejects bad keys without changing anything", () => {
  const index = new KeyIndex<number>();
  assert.throws(() => index.set("ns", "a", 1, []), StoreKeyError);
  assert.equal(index.keyCount, undefined);
  index.set("ns", "a", 1, ["x", "y"]);
  assert.throws(
    () => index.set("ns", "a", 2, ["x"]),
    (e: unknown) => e instanceof StoreKeyError && e.expected === 2,
  );
  assert.throws(
    () => index.set("ns", "b", 1, ["x", 3 as unknown as string]),
    /Index key 1 must be a string but is number/,
  );
  assert.throws(() => index.select(["x", "y", "z"]), StoreKeyError);
  assert.equal(index.lookup("ns", "a")?.value, 1);
  assert.equal(index.size, 1);
  assert.throws(() => new KeyIndex(0), StoreKeyError);
});

Deno.test("KeyIndex query cost grows with the answer, not with the index", () => {
  const costFor = (total: number) => {
    const index = new KeyIndex<number>();
    // Ten objects in "target"; everything else spread over other namespaces.
    for (let i = 0; i < 10; i++) {
      index.set("target", `o${i}`, i, ["target", `l${i % 3}`]);
    }
    for (let i = 0; i < total; i++) {
      index.set(`ns${i % 100}`, `o${i}`, i, [`ns${i % 100}`, `l${i % 7}`]);
    }
    const prefix = visitsOf(() => index.select(["target"]));
    const exact = visitsOf(() => index.select(["target", "l0"]));
    const miss = visitsOf(() => index.select(["absent"]));
    return { prefix, exact, miss };
  };
  const small = costFor(100);
  const large = costFor(20_000);
  assert.deepEqual(large, small);
  assert.ok(small.prefix > 0, "the counter must move");
});

Deno.test("KeyIndex answers repeated queries from its cache", () => {
  const index = new KeyIndex<number>();
  for (let i = 0; i < 50; i++) index.set("ns", `o${i}`, i, [`k${i % 5}`]);
  const first = visitsOf(() => index.select([]));
  const again = visitsOf(() => index.select([]));
  assert.ok(first >= 50);
  assert.equal(again, 0);
  index.delete("ns", "o3");
  assert.equal(index.select([]).length, 49);
});

Deno.test("KeyIndex clear keeps the key count", () => {
  const index = new KeyIndex<number>();
  index.set("ns", "a", 1, ["x"]);
  index.clear();
  assert.equal(index.size, 0);
  assert.deepEqual(index.select([]), []);
  assert.throws(() => index.set("ns", "a", 1, ["x", "y"]), StoreKeyError);
});

Deno.test("KeyIndex slots may be deleted while iterating", () => {
  const index = new KeyIndex<number>();
  for (const n of ["a", "b", "c"]) index.set("ns", n, 0, ["k"]);
  for (const slot of index.slots()) index.delete(slot.namespace, slot.name);
  assert.equal(index.size, 0);
  assert.deepEqual(index.select(["k"]), []);
});
