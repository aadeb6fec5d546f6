import assert from "node:assert/strict";
import type { KubeObject } from "../types.ts";
import { MemoryStore, memoryStore } from "./memory_store.ts";
import { StoreKeyError, StoreObjectError } from "./errors.ts";
import { keyIndexCounters } from "./_key_index.ts";
import { SeededRandom } from "../testing/_seeded_random.ts";

function obj(namespace: string, name: string, rv = "1"): KubeObject {
  return { metadata: { namespace, name, resourceVersion: rv } };
}

const ids = (objs: KubeObject[]) =>
  objs.map((o) => `${o.metadata.namespace ?? ""}/${o.metadata.name}`);

Deno.test("MemoryStore add, update and get with shared keys", () => {
  const store = new MemoryStore();
  store.add(obj("web", "a"), ["web", "haproxy"]);
  store.add(obj("web", "b"), ["web", "haproxy"]);
  store.add(obj("web", "c"), ["web", "nginx"]);
  assert.deepEqual(ids(store.get("web", "haproxy")), ["web/a", "web/b"]);
  assert.equal(store.size, 3);

  const b2 = obj("web", "b", "2");
  store.update(b2, ["web", "haproxy"]);
  assert.equal(store.get("web", "haproxy")[1], b2);
  assert.equal(store.resourceVersionOf("web", "b"), "2");
  assert.equal(store.size, 3);
});

Deno.test("MemoryStore add of a known identity replaces it", () => {
  const store = new MemoryStore();
  store.add(obj("ns", "a", "1"), ["k"]);
  store.add(obj("ns", "a", "2"), ["k"]);
  assert.equal(store.size, 1);
  assert.deepEqual(store.get("k").map((o) => o.metadata.resourceVersion), [
    "2",
  ]);
});

Deno.test("MemoryStore update of an unknown identity adds it", () => {
  const store = new MemoryStore();
  store.update(obj("ns", "a"), ["k"]);
  assert.equal(store.size, 1);
  assert.deepEqual(ids(store.get("k")), ["ns/a"]);
});

Deno.test("MemoryStore update with new keys moves the object", () => {
  const store = new MemoryStore();
  store.add(obj("ns", "a"), ["ns", "blue"]);
  store.add(obj("ns", "b"), ["ns", "blue"]);
  store.update(obj("ns", "a", "2"), ["ns", "green"]);
  assert.deepEqual(ids(store.get("ns", "blue")), ["ns/b"]);
  assert.deepEqual(ids(store.get("ns", "green")), ["ns/a"]);
  assert.deepEqual(ids(store.get("ns")), ["ns/a", "ns/b"]);
  assert.equal(store.size, 2);
});

Deno.test("MemoryStore delete removes exactly one object, not its key-mates", () => {
  const store = new MemoryStore();
  store.add(obj("ns", "a"), ["shared"]);
  store.add(obj("ns", "b"), ["shared"]);
  store.add(obj("ns", "c"), ["shared"]);
  assert.equal(store.delete("ns", "b"), true);
  assert.deepEqual(ids(store.get("shared")), ["ns/a", "ns/c"]);
  assert.equal(store.delete("ns", "b"), false);
  assert.equal(store.resourceVersionOf("ns", "b"), undefined);
  assert.equal(store.size, 2);
});

Deno.test("MemoryStore prefix and zero-key get", () => {
  const store = new MemoryStore();
  store.add(obj("a", "x"), ["a", "l1", "p"]);
  store.add(obj("a", "y"), ["a", "l2", "p"]);
  store.add(obj("b", "z"), ["b", "l1", "p"]);
  assert.deepEqual(ids(store.get("a")), ["a/x", "a/y"]);
  assert.deepEqual(ids(store.get("a", "l2")), ["a/y"]);
  assert.deepEqual(ids(store.get("a", "l1", "p")), ["a/x"]);
  assert.deepEqual(ids(store.get()), ["a/x", "a/y", "b/z"]);
  assert.deepEqual(store.get("c"), []);
  assert.deepEqual(store.get("a", "l3"), []);
});

Deno.test("MemoryStore orders answers by namespace, then name, whatever the insert order", () => {
  const store = new MemoryStore();
  const expected: string[] = [];
  for (const ns of ["", "a", "a-b", "b"]) {
    for (const name of ["n1", "n10", "n2", "x"]) expected.push(`${ns}/${name}`);
  }
  // A seeded shuffle keeps the test deterministic.
  const random = new SeededRandom(7);
  const shuffled = [...expected];
  for (let i = shuffled.length - 1; i > 0; i--) {
    const j = random.int(0, i);
    [shuffled[i], shuffled[j]] = [shuffled[j], shuffled[i]];
  }
  assert.notDeepEqual(shuffled, expected);
  for (const id of shuffled) {
    const [ns, name] = id.split("/");
    // Keys deliberately unrelated to the identity.
    store.add(
      ns === "" ? { metadata: { name } } : obj(ns, name),
      ["k", name.length % 2 ? "odd" : "even"],
    );
  }
  assert.deepEqual(ids(store.list()), expected);
  assert.deepEqual(ids(store.get("k")), expected);
  assert.deepEqual(
    ids(store.get("k", "odd")),
    expected.filter((id) => id.split("/")[1].length % 2),
  );
});

Deno.test('MemoryStore cluster-scoped objects have the namespace ""', () => {
  const store = new MemoryStore();
  store.add({ metadata: { name: "node-1", resourceVersion: "5" } }, ["node-1"]);
  assert.equal(store.resourceVersionOf("", "node-1"), "5");
  assert.deepEqual([...store.identities()], [["", "node-1"]]);
  assert.equal(store.delete("", "node-1"), true);
});

Deno.test("MemoryStore modificationCount counts every write that changes the store", () => {
  const store = new MemoryStore();
  assert.equal(store.modificationCount, 0);
  store.add(obj("ns", "a"), ["k"]);
  store.update(obj("ns", "a", "2"), ["k"]);
  store.add(obj("ns", "b"), ["k"]);
  assert.equal(store.modificationCount, 3);
  store.delete("ns", "missing");
  assert.equal(store.modificationCount, 3);
  store.delete("ns", "a");
  assert.equal(store.modificationCount, 4);
  store.clear();
  assert.equal(store.modificationCount, 5);
  store.clear(); // already empty: nothing changed
  assert.equal(store.modificationCount, 5);
  assert.throws(() => store.add(obj("ns", "c"), []));
  assert.equal(store.modificationCount, 5);
});

Deno.test("MemoryStore clear empties everything but keeps the key count", () => {
  const store = new MemoryStore();
  store.add(obj("ns", "a"), ["x", "y"]);
  store.add(obj("ns", "b"), ["x", "z"]);
  store.clear();
  assert.equal(store.size, 0);
  assert.deepEqual(store.list(), []);
  assert.deepEqual(store.get("x"), []);
  assert.deepEqual([...store.identities()], []);
  assert.throws(() => store.add(obj("ns", "a"), ["x"]), StoreKeyError);
  store.add(obj("ns", "a"), ["x", "y"]);
  assert.deepEqual(ids(store.get("x", "y")), ["ns/a"]);
});

Deno.test("MemoryStore key-count errors leave the store as it was", () => {
  const store = new MemoryStore();
  assert.throws(
    () => store.add(obj("ns", "a"), []),
    (e: unknown) => e instanceof StoreKeyError && /non-empty/.test(e.message),
  );
  store.add(obj("ns", "a"), ["x", "y"]);
  assert.throws(
    () => store.add(obj("ns", "b"), ["x"]),
    (e: unknown) =>
      e instanceof StoreKeyError && e.expected === 2 && e.actual === 1 &&
      e.message === "The store is indexed by 2 keys but 1 were given",
  );
  // A bad update must not lose the object it was meant to replace.
  assert.throws(
    () => store.update(obj("ns", "a", "2"), ["x", "y", "z"]),
    StoreKeyError,
  );
  assert.deepEqual(ids(store.get("x", "y")), ["ns/a"]);
  assert.equal(store.resourceVersionOf("ns", "a"), "1");
  assert.throws(
    () => store.get("x", "y", "z"),
    (e: unknown) =>
      e instanceof StoreKeyError &&
      e.message === "The store is indexed by 2 keys but get() was given 3",
  );
  assert.equal(store.size, 1);
});

Deno.test("MemoryStore keyCount option checks get before the first write", () => {
  const store = new MemoryStore({ keyCount: 1 });
  assert.deepEqual(store.get("x"), []);
  // @ts-expect-error: a literal keyCount types the key count too
  assert.throws(() => store.get("x", "y"), StoreKeyError);
  assert.throws(() => store.add(obj("ns", "a"), ["x", "y"]), StoreKeyError);
  assert.throws(() => new MemoryStore({ keyCount: 0 }), StoreKeyError);
});

Deno.test("MemoryStore rejects objects without an identity", () => {
  const store = new MemoryStore();
  store.add(obj("ns", "a"), ["k"]);
  const bad = [
    {} as KubeObject,
    null as unknown as KubeObject,
    { metadata: { namespace: "ns" } } as KubeObject,
    { metadata: { namespace: "ns", name: "" } } as KubeObject,
    { metadata: { namespace: 5, name: "x" } } as unknown as KubeObject,
    { metadata: { namespace: "ns\0x", name: "y" } } as KubeObject,
  ];
  for (const o of bad) {
    assert.throws(() => store.add(o, ["k"]), StoreObjectError);
  }
  assert.equal(store.size, 1);
  assert.equal(store.modificationCount, 1);
});

Deno.test("MemoryStore returns the stored objects themselves in fresh arrays", () => {
  const store = new MemoryStore();
  const a = obj("ns", "a");
  store.add(a, ["k"]);
  const first = store.get("k");
  assert.equal(first[0], a);
  first.pop();
  assert.equal(store.get("k").length, 1);
  assert.notEqual(store.list(), store.list());
});

Deno.test("MemoryStore freeze option deep-freezes stored objects", () => {
  const store = new MemoryStore({ freeze: true });
  const o: KubeObject = {
    metadata: { namespace: "ns", name: "a", labels: { app: "web" } },
  };
  store.add(o, ["k"]);
  assert.throws(() => {
    (store.get("k")[0].metadata.labels as Record<string, string>).app = "x";
  }, TypeError);
  assert.equal(Object.isFrozen(o.metadata), true);
  const unfrozen = new MemoryStore();
  const p = obj("ns", "b");
  unfrozen.add(p, ["k"]);
  assert.equal(Object.isFrozen(p), false);
});

Deno.test("MemoryStore identities may be deleted while iterating (relist diff)", () => {
  const store = new MemoryStore();
  for (const n of ["a", "b", "c", "d"]) store.add(obj("ns", n), ["k"]);
  const keep = new Set(["b", "d"]);
  for (const [ns, name] of store.identities()) {
    if (!keep.has(name)) store.delete(ns, name);
  }
  assert.deepEqual(ids(store.list()), ["ns/b", "ns/d"]);
});

Deno.test("MemoryStore prefix get cost grows with the answer, not with the store", () => {
  // Counts trie nodes entered and entries gathered or sorted; no clocks.
  const cost = (total: number, answer: number) => {
    const store = new MemoryStore();
    for (let i = 0; i < answer; i++) {
      store.add(obj("target", `o${i}`), ["target", `l${i % 4}`]);
    }
    for (let i = 0; i < total; i++) {
      store.add(obj(`ns${i % 50}`, `o${i}`), [`ns${i % 50}`, `l${i % 4}`]);
    }
    const before = keyIndexCounters.visited;
    const got = store.get("target");
    assert.equal(got.length, answer);
    return keyIndexCounters.visited - before;
  };
  const base = cost(1_000, 20);
  assert.ok(base > 0);
  assert.equal(cost(50_000, 20), base, "a 50x larger store must cost the same");
  assert.ok(cost(1_000, 200) > base * 5, "a 10x larger answer must cost more");
});

Deno.test("memoryStore is one shareable factory of memory stores with the watcher's key count", () => {
  const factory = memoryStore();
  assert.equal(memoryStore(), factory);
  assert.deepEqual([factory.name, factory.shareable], ["memory", true]);
  assert.ok(Object.isFrozen(factory));
  const store = factory.create<KubeObject>({ keyCount: 2 } as never);
  assert.ok(store instanceof MemoryStore);
  assert.throws(() => store.add(obj("shop", "a"), ["shop"]), StoreKeyError);
});

/** A Pod-like object on a node (none: not scheduled), with an app label. */
function pod(name: string, node: string | undefined, app = "web"): KubeObject {
  return {
    metadata: {
      namespace: "shop",
      name,
      resourceVersion: "1",
      labels: { app },
    },
    spec: node === undefined ? {} : { nodeName: node },
  };
}
const nodeOf = (o: KubeObject) => {
  const node = (o.spec as { nodeName?: string }).nodeName;
  return node === undefined ? undefined : [node];
};

Deno.test("MemoryStore indexes: each named index answers byIndex, kept through updates, deletes and clear", () => {
  const store = new MemoryStore({
    keyCount: 2,
    indexes: {
      byNode: nodeOf,
      byAppNode: (o) => [o.metadata.labels!.app, nodeOf(o)?.[0] ?? "-"],
    },
  });
  store.add(pod("b", "n1"), ["shop", "b"]);
  store.add(pod("a", "n1", "api"), ["shop", "a"]);
  store.add(pod("c", "n2"), ["shop", "c"]);
  store.add(pod("pending", undefined), ["shop", "pending"]);
  assert.deepEqual(ids(store.byIndex("byNode", "n1")), ["shop/a", "shop/b"]);
  assert.deepEqual(ids(store.byIndex("byNode")), [
    "shop/a",
    "shop/b",
    "shop/c",
  ]);
  assert.deepEqual(ids(store.byIndex("byAppNode", "web")), [
    "shop/b",
    "shop/c",
    "shop/pending",
  ]);
  assert.deepEqual(ids(store.byIndex("byAppNode", "api", "n1")), ["shop/a"]);
  // The object itself, as get answers it.
  assert.equal(store.byIndex("byNode", "n2")[0], store.get("shop", "c")[0]);

  // Scheduled: it joins the node's answers; moved: it leaves the old one's.
  store.update(pod("pending", "n2"), ["shop", "pending"]);
  store.update(pod("b", "n2"), ["shop", "b"]);
  assert.deepEqual(ids(store.byIndex("byNode", "n1")), ["shop/a"]);
  assert.deepEqual(ids(store.byIndex("byNode", "n2")), [
    "shop/b",
    "shop/c",
    "shop/pending",
  ]);
  // Unscheduled again: in none of the index's answers, still stored.
  store.update(pod("c", undefined), ["shop", "c"]);
  assert.deepEqual(ids(store.byIndex("byNode", "n2")), [
    "shop/b",
    "shop/pending",
  ]);
  assert.equal(store.size, 4);

  assert.equal(store.delete("shop", "b"), true);
  assert.deepEqual(ids(store.byIndex("byNode", "n2")), ["shop/pending"]);
  assert.deepEqual(ids(store.byIndex("byAppNode", "web")), [
    "shop/c",
    "shop/pending",
  ]);
  store.clear();
  assert.deepEqual(store.byIndex("byNode"), []);
  assert.deepEqual(store.byIndex("byAppNode", "web"), []);
});

Deno.test("MemoryStore byIndex refuses an unknown name and too many keys with a StoreKeyError", () => {
  const store = new MemoryStore({ indexes: { byNode: nodeOf } });
  store.add(pod("a", "n1"), ["shop"]);
  assert.throws(
    () => store.byIndex("byHost", "x"),
    (e: unknown) =>
      e instanceof StoreKeyError &&
      e.message === 'The store has no index named "byHost" (it has "byNode")',
  );
  assert.throws(
    () => store.byIndex("byNode", "n1", "extra"),
    (e: unknown) =>
      e instanceof StoreKeyError &&
      e.message ===
        'The store is indexed by 1 keys but byIndex("byNode") was given 2',
  );
  assert.throws(
    () => new MemoryStore().byIndex("byNode"),
    (e: unknown) => e instanceof StoreKeyError && /it has none/.test(e.message),
  );
  assert.throws(
    () => new MemoryStore({ indexes: { byNode: "spec.nodeName" as never } }),
    (e: unknown) =>
      e instanceof TypeError &&
      e.message ===
        "MemoryStore option indexes.byNode must be a function returning the object's keys in that index",
  );
});

Deno.test("MemoryStore indexes: a key function that throws or gives bad keys leaves every index as it was", () => {
  const store = new MemoryStore({
    indexes: {
      byNode: nodeOf,
      picky: (o) => {
        if (o.metadata.name === "boom") throw new Error("No keys for boom");
        return o.metadata.name === "bad" ? [] : [o.metadata.name!];
      },
    },
  });
  store.add(pod("a", "n1"), ["shop"]);
  assert.throws(
    () => store.add(pod("boom", "n1"), ["shop"]),
    /No keys for boom/,
  );
  assert.throws(() => store.add(pod("bad", "n1"), ["shop"]), StoreKeyError);
  assert.throws(
    () => store.update(pod("a", "n9"), ["shop", "x"]),
    StoreKeyError,
  );
  assert.equal(store.size, 1);
  assert.deepEqual(ids(store.byIndex("byNode")), ["shop/a"]);
  assert.deepEqual(ids(store.byIndex("byNode", "n1")), ["shop/a"]);
  assert.deepEqual(ids(store.byIndex("picky")), ["shop/a"]);
});

Deno.test("memoryStore gives its stores the watcher's named indexes", () => {
  const store = memoryStore().create<KubeObject>(
    { keyCount: 1, indexes: { byNode: nodeOf } } as never,
  ) as MemoryStore;
  store.add(pod("a", "n1"), ["shop"]);
  assert.deepEqual(ids(store.byIndex("byNode", "n1")), ["shop/a"]);
});
