import assert from "node:assert/strict";
import { KeyIndex, keyIndexCounters, type Slot } from "./_key_index.ts";
import { StoreKeyError } from "./errors.ts";
import { SeededRandom } from "../testing/_seeded_random.ts";

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

Deno.test("KeyIndex gives a key path a shared leaf when a second identity arrives, and back", () => {
  const index = new KeyIndex<number>();
  index.set("ns", "b", 1, ["x", "y"]);
  assert.deepEqual(names(index.select(["x", "y"])), ["ns/b"]);
  index.set("ns", "a", 2, ["x", "y"]);
  assert.deepEqual(names(index.select(["x", "y"])), ["ns/a", "ns/b"]);
  index.delete("ns", "b");
  assert.deepEqual(names(index.select(["x", "y"])), ["ns/a"]);
  index.set("ns", "c", 3, ["x", "y"]);
  index.set("ns", "a", 4, ["x", "z"]); // moves out of the shared leaf
  assert.deepEqual(names(index.select(["x"])), ["ns/a", "ns/c"]);
  assert.deepEqual(index.select(["x", "z"]).map((s) => s.value), [4]);
  index.delete("ns", "c");
  index.delete("ns", "a");
  assert.deepEqual(index.select([]), []);
  assert.equal(visitsOf(() => index.select(["x", "y"])), 1, "pruned");
});

Deno.test("KeyIndex with one key holds identities at the top level", () => {
  const index = new KeyIndex<number>(1);
  index.set("ns", "b", 1, ["k1"]);
  index.set("ns", "a", 2, ["k2"]);
  index.set("ns", "c", 3, ["k1"]);
  assert.deepEqual(names(index.select([])), ["ns/a", "ns/b", "ns/c"]);
  assert.deepEqual(names(index.select(["k1"])), ["ns/b", "ns/c"]);
  assert.deepEqual(names(index.select(["k2"])), ["ns/a"]);
  index.set("ns", "a", 4, ["k1"]);
  assert.deepEqual(names(index.select(["k1"])), ["ns/a", "ns/b", "ns/c"]);
  assert.deepEqual(index.select(["k2"]), []);
});

Deno.test("KeyIndex slots carry their identity key", () => {
  const index = new KeyIndex<number>();
  const slot = index.set("ns", "a", 1, ["k"]);
  assert.equal(slot.id, "ns\0a");
  assert.equal(index.lookup("", "a"), undefined);
  assert.equal(index.set("", "a", 2, ["k"]).id, "\0a");
});

Deno.test("KeyIndex slots lists every identity once, even when namespaces empty while iterating", () => {
  const index = new KeyIndex<number>();
  index.set("ns1", "a", 0, ["k"]);
  index.set("ns2", "b", 0, ["k"]);
  index.set("ns1", "c", 0, ["k"]);
  index.set("", "d", 0, ["k"]);
  const seen: string[] = [];
  for (const slot of index.slots()) {
    seen.push(`${slot.namespace}/${slot.name}`);
    if (slot.namespace !== "ns1") index.delete(slot.namespace, slot.name);
  }
  assert.deepEqual(seen.sort(), ["/d", "ns1/a", "ns1/c", "ns2/b"]);
  assert.equal(index.size, 2);
  assert.deepEqual(names(index.select([])), ["ns1/a", "ns1/c"]);
});

Deno.test("KeyIndex answers like a plain list under random writes", () => {
  // A deterministic walk over a small key space, so that paths are shared,
  // left and refilled; every answer is checked against a filtered list.
  const rng = new SeededRandom(42);
  const random = (n: number) => rng.int(0, n - 1);
  const index = new KeyIndex<number>();
  const model = new Map<
    string,
    { ns: string; name: string; keys: string[]; value: number }
  >();
  const matching = (keys: string[]) =>
    [...model.values()]
      .filter((e) => keys.every((k, i) => e.keys[i] === k))
      .sort((a, b) =>
        a.ns !== b.ns
          ? (a.ns < b.ns ? -1 : 1)
          : a.name < b.name
          ? -1
          : a.name > b.name
          ? 1
          : 0
      );
  const expect = (keys: string[]) =>
    matching(keys).map((e) => `${e.ns}/${e.name}`);
  const expectValues = (keys: string[]) => matching(keys).map((e) => e.value);
  for (let step = 0; step < 3000; step++) {
    const ns = ["", "a", "a-b", "b"][random(4)];
    const name = `o${random(12)}`;
    if (random(3) === 0) {
      assert.equal(
        index.delete(ns, name) !== undefined,
        model.delete(`${ns}/${name}`),
      );
    } else {
      // Often the same keys again: an update of the value in place.
      const keys = random(2) === 0 && model.has(`${ns}/${name}`)
        ? model.get(`${ns}/${name}`)!.keys
        : [`k${random(3)}`, `l${random(3)}`];
      index.set(ns, name, step, keys);
      model.set(`${ns}/${name}`, { ns, name, keys, value: step });
    }
    const k1 = `k${random(3)}`, k2 = `l${random(3)}`;
    assert.deepEqual(names(index.select([k1, k2])), expect([k1, k2]));
    assert.deepEqual(names(index.select([k1])), expect([k1]));
    // The value arrays, asked for twice: built, then copied.
    for (let again = 0; again < 2; again++) {
      assert.deepEqual(index.selectValues([k1, k2]), expectValues([k1, k2]));
      assert.deepEqual(index.selectValues([k1]), expectValues([k1]));
    }
    if (step % 10 === 0) {
      assert.deepEqual(names(index.select([])), expect([]));
      assert.deepEqual(index.selectValues([]), expectValues([]));
    }
    assert.equal(index.size, model.size);
  }
});

Deno.test("KeyIndex.selectValues answers a new array each time, and a value updated in place", () => {
  const index = new KeyIndex<string>();
  index.set("ns", "a", "a1", ["ns", "a"]);
  index.set("ns", "b", "b1", ["ns", "b"]);
  const first = index.selectValues(["ns"]);
  assert.deepEqual(first, ["a1", "b1"]);
  first.push("mine");
  first[0] = "changed";
  assert.deepEqual(index.selectValues(["ns"]), ["a1", "b1"]);
  assert.notEqual(index.selectValues(["ns"]), index.selectValues(["ns"]));
  // An update in place, same keys: the branch's and the root's arrays go.
  index.set("ns", "b", "b2", ["ns", "b"]);
  assert.deepEqual(index.selectValues(["ns"]), ["a1", "b2"]);
  assert.deepEqual(index.selectValues([]), ["a1", "b2"]);
  index.set("ns", "a", "a2", ["ns", "a"]);
  assert.deepEqual(index.selectValues([]), ["a2", "b2"]);
  assert.deepEqual(index.selectValues(["ns", "a"]), ["a2"]);
  assert.deepEqual(index.selectValues(["none"]), []);
  // On a shared leaf too.
  const leaf = new KeyIndex<string>();
  leaf.set("ns", "a", "a1", ["k"]);
  leaf.set("ns", "b", "b1", ["k"]);
  assert.deepEqual(leaf.selectValues(["k"]), ["a1", "b1"]);
  leaf.set("ns", "a", "a2", ["k"]);
  assert.deepEqual(leaf.selectValues(["k"]), ["a2", "b1"]);
  leaf.delete("ns", "a");
  assert.deepEqual(leaf.selectValues(["k"]), ["b1"]);
});
