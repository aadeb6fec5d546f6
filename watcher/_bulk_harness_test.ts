/**
 * Shared set-up for the end-to-end tests of the bulk `Watcher`: a
 * `FakeApiServer` on a `FakeClock`, `fetch` mocked to it, a `FetchClient`,
 * and a watcher whose callbacks are recorded. Named `_test.ts` so that it is
 * never published; it holds no tests itself.
 *
 * @module
 */
import assert from "node:assert/strict";
import type { ChangeStats, KubeObject, StoreReads } from "../types.ts";
import type { ChangeBatch } from "./change_batch.ts";
import { FetchClient } from "../client/fetch_client.ts";
import {
  FakeApiServer,
  type FakeApiServerOptions,
} from "../testing/fake_api_server.ts";
import { mockFetch } from "../testing/mock_fetch.ts";
import { FakeClock, waitFor } from "../testing/fake_clock.ts";
import { RecordingLogger } from "../testing/recording_logger.ts";
import { seeded } from "../testing/_seeded_random.ts";
import type { RequestRecord } from "../testing/request_record.ts";
import { Watcher } from "./watcher.ts";
import type { WatcherConfig, WatcherOptions } from "./watcher_config.ts";

/** A config for any store backend (the tests switch backends freely). */
export type AnyWatcherConfig = WatcherConfig<KubeObject, StoreReads>;
/** A watcher of any store backend. */
export type AnyWatcher = Watcher<KubeObject, StoreReads>;
/** What a watcher's callbacks receive as their store. */
type WatcherStore = Parameters<NonNullable<AnyWatcherConfig["onChange"]>>[0];

/** The resource most tests watch. */
export const CONFIGMAPS = { group: "", version: "v1", resource: "configmaps" };

/** Indexing by identity, as most users do. */
export const BY_IDENTITY = ["metadata.namespace", "metadata.name"];

/** A ConfigMap with optional labels and data. */
export function configMap(
  namespace: string,
  name: string,
  extra: { labels?: Record<string, string>; data?: Record<string, string> } =
    {},
): KubeObject {
  return {
    metadata: {
      namespace,
      name,
      ...(extra.labels ? { labels: extra.labels } : {}),
    },
    data: extra.data ?? { v: "0" },
  };
}

/** What the recorded callbacks saw. */
export interface Recorded {
  /** The counts of every onChange batch, in order. */
  readonly batches: ChangeStats[];
  /** Every onChange batch with its objects, in order. */
  readonly full: ChangeBatch[];
  /** Every onSyncComplete count, in order. */
  readonly syncs: number[];
}

/** Options of {@linkcode startHarness}. */
export interface HarnessOptions {
  /** Overrides of the watcher configuration (callbacks are wrapped). */
  config?: Partial<AnyWatcherConfig>;
  /** Options of the fake server (the clock is added). */
  server?: Omit<FakeApiServerOptions, "clock">;
  /** Watcher options (clock, logger and random are added unless given). */
  options?: WatcherOptions;
  /** Objects to create before the watcher starts. */
  seed?: (server: FakeApiServer) => void;
  /** Whether to call `start()` (default true). */
  start?: boolean;
  /** The client namespace. */
  clientNamespace?: string;
  /** The PRNG seed for jitter and watch timeouts (default 1). */
  randomSeed?: number;
}

/**
 * A fake API server on a fake clock, a client on it, and the watchers a
 * test adds to `watchers`: stopped on dispose, with no watch left open.
 * The tests of several watchers on one server extend it.
 */
export class ServerFixture implements AsyncDisposable {
  readonly clock: FakeClock = new FakeClock();
  readonly server: FakeApiServer = new FakeApiServer({ clock: this.clock });
  readonly logger: RecordingLogger = new RecordingLogger();
  readonly options: WatcherOptions = {
    clock: this.clock,
    logger: this.logger,
    random: seeded(1),
  };
  #fetch: Disposable = mockFetch(this.server);
  // Made after mockFetch, which it captures.
  readonly client: FetchClient = new FetchClient({ server: this.server.url });
  readonly watchers: AnyWatcher[] = [];

  /** The LISTs the server answered. */
  lists(): number {
    return this.server.requests.filter((r) => r.verb === "list").length;
  }

  /** The watches the server answered. */
  watches(): number {
    return this.server.requests.filter((r) => r.verb === "watch").length;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await Promise.all(this.watchers.map((w) => w.stop()));
    assert.equal(this.server.openWatchCount, 0, "no watch left open");
    await this.server.close();
    this.#fetch[Symbol.dispose]();
  }
}

/** A running watcher against a fake API server, all on one fake clock. */
export class Harness implements AsyncDisposable {
  readonly clock: FakeClock = new FakeClock();
  readonly server: FakeApiServer;
  readonly client: FetchClient;
  readonly logger: RecordingLogger = new RecordingLogger();
  readonly recorded: Recorded = { batches: [], full: [], syncs: [] };
  readonly watcher: AnyWatcher;
  /** The promise `start()` returned. */
  running: Promise<void> | undefined;
  #fetch: Disposable;
  #stopped = false;

  constructor(options: HarnessOptions = {}) {
    this.server = new FakeApiServer({ ...options.server, clock: this.clock });
    this.#fetch = mockFetch(this.server);
    try {
      options.seed?.(this.server);
      this.client = new FetchClient({
        server: this.server.url,
        namespace: options.clientNamespace,
      });
      const recorded = this.recorded;
      const user = options.config ?? {};
      const config: AnyWatcherConfig = {
        gvr: CONFIGMAPS,
        indexBy: BY_IDENTITY,
        debounceInterval: 1_000,
        ...user,
        onChange: (store: WatcherStore, batch: ChangeBatch) => {
          const { objects: _, ...counts } = batch;
          recorded.batches.push(counts);
          recorded.full.push(batch);
          return user.onChange?.(store, batch);
        },
        onSyncComplete: (store: WatcherStore, count: number) => {
          recorded.syncs.push(count);
          return user.onSyncComplete?.(store, count);
        },
      };
      this.watcher = new Watcher(config, this.client, {
        clock: this.clock,
        logger: this.logger,
        random: seeded(options.randomSeed ?? 1),
        ...options.options,
      });
      if (options.start ?? true) this.running = this.watcher.start();
    } catch (error) {
      this.#fetch[Symbol.dispose]();
      this.server[Symbol.dispose]();
      throw error;
    }
  }

  /** Sum of created - deleted over every batch. */
  get netCreated(): number {
    let n = 0;
    for (const b of this.recorded.batches) n += b.created - b.deleted;
    return n;
  }

  /** Requests of one verb from the server log. */
  requests(verb: string): RequestRecord[] {
    return this.server.requests.filter((r) =>
      r.verb === verb && r.resource === CONFIGMAPS.resource
    );
  }

  /** Waits until the server has answered `n` requests of `verb` in all. */
  async waitForRequests(verb: string, n: number): Promise<void> {
    await waitFor(() => this.requests(verb).length >= n, {
      description: `${n} ${verb} request(s) (have ${
        this.requests(verb).length
      })`,
    });
  }

  /** Waits until `n` onChange batches have been recorded. */
  async waitForBatches(n: number): Promise<void> {
    await waitFor(() => this.recorded.batches.length >= n, {
      description: `${n} onChange batch(es) (have ${
        JSON.stringify(this.recorded.batches)
      })`,
    });
  }

  /** Waits until the server holds as many watches as expected. */
  async waitForWatches(n: number): Promise<void> {
    await waitFor(() => this.server.openWatchCount === n, {
      description: `${n} open watch(es) (have ${this.server.openWatchCount})`,
    });
  }

  /** Stops the watcher, checks nothing is left open, closes the server. */
  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    let open = 0;
    try {
      await this.watcher.stop();
      await this.running;
      open = this.server.openWatchCount;
    } finally {
      await this.server.close();
      this.#fetch[Symbol.dispose]();
    }
    if (open !== 0) {
      throw new Error(`${open} watch(es) still open after stop()`);
    }
    // Every batch outside the initial sync lists exactly what it counts.
    for (const batch of this.recorded.full) {
      if (batch.isInitialSync) continue;
      const { created, modified, deleted } = batch.objects;
      if (
        created.length !== batch.created ||
        modified.length !== batch.modified || deleted.length !== batch.deleted
      ) {
        throw new Error(
          `Batch counts differ from its objects: ${JSON.stringify(batch)}`,
        );
      }
    }
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.stop();
  }
}

/**
 * A harness whose watcher has synced, delivered its initial batch and
 * opened its watch; stopped again when any of that fails.
 */
export async function syncedHarness(options: HarnessOptions): Promise<Harness> {
  const h = new Harness(options);
  try {
    await h.watcher.waitForSync();
    await h.waitForWatches(1);
    await h.waitForBatches(1);
  } catch (error) {
    await h.stop().catch(() => {});
    throw error;
  }
  return h;
}

/**
 * Store contents as `namespace/name@resourceVersion`, sorted; for
 * comparing with the server.
 */
export function identities(objects: readonly KubeObject[]): string[] {
  return objects
    .map((o) =>
      `${
        o.metadata.namespace ?? ""
      }/${o.metadata.name}@${o.metadata.resourceVersion}`
    )
    .sort();
}
