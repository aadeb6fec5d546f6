// The `store` option: a store backend is one value (a `StoreFactory`), and a
// new one takes one file. The backend below is defined here, in full, and a
// Watcher runs on it as on the built-in ones.
import assert from "node:assert/strict";
import type { KubeObject, KubeObjectLike, Store } from "../types.ts";
import {
  MemoryStore,
  memoryStore,
  type StoreContext,
  type StoreFactory,
} from "../store/memory_store.ts";
import { cachedStore } from "../store/cached_store.ts";
import { FetchClient } from "../client/fetch_client.ts";
import { waitFor } from "../testing/fake_clock.ts";
import { RecordingLogger } from "../testing/recording_logger.ts";
import { Watcher } from "./watcher.ts";
import { WatcherConfigError } from "./watcher_config.ts";
import {
  type AnyWatcher,
  type AnyWatcherConfig,
  BY_IDENTITY,
  configMap,
  CONFIGMAPS,
  Harness,
  ServerFixture,
} from "./_bulk_harness_test.ts";

/** A store backend: the memory store, with a log of every write. */
class JournalStore<T extends KubeObjectLike> implements Store<T> {
  readonly journal: string[] = [];
  #inner: MemoryStore<T>;

  constructor(keyCount: number) {
    this.#inner = new MemoryStore<T>({ keyCount });
  }

  get size(): number {
    return this.#inner.size;
  }
  get modificationCount(): number {
    return this.#inner.modificationCount;
  }
  add(obj: T, keys: string[]): void {
    this.journal.push(`add ${obj.metadata?.name}`);
    this.#inner.add(obj, keys);
  }
  update(obj: T, keys: string[]): void {
    this.journal.push(`update ${obj.metadata?.name}`);
    this.#inner.update(obj, keys);
  }
  delete(namespace: string, name: string): boolean {
    this.journal.push(`delete ${name}`);
    return this.#inner.delete(namespace, name);
  }
  get(...keys: string[]): T[] {
    return this.#inner.get(...keys);
  }
  list(): T[] {
    return this.#inner.list();
  }
  resourceVersionOf(namespace: string, name: string): string | undefined {
    return this.#inner.resourceVersionOf(namespace, name);
  }
  peek(namespace: string, name: string): T | undefined {
    return this.#inner.peek(namespace, name);
  }
  identities(): Iterable<[namespace: string, name: string]> {
    return this.#inner.identities();
  }
  clear(): void {
    this.journal.push("clear");
    this.#inner.clear();
  }
}

/** What a journal factory made, with what it was given. */
interface Made {
  readonly context: StoreContext<KubeObject>;
  readonly store: JournalStore<KubeObject>;
}

/** The backend's factory: everything a Watcher needs to use it. */
function journalStore(made: Made[], shareable = true): StoreFactory {
  return {
    name: "journal",
    shareable,
    create<T extends KubeObjectLike>(context: StoreContext<T>): Store<T> {
      const store = new JournalStore<T>(context.keyCount);
      made.push({ context, store } as unknown as Made);
      return store;
    },
  };
}

Deno.test("A store backend defined in one file: a Watcher writes it, reads it and hands it what it needs", async () => {
  const made: Made[] = [];
  await using h = new Harness({
    config: { store: journalStore(made), ignoreFields: ["data.secret"] },
    seed: (server) => {
      server.create(CONFIGMAPS, configMap("shop", "a"));
      server.create(CONFIGMAPS, configMap("shop", "b"));
    },
  });
  assert.equal(await h.watcher.waitForSync(), 2);
  await h.waitForWatches(1);
  assert.equal(made.length, 1, "one store per watcher");
  const [{ context, store }] = made;
  assert.deepEqual(
    [context.gvr, context.indexBy, context.keyCount],
    [CONFIGMAPS, BY_IDENTITY, 2],
  );
  assert.equal(context.client, h.client);
  assert.equal(context.clock, h.clock);
  const fetched = { ...configMap("shop", "c"), data: { secret: "x", v: "1" } };
  assert.deepEqual(context.prepare(fetched)?.data, { v: "1" }, "ignoreFields");
  context.logger.warn("From the store");
  assert.equal(h.logger.at("warn")[0].fields.resource, "configmaps");

  h.server.patch("configmaps", "shop", "a", { data: { v: "2" } });
  h.server.delete("configmaps", "shop", "b");
  await waitFor(() => store.journal.length === 4);
  assert.deepEqual(store.journal, ["add a", "add b", "update a", "delete b"]);
  // The watcher's store reads the backend.
  const [a] = await h.watcher.store.get("shop");
  assert.equal(a, store.peek("shop", "a"));
  assert.deepEqual(a.data, { v: "2" });
  assert.equal(h.watcher.store.size, 1);
});

/** A server with objects and watchers of one form on one client. */
class Fixture extends ServerFixture {
  constructor() {
    super();
    for (const name of ["a", "b", "c"]) {
      this.server.create(CONFIGMAPS, configMap("shop", name));
    }
  }

  watcher(config: Partial<AnyWatcherConfig> = {}): AnyWatcher {
    const watcher = new Watcher(
      {
        gvr: CONFIGMAPS,
        indexBy: BY_IDENTITY,
        onChange: () => {},
        ...config,
      } as AnyWatcherConfig,
      this.client,
      this.options,
    );
    this.watchers.push(watcher);
    watcher.start();
    return watcher;
  }
}

Deno.test("A shareable backend shares the stream but keeps its own store; one that is not gets a stream of its own", async () => {
  await using f = new Fixture();
  const shared: Made[] = [];
  const alone: Made[] = [];
  const plain = f.watcher();
  const named = f.watcher({ store: memoryStore() });
  const journal = f.watcher({ store: journalStore(shared) });
  const refs = f.watcher({ store: journalStore(alone, false) });
  for (const w of [plain, named, journal, refs]) {
    assert.equal(await w.waitForSync(), 3);
  }
  assert.equal(f.lists(), 2, "one LIST for the shareable, one for the other");
  for (const w of [plain, named, journal]) {
    assert.deepEqual(w.health().shared, { consumers: 3 });
    assert.equal(w.health().notShared, undefined);
  }
  assert.deepEqual(
    [refs.health().shared, refs.health().notShared],
    [false, "store: journal"],
  );
  // Each journal store was written by the stream it reads.
  for (const { store } of [...shared, ...alone]) {
    assert.deepEqual(store.journal, ["add a", "add b", "add c"]);
  }
  assert.equal((await plain.store.get("shop")).length, 3);
  assert.equal(memoryStore(), memoryStore(), "one value: the default's");
});

Deno.test("store: cachedStore({ ttl }) keeps references, GETs on read and does not share", async () => {
  await using f = new Fixture();
  const plain = f.watcher();
  const cached = f.watcher({
    store: cachedStore({ ttl: 60_000 }),
    transform: (obj: KubeObject) => ({ ...obj, seen: true }),
  });
  await plain.waitForSync();
  assert.equal(await cached.waitForSync(), 3);
  assert.equal(f.lists(), 2);
  assert.deepEqual(
    [cached.health().shared, cached.health().notShared],
    [false, "store: cached"],
  );
  const gets = () => f.server.requests.filter((r) => r.verb === "get").length;
  assert.equal(gets(), 0, "listing GETs nothing");
  const [a] = await cached.store.get("shop", "a");
  assert.equal((a as KubeObject & { seen?: boolean }).seen, true);
  await cached.store.get("shop", "a");
  assert.equal(gets(), 1, "the second read comes from the cache");
});

Deno.test("store must be a store factory; storeType and cacheTTL are gone", () => {
  const client = new FetchClient({ server: "http://127.0.0.1:1" });
  const valid: AnyWatcherConfig = {
    gvr: CONFIGMAPS,
    indexBy: BY_IDENTITY,
    onChange: () => {},
  };
  const throwing: StoreFactory = {
    name: "broken",
    shareable: true,
    create: () => {
      throw new Error("No disk");
    },
  };
  const cases: [string, Partial<AnyWatcherConfig>, RegExp][] = [
    ["store", { store: {} as StoreFactory }, /must be a store factory/],
    ["store", { store: "memory" as never }, /must be a store factory/],
    ["store", { store: throwing }, /No disk/],
    [
      "storeType",
      { storeType: "memory" } as never,
      /is not a Watcher config option/,
    ],
    [
      "cacheTTL",
      { store: cachedStore(), cacheTTL: 1_000 } as never,
      /is not a Watcher config option/,
    ],
  ];
  for (const [field, change, message] of cases) {
    assert.throws(
      () =>
        new Watcher({ ...valid, ...change }, client, {
          logger: new RecordingLogger(),
        }),
      (error: unknown) => {
        assert.ok(error instanceof WatcherConfigError, String(error));
        assert.equal(error.field, field, JSON.stringify(change));
        assert.match(error.message, message);
        return true;
      },
    );
  }
});
