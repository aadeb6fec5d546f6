// What a Watcher's types promise, checked by the compiler and at run time:
// reads are synchronous on the memory store and promises on the cached one,
// the key count of `store.get` follows a literal `indexBy`, and what the
// watcher hands out is read-only (frozen with `freezeObjects`). A line marked
// `@ts-expect-error` must fail to compile: this file type-checks only when
// the types refuse what it says they refuse.
import assert from "node:assert/strict";
import type {
  KubeObject,
  KubeObjectLike,
  ReadableStore,
  ReadonlyFields,
  Store,
  StoreReads,
} from "../types.ts";
import { cachedStore } from "../store/cached_store.ts";
import {
  MemoryStore,
  memoryStore,
  type StoreContext,
  type StoreFactory,
} from "../store/memory_store.ts";
import { StoreKeyError } from "../store/errors.ts";
import { FetchClient } from "../client/fetch_client.ts";
import { FakeApiServer } from "../testing/fake_api_server.ts";
import { mockFetch } from "../testing/mock_fetch.ts";
import { FakeClock, waitFor } from "../testing/fake_clock.ts";
import { RecordingLogger } from "../testing/recording_logger.ts";
import { Watcher } from "./watcher.ts";
import { SingleWatcher } from "./single.ts";
import type { ChangeBatch } from "./change_batch.ts";
import { WatcherConfigError, type WatcherOptions } from "./watcher_config.ts";
import { CONFIGMAPS } from "./_bulk_harness_test.ts";

/** True exactly when `A` and `B` are the same type. */
type Same<A, B> = (<X>() => X extends A ? 1 : 2) extends
  (<X>() => X extends B ? 1 : 2) ? true : false;
/** Compiles only for `true`. */
function check<_ extends true>(): void {}

interface ConfigMap {
  metadata: {
    namespace?: string;
    name?: string;
    labels?: Record<string, string>;
  };
  data?: Record<string, string>;
}

/** A fake server holding shop/a and shop/b, and a client of it. */
function cluster(clock: FakeClock) {
  const server = new FakeApiServer({ clock });
  server.create(CONFIGMAPS, { metadata: { namespace: "shop", name: "a" } });
  server.create(CONFIGMAPS, { metadata: { namespace: "shop", name: "b" } });
  const fetch = mockFetch(server);
  const client = new FetchClient({ server: server.url });
  return {
    server,
    client,
    async [Symbol.asyncDispose]() {
      await server.close();
      fetch[Symbol.dispose]();
    },
  };
}

function options(clock: FakeClock): WatcherOptions {
  return { clock, logger: new RecordingLogger() };
}

Deno.test("Watcher reads follow the store backend: arrays from memoryStore(), promises from cachedStore()", async () => {
  const clock = new FakeClock();
  await using c = cluster(clock);
  const memory = new Watcher(
    {
      gvr: CONFIGMAPS,
      indexBy: ["metadata.namespace", "metadata.name"],
      onChange: (store) => {
        // No await: the default backend answers at once.
        const names: string[] = store.list().map((o) => o.metadata.name!);
        assert.ok(Array.isArray(names));
      },
    },
    c.client,
    options(clock),
  );
  const named = new Watcher(
    {
      gvr: CONFIGMAPS,
      indexBy: ["metadata.name"],
      store: memoryStore(),
      onChange: () => {},
    },
    c.client,
    options(clock),
  );
  const cached = new Watcher(
    {
      gvr: CONFIGMAPS,
      indexBy: ["metadata.namespace", "metadata.name"],
      store: cachedStore(),
      onChange: () => {},
    },
    c.client,
    options(clock),
  );
  check<
    Same<ReturnType<typeof memory.store.get>, ReadonlyFields<KubeObject>[]>
  >();
  check<
    Same<ReturnType<typeof named.store.list>, ReadonlyFields<KubeObject>[]>
  >();
  check<
    Same<
      ReturnType<typeof cached.store.get>,
      Promise<ReadonlyFields<KubeObject>[]>
    >
  >();
  assert.throws(
    // @ts-expect-error: a cached store's answer is a promise, not an array
    () => cached.store.get("shop").map((o) => o),
    TypeError,
  );
  memory.start();
  named.start();
  cached.start();
  await Promise.all([
    memory.waitForSync(),
    named.waitForSync(),
    cached.waitForSync(),
  ]);
  try {
    const listed = memory.store.get("shop");
    assert.deepEqual(listed.map((o) => o.metadata.name), ["a", "b"]);
    assert.equal(named.store.list().length, 2);
    const fetched = cached.store.get("shop");
    assert.ok(fetched instanceof Promise);
    assert.deepEqual((await fetched).map((o) => o.metadata.name), ["a", "b"]);
  } finally {
    await Promise.all([memory.stop(), named.stop(), cached.stop()]);
  }
});

Deno.test("Watcher with an explicit object type reads synchronously from the default store; a cached one says so", () => {
  const clock = new FakeClock();
  const client = new FetchClient({ server: "https://127.0.0.1:6443" });
  const typed = new Watcher<ConfigMap>(
    {
      gvr: CONFIGMAPS,
      indexBy: ["metadata.name"],
      onChange: () => {},
    },
    client,
    options(clock),
  );
  check<
    Same<ReturnType<typeof typed.store.get>, ReadonlyFields<ConfigMap>[]>
  >();
  const secrets = new Watcher<ConfigMap, "async">(
    {
      gvr: CONFIGMAPS,
      indexBy: ["metadata.name"],
      store: cachedStore(),
      onChange: () => {},
    },
    client,
    options(clock),
  );
  check<
    Same<
      ReturnType<typeof secrets.store.list>,
      Promise<ReadonlyFields<ConfigMap>[]>
    >
  >();
  new Watcher<ConfigMap>(
    {
      gvr: CONFIGMAPS,
      indexBy: ["metadata.name"],
      // @ts-expect-error: a cached store's reads are not synchronous
      store: cachedStore(),
      onChange: () => {},
    },
    client,
    options(clock),
  );
  // A backend declared as any StoreFactory answers either way, as before.
  const either: StoreFactory = memoryStore();
  const custom = new Watcher(
    {
      gvr: CONFIGMAPS,
      indexBy: ["metadata.name"],
      store: either,
      onChange: () => {},
    },
    client,
    options(clock),
  );
  check<
    Same<
      typeof custom.store extends ReadableStore<infer _, infer R> ? R : never,
      StoreReads
    >
  >();
  // What a store factory's type says its stores answer, at run time too.
  assert.equal(memoryStore().reads, "sync");
  assert.equal(cachedStore().reads, "async");
});

Deno.test("Watcher store.get with more keys than a literal indexBy has does not compile, and throws", async () => {
  const clock = new FakeClock();
  await using c = cluster(clock);
  const watcher = new Watcher(
    {
      gvr: CONFIGMAPS,
      indexBy: ["metadata.namespace", "metadata.name"],
      onChange: () => {},
    },
    c.client,
    options(clock),
  );
  watcher.start();
  await watcher.waitForSync();
  try {
    assert.equal(watcher.store.get("shop", "a").length, 1); // all keys
    assert.equal(watcher.store.get("shop").length, 2); // a prefix
    assert.equal(watcher.store.get().length, 2);
    assert.throws(
      // @ts-expect-error: the store is indexed by two keys
      () => watcher.store.get("shop", "a", "extra"),
      StoreKeyError,
    );
  } finally {
    await watcher.stop();
  }
  // An indexBy the compiler cannot count keeps any number of keys typed.
  const paths: string[] = ["metadata.name"];
  const counted = new Watcher(
    {
      gvr: CONFIGMAPS,
      indexBy: paths,
      onChange: () => {},
    },
    c.client,
    options(clock),
  );
  check<Same<Parameters<typeof counted.store.get>, string[]>>();
});

Deno.test("MemoryStore with a literal keyCount types get's key count", () => {
  const store = new MemoryStore({ keyCount: 2 });
  store.add({ metadata: { namespace: "shop", name: "a" } }, ["shop", "a"]);
  assert.equal(store.get("shop", "a").length, 1);
  assert.equal(store.get("shop").length, 1);
  assert.throws(
    // @ts-expect-error: the store is indexed by two keys
    () => store.get("shop", "a", "extra"),
    StoreKeyError,
  );
  // Without a keyCount, any number of keys is typed (the first write decides).
  const loose = new MemoryStore();
  check<Same<Parameters<typeof loose.get>, string[]>>();
});

Deno.test("Watcher objects are read-only in the types, and frozen with freezeObjects", async () => {
  const clock = new FakeClock();
  await using c = cluster(clock);
  const batches: ChangeBatch<ReadonlyFields<ConfigMap>>[] = [];
  const watcher = new Watcher<ConfigMap>(
    {
      gvr: CONFIGMAPS,
      indexBy: ["metadata.name"],
      onChange: (_store, batch) => {
        batches.push(batch);
      },
    },
    c.client,
    { ...options(clock), freezeObjects: true },
  );
  watcher.start();
  await watcher.waitForSync();
  try {
    const [a] = watcher.store.get("a");
    assert.throws(() => {
      // @ts-expect-error: stored objects are read-only
      a.metadata.name = "renamed";
    }, TypeError);
    assert.throws(() => {
      // @ts-expect-error: at every depth
      a.metadata.labels = { tier: "web" };
    }, TypeError);
    assert.equal(watcher.store.get("a")[0].metadata.name, "a");
    // A read object is still the model type: it passes where one is taken.
    const asModel: ConfigMap = a;
    assert.equal(asModel, a);

    c.server.create(CONFIGMAPS, {
      metadata: { namespace: "shop", name: "c" },
      data: { k: "v" },
    });
    await waitFor(() => batches.some((b) => b.objects.created.length > 0));
    const created = batches.flatMap((b) => b.objects.created);
    assert.equal(created.length, 1);
    assert.throws(() => {
      // @ts-expect-error: batch objects are read-only too
      created[0].data!.k = "changed";
    }, TypeError);
    assert.deepEqual(watcher.store.get("c")[0].data, { k: "v" });
  } finally {
    await watcher.stop();
  }
});

Deno.test("Watcher without freezeObjects leaves stored objects unfrozen (no cost)", async () => {
  const clock = new FakeClock();
  await using c = cluster(clock);
  const watcher = new Watcher(
    {
      gvr: CONFIGMAPS,
      indexBy: ["metadata.name"],
      onChange: () => {},
    },
    c.client,
    options(clock),
  );
  watcher.start();
  await watcher.waitForSync();
  try {
    assert.equal(Object.isFrozen(watcher.store.get("a")[0]), false);
  } finally {
    await watcher.stop();
  }
});

Deno.test("Watcher labelSelector takes an operator typed as a string (client-node's V1LabelSelector), and refuses an unknown one", () => {
  const client = new FetchClient({ server: "https://127.0.0.1:6443" });
  /** Shaped as `V1LabelSelector` of @kubernetes/client-node. */
  interface V1LabelSelector {
    matchExpressions?: { key: string; operator: string; values?: string[] }[];
    matchLabels?: { [key: string]: string };
  }
  const selector = (operator: string): V1LabelSelector => ({
    matchLabels: { app: "web" },
    matchExpressions: [{ key: "tier", operator, values: ["a"] }],
  });
  const make = (labelSelector: V1LabelSelector) =>
    new Watcher(
      {
        gvr: CONFIGMAPS,
        indexBy: ["metadata.name"],
        labelSelector,
        onChange: () => {},
      },
      client,
      options(new FakeClock()),
    );
  make(selector("In"));
  assert.throws(
    () => make(selector("Equals")),
    (error: unknown) =>
      error instanceof WatcherConfigError && error.field === "labelSelector" &&
      /unknown operator "Equals" \(expected In, NotIn, Exists or DoesNotExist\)/
        .test(error.message),
  );
});

Deno.test("Watcher on a shareable backend that answers with promises answers with promises from the copy it keeps after stop()", async () => {
  const clock = new FakeClock();
  await using c = cluster(clock);
  /** The memory store, answering its reads with promises. */
  const later: StoreFactory<"async"> = {
    name: "later",
    shareable: true,
    reads: "async",
    create<T extends KubeObjectLike>(context: StoreContext<T>) {
      const store = new MemoryStore<T>({ keyCount: context.keyCount });
      return Object.assign(store, {
        get: (...keys: string[]) =>
          Promise.resolve(MemoryStore.prototype.get.apply(store, keys)),
        list: () => Promise.resolve(MemoryStore.prototype.list.call(store)),
      }) as unknown as Store<T, "async">;
    },
  };
  const shared = options(clock); // one logger: the form's
  const make = () =>
    new Watcher(
      {
        gvr: CONFIGMAPS,
        indexBy: ["metadata.namespace", "metadata.name"],
        store: later,
        onChange: () => {},
      },
      c.client,
      shared,
    );
  const first = make();
  const second = make();
  check<
    Same<
      ReturnType<typeof first.store.get>,
      Promise<ReadonlyFields<KubeObject>[]>
    >
  >();
  first.start();
  second.start();
  await Promise.all([first.waitForSync(), second.waitForSync()]);
  assert.deepEqual(first.health().shared, { consumers: 2 });
  await second.stop(); // leaves the shared store: reads a memory copy
  try {
    const answer = second.store.get("shop");
    assert.ok(answer instanceof Promise);
    assert.equal((await answer).length, 2);
    assert.ok(second.store.list() instanceof Promise);
  } finally {
    await first.stop();
  }
});

Deno.test("freezeObjects freezes what a cached store fetches and a SingleWatcher's object", async () => {
  const clock = new FakeClock();
  await using c = cluster(clock);
  const frozen = { ...options(clock), freezeObjects: true };
  const cached = new Watcher(
    {
      gvr: CONFIGMAPS,
      indexBy: ["metadata.namespace", "metadata.name"],
      store: cachedStore(),
      onChange: () => {},
    },
    c.client,
    frozen,
  );
  const single = new SingleWatcher<ConfigMap>(
    {
      gvr: CONFIGMAPS,
      namespace: "shop",
      name: "a",
      onChange: () => {},
    },
    c.client,
    frozen,
  );
  cached.start();
  single.start();
  await Promise.all([cached.waitForSync(), single.waitForSync()]);
  try {
    const [fetched] = await cached.store.get("shop", "a");
    assert.ok(Object.isFrozen(fetched.metadata));
    const current = single.current!;
    assert.throws(() => {
      // @ts-expect-error: a SingleWatcher's object is read-only too
      current.metadata.name = "renamed";
    }, TypeError);
  } finally {
    await Promise.all([cached.stop(), single.stop()]);
  }
});
