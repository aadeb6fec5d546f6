import assert from "node:assert/strict";
import type { KubeObject } from "../types.ts";
import type { RequestOptions, RestClient } from "../client/rest_client.ts";
import { ApiError } from "../client/api_error.ts";
import { FakeClock } from "../testing/fake_clock.ts";
import { RecordingLogger } from "../testing/recording_logger.ts";
import {
  CachedStore,
  cachedStore,
  type CachedStoreOptions,
} from "./cached_store.ts";
import { StoreFetchError, StoreKeyError } from "./errors.ts";

const GVR = { group: "", version: "v1", resource: "secrets" };
const pathOf = (ns: string, name: string) =>
  `/api/v1/namespaces/${ns}/secrets/${name}`;

/** A RestClient serving GETs from a map of path -> object, counting them. */
class FakeClient {
  readonly gets: string[] = [];
  readonly objects = new Map<string, KubeObject>();
  readonly failures = new Map<string, unknown>();
  readonly requests: RequestOptions[] = [];
  inFlight = 0;
  maxInFlight = 0;
  #gate: PromiseWithResolvers<void> | undefined;

  /** Holds every answer until `release()`. */
  hold(): void {
    this.#gate = Promise.withResolvers();
  }

  release(): void {
    this.#gate?.resolve();
    this.#gate = undefined;
  }

  put(ns: string, name: string, extra: Record<string, unknown> = {}): void {
    this.objects.set(pathOf(ns, name), {
      metadata: { namespace: ns, name, resourceVersion: "1" },
      ...extra,
    });
  }

  async performRequest(opts: RequestOptions): Promise<unknown> {
    this.requests.push(opts);
    this.gets.push(opts.path);
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      if (this.#gate) await this.#gate.promise;
      const failure = this.failures.get(opts.path);
      if (failure !== undefined) throw failure;
      const obj = this.objects.get(opts.path);
      if (obj === undefined) {
        throw new ApiError({
          code: 404,
          status: { reason: "NotFound" },
          method: opts.method,
          path: opts.path,
        });
      }
      return structuredClone(obj);
    } finally {
      this.inFlight--;
    }
  }

  get client(): RestClient {
    return this as unknown as RestClient;
  }
}

function setup(options: Partial<CachedStoreOptions> = {}) {
  const fake = new FakeClient();
  const clock = new FakeClock();
  const logger = new RecordingLogger();
  const store = new CachedStore({
    client: fake.client,
    gvr: GVR,
    clock,
    logger,
    ...options,
  });
  return { fake, clock, logger, store };
}

function ref(ns: string, name: string, rv = "1"): KubeObject {
  return { metadata: { namespace: ns, name, resourceVersion: rv } };
}

const names = (objs: KubeObject[]) => objs.map((o) => o.metadata.name);

Deno.test("CachedStore fetches on a miss and serves hits from the cache", async () => {
  const { fake, store } = setup();
  fake.put("ns", "b");
  fake.put("ns", "a");
  store.add(ref("ns", "b"), ["ns"]);
  store.add(ref("ns", "a"), ["ns"]);

  assert.deepEqual(names(await store.get("ns")), ["a", "b"]);
  assert.deepEqual(fake.gets, [pathOf("ns", "a"), pathOf("ns", "b")]);
  assert.deepEqual(fake.requests[0], {
    method: "GET",
    path: pathOf("ns", "a"),
    expectJson: true,
  });

  const again = await store.get("ns");
  assert.deepEqual(names(again), ["a", "b"]);
  assert.equal(fake.gets.length, 2, "hits must not GET");
  assert.deepEqual(names(await store.get("ns")), ["a", "b"]);
  assert.equal(fake.gets.length, 2);
});

Deno.test("CachedStore keeps only references, not the objects it is given", async () => {
  const { fake, store } = setup();
  fake.put("ns", "a", { data: { from: "api" } });
  store.add({ ...ref("ns", "a"), data: { from: "watch" } }, ["k"]);
  const [obj] = await store.get("k");
  assert.deepEqual(obj.data, { from: "api" });
  assert.equal(store.resourceVersionOf("ns", "a"), "1");
});

Deno.test("CachedStore refreshes the TTL on access and expires after it", async () => {
  const { fake, clock, store } = setup({ ttl: 1_000 });
  fake.put("ns", "a");
  store.add(ref("ns", "a"), ["k"]);
  await store.get("k");
  assert.equal(fake.gets.length, 1);

  await clock.tick(900);
  await store.get("k"); // hit; lives until 1900 now
  await clock.tick(900);
  await store.get("k"); // 1800: still a hit thanks to the refresh
  assert.equal(fake.gets.length, 1);

  await clock.tick(1_000); // 2800: idle for a whole TTL
  await store.get("k");
  assert.equal(fake.gets.length, 2);
});

Deno.test("CachedStore drops the cached copy on update and delete", async () => {
  const { fake, store } = setup();
  fake.put("ns", "a");
  fake.put("ns", "b");
  store.add(ref("ns", "a"), ["k"]);
  store.add(ref("ns", "b"), ["k"]);
  await store.get("k");
  assert.equal(fake.gets.length, 2);

  store.update(ref("ns", "a", "2"), ["k"]);
  await store.get("k");
  assert.deepEqual(fake.gets.slice(2), [pathOf("ns", "a")]);

  assert.equal(store.delete("ns", "b"), true);
  assert.deepEqual(names(await store.get("k")), ["a"]);
  assert.equal(fake.gets.length, 3);

  store.add(ref("ns", "b", "3"), ["k"]); // add of a cached identity also drops it
  store.add(ref("ns", "a", "3"), ["k"]);
  await store.get("k");
  assert.equal(fake.gets.length, 5);
});

Deno.test("CachedStore evicts the least recently used object past maxEntries", async () => {
  const { fake, store } = setup({ maxEntries: 2 });
  for (const n of ["a", "b", "c"]) {
    fake.put("ns", n);
    store.add(ref("ns", n), [n]);
  }
  await store.get("a");
  await store.get("b");
  await store.get("a"); // "b" is now least recently used
  await store.get("c"); // evicts "b"
  assert.equal(fake.gets.length, 3);
  await store.get("a");
  await store.get("c");
  assert.equal(fake.gets.length, 3);
  await store.get("b");
  assert.deepEqual(fake.gets.slice(3), [pathOf("ns", "b")]);
});

Deno.test("CachedStore leaves out objects the API answers 404 for", async () => {
  const { fake, logger, store } = setup();
  fake.put("ns", "a");
  fake.put("ns", "c");
  for (const n of ["a", "b", "c"]) store.add(ref("ns", n), ["k"]);
  assert.deepEqual(names(await store.get("k")), ["a", "c"]);
  const debug = logger.at("debug");
  assert.equal(debug.length, 1);
  assert.deepEqual(debug[0].fields, {
    resource: "secrets",
    namespace: "ns",
    name: "b",
  });
  // Nothing negative is cached: once the object exists, it is found.
  fake.put("ns", "b");
  assert.deepEqual(names(await store.get("k")), ["a", "b", "c"]);
});

Deno.test("CachedStore treats 404s of other clients' error shapes as gone", async () => {
  const { fake, store } = setup();
  const shapes = [
    Object.assign(new Error("not found"), { code: 404 }),
    Object.assign(new Error("not found"), { status: 404 }),
    Object.assign(new Error("not found"), { status: { code: 404 } }),
  ];
  shapes.forEach((err, i) => {
    fake.failures.set(pathOf("ns", `o${i}`), err);
    store.add(ref("ns", `o${i}`), ["k"]);
  });
  assert.deepEqual(await store.get("k"), []);
});

Deno.test("CachedStore rejects other failures with a StoreFetchError naming the object", async () => {
  const { fake, store } = setup();
  fake.put("ns", "a");
  const cause = new ApiError({ code: 500, path: pathOf("ns", "b") });
  fake.failures.set(pathOf("ns", "b"), cause);
  store.add(ref("ns", "a"), ["k"]);
  store.add(ref("ns", "b"), ["k"]);
  await assert.rejects(store.get("k"), (err: unknown) => {
    assert.ok(err instanceof StoreFetchError);
    assert.equal(err.namespace, "ns");
    assert.equal(err.objectName, "b");
    assert.equal(err.path, pathOf("ns", "b"));
    assert.equal(err.cause, cause);
    assert.match(err.message, /ns\/b/);
    return true;
  });
  // The failure is not cached; the object that succeeded is.
  fake.failures.clear();
  fake.put("ns", "b");
  const gets = fake.gets.length;
  assert.deepEqual(names(await store.get("k")), ["a", "b"]);
  assert.deepEqual(fake.gets.slice(gets), [pathOf("ns", "b")]);
});

Deno.test("CachedStore rejects an answer that is not a Kubernetes object", async () => {
  const { fake, store } = setup();
  fake.objects.set(pathOf("ns", "a"), "<html>" as unknown as KubeObject);
  store.add(ref("ns", "a"), ["k"]);
  await assert.rejects(
    store.get("k"),
    (err: unknown) =>
      err instanceof StoreFetchError &&
      /not a Kubernetes object/.test(err.message),
  );
});

Deno.test("CachedStore applies the filter to fetched objects, once per GET", async () => {
  let calls = 0;
  const { fake, store } = setup({
    filter: (obj) => {
      calls++;
      const { managed: _, ...rest } = obj;
      return rest as KubeObject;
    },
  });
  fake.put("ns", "a", { managed: "big", data: { k: "v" } });
  store.add(ref("ns", "a"), ["k"]);
  const [first] = await store.get("k");
  assert.equal("managed" in first, false);
  assert.deepEqual(first.data, { k: "v" });
  const [second] = await store.get("k");
  assert.equal(second, first);
  assert.equal(calls, 1);
});

Deno.test("CachedStore wraps a throwing filter in a StoreFetchError", async () => {
  const { fake, store } = setup({
    filter: () => {
      throw new Error("bad path");
    },
  });
  fake.put("ns", "a");
  store.add(ref("ns", "a"), ["k"]);
  await assert.rejects(store.get("k"), StoreFetchError);
});

Deno.test("CachedStore shares one request between concurrent reads of an object", async () => {
  const { fake, store } = setup();
  fake.put("ns", "a");
  store.add(ref("ns", "a"), ["x", "y"]);
  fake.hold();
  const reads = [store.get("x"), store.get("x", "y"), store.list()];
  await Promise.resolve();
  fake.release();
  const [one, two, three] = await Promise.all(reads);
  assert.equal(fake.gets.length, 1);
  assert.equal(one[0], two[0]);
  assert.equal(two[0], three[0]);
});

Deno.test("CachedStore does not cache an answer that a write made stale", async () => {
  const { fake, store } = setup();
  fake.put("ns", "a");
  store.add(ref("ns", "a", "1"), ["k"]);
  fake.hold();
  const read = store.get("k");
  store.update(ref("ns", "a", "2"), ["k"]); // arrives while the GET is out
  fake.release();
  await read;
  await store.get("k");
  assert.equal(fake.gets.length, 2);
  await store.get("k"); // the current answer was cached
  assert.equal(fake.gets.length, 2);
});

Deno.test("CachedStore does not join a request made before a write", async () => {
  const { fake, store } = setup();
  fake.put("ns", "a");
  store.add(ref("ns", "a", "1"), ["k"]);
  fake.hold();
  const before = store.get("k");
  store.update(ref("ns", "a", "2"), ["k"]);
  const after = store.get("k");
  assert.equal(fake.gets.length, 2);
  fake.release();
  await Promise.all([before, after]);
});

Deno.test("CachedStore limits concurrent GETs", async () => {
  const { fake, store } = setup({ concurrency: 2 });
  for (let i = 0; i < 6; i++) {
    fake.put("ns", `o${i}`);
    store.add(ref("ns", `o${i}`), ["k"]);
  }
  fake.hold();
  const read = store.get("k");
  await Promise.resolve();
  assert.equal(fake.inFlight, 2);
  fake.release();
  assert.equal((await read).length, 6);
  assert.equal(fake.maxInFlight, 2);
  assert.throws(
    () => new CachedStore({ client: fake.client, gvr: GVR, concurrency: 0 }),
    RangeError,
  );
});

Deno.test("CachedStore list warns once per call that it costs a GET per object", async () => {
  const { fake, logger, store } = setup();
  for (const n of ["c", "a", "b"]) {
    fake.put("ns", n);
    store.add(ref("ns", n), [n]);
  }
  assert.deepEqual(names(await store.list()), ["a", "b", "c"]);
  assert.equal(fake.gets.length, 3);
  const warnings = logger.at("warn");
  assert.equal(warnings.length, 1);
  assert.match(warnings[0].message, /one GET each/);
  assert.deepEqual(warnings[0].fields, { resource: "secrets", objects: 3 });
  await store.list();
  assert.equal(logger.at("warn").length, 2);
  assert.equal(fake.gets.length, 3);
});

Deno.test("CachedStore bad keys reject without changing anything", async () => {
  const { store } = setup();
  store.add(ref("ns", "a"), ["x"]);
  assert.throws(() => store.add(ref("ns", "b"), ["x", "y"]), StoreKeyError);
  await assert.rejects(store.get("x", "y"), StoreKeyError);
  assert.equal(store.size, 1);
  assert.equal(store.modificationCount, 1);
});

Deno.test("CachedStore bookkeeping: size, identities, resourceVersionOf, clear", async () => {
  const { fake, store } = setup();
  fake.put("ns", "a");
  store.add(ref("ns", "a", "5"), ["x"]);
  store.add({ metadata: { name: "cluster" } }, ["y"]);
  assert.equal(store.size, 2);
  assert.equal(store.resourceVersionOf("ns", "a"), "5");
  assert.equal(store.resourceVersionOf("", "cluster"), "");
  assert.equal(store.resourceVersionOf("ns", "zzz"), undefined);
  assert.deepEqual([...store.identities()], [["ns", "a"], ["", "cluster"]]);
  await store.get("x");
  const count = store.modificationCount;
  store.clear();
  assert.equal(store.modificationCount, count + 1);
  assert.equal(store.size, 0);
  assert.deepEqual(await store.get(), []);
  store.add(ref("ns", "a", "5"), ["x"]);
  await store.get("x");
  assert.equal(fake.gets.length, 2, "clear drops cached objects too");
});

Deno.test("CachedStore rejects a ttl above 2³¹−1 ms, as every duration option does", () => {
  const { fake } = setup();
  assert.throws(
    () => new CachedStore({ client: fake.client, gvr: GVR, ttl: 2 ** 31 }),
    {
      name: "RangeError",
      message: "ttl must be at most 2147483647 ms (2³¹−1) but got 2147483648",
    },
  );
  new CachedStore({ client: fake.client, gvr: GVR, ttl: 2 ** 31 - 1 });
});

Deno.test("cachedStore checks its tuning at once", () => {
  assert.throws(() => cachedStore({ ttl: -1 }), RangeError);
  assert.throws(() => cachedStore({ maxEntries: -1 }), RangeError);
  assert.throws(() => cachedStore({ concurrency: 1.5 }), RangeError);
  assert.throws(
    () => cachedStore({ tll: 1_000 } as never),
    (e: unknown) =>
      e instanceof TypeError && /tll: .*did you mean ttl\?/.test(e.message),
  );
  assert.throws(
    () => cachedStore({ client: new FakeClient().client } as never),
    /client: is not a CachedStoreTuning option/,
  );
});

Deno.test("cachedStore makes a CachedStore of the watcher's client, resource, filter, clock and logger", async () => {
  const fake = new FakeClient();
  fake.put("shop", "a", { data: { secret: "x", v: "1" } });
  const clock = new FakeClock();
  const logger = new RecordingLogger();
  const factory = cachedStore({ ttl: 1_000 });
  assert.deepEqual([factory.name, factory.shareable], ["cached", false]);
  const store = factory.create<KubeObject>({
    gvr: GVR,
    client: fake.client,
    indexBy: ["metadata.namespace"],
    keyCount: 1,
    prepare: (obj) => ({ ...obj, prepared: true }),
    clock,
    logger,
  });
  assert.ok(store instanceof CachedStore);
  store.add({ metadata: { namespace: "shop", name: "a" } }, ["shop"]);
  const [a] = await store.get("shop");
  assert.equal(a.prepared, true, "through prepare");
  assert.deepEqual(fake.gets, [pathOf("shop", "a")]);
  await clock.tick(1_001); // the ttl: expired
  await store.get("shop");
  assert.equal(fake.gets.length, 2);
  await assert.rejects(store.get("shop", "extra"), StoreKeyError);
  await store.list();
  assert.equal(logger.at("warn").length, 1, "the factory's logger");
});

Deno.test("CachedStore indexes: byIndex keeps references under each named index and fetches as get does", async () => {
  const { fake, store } = setup({
    indexes: {
      byTier: (o) => {
        const tier = o.metadata.labels?.tier;
        return tier === undefined ? undefined : [tier];
      },
    },
  });
  const secret = (name: string, tier?: string, rv = "1"): KubeObject => ({
    metadata: {
      namespace: "ns",
      name,
      resourceVersion: rv,
      ...(tier ? { labels: { tier } } : {}),
    },
  });
  for (const name of ["a", "b", "c"]) fake.put("ns", name);
  store.add(secret("b", "web"), ["ns"]);
  store.add(secret("a", "web"), ["ns"]);
  store.add(secret("c"), ["ns"]);
  assert.deepEqual(names(await store.byIndex("byTier", "web")), ["a", "b"]);
  assert.deepEqual(fake.gets, [pathOf("ns", "a"), pathOf("ns", "b")]);
  // Cached: get of the same objects needs no GET, nor does the index again.
  await store.get("ns");
  assert.equal(fake.gets.length, 3, "only c was not cached");
  assert.deepEqual(names(await store.byIndex("byTier")), ["a", "b"]);
  assert.equal(fake.gets.length, 3);
  // An update drops the cached copy and moves the reference.
  store.update(secret("a", "db", "2"), ["ns"]);
  assert.deepEqual(names(await store.byIndex("byTier", "web")), ["b"]);
  assert.deepEqual(names(await store.byIndex("byTier", "db")), ["a"]);
  assert.equal(fake.gets.length, 4);
  store.delete("ns", "b");
  assert.deepEqual(await store.byIndex("byTier", "web"), []);
  await assert.rejects(() => store.byIndex("byHost"), StoreKeyError);
});
