// Watchers given a ShardRing (the `shard` option) on the FakeApiServer, with
// the server's ShardedListAndWatch on (server-side) and off (client-side):
// three sharded watchers together see exactly what one unsharded watcher
// sees, no object twice; when a member leaves, its objects reach the others
// as created and nobody is told of a deletion; each mode is visible in
// health(), in the metric and in one log line.
import assert from "node:assert/strict";
import { FetchClient } from "../client/fetch_client.ts";
import { Watcher } from "../watcher/watcher.ts";
import type { ShardFilter } from "../watcher/shard_filter.ts";
import type { ChangeBatch } from "../watcher/change_batch.ts";
import { ShardRing } from "../sharding/shard_ring.ts";
import {
  FakeApiServer,
  FakeClock,
  mockFetch,
  RecordingLogger,
} from "../testing/mod.ts";
import { MetricsRegistry } from "../metrics/registry.ts";
import type { KubeObject } from "../types.ts";

const GVR = { group: "", version: "v1", resource: "configmaps" };
const TIMINGS = {
  leaseDurationMs: 15_000,
  renewDeadlineMs: 10_000,
  retryPeriodMs: 2_000,
};

// A ShardRing is a ShardFilter: the watcher's option takes it as it is.
const _fits: (ring: ShardRing) => ShardFilter = (ring) => ring;

/** One replica: its ring, its sharded watcher, and what it was told. */
interface Replica {
  identity: string;
  ring: ShardRing;
  watcher: Watcher<KubeObject>;
  logger: RecordingLogger;
  created: string[];
  deleted: string[];
  modified: string[];
  running: Promise<void>;
  ringRunning: Promise<void>;
}

class Setup implements AsyncDisposable {
  readonly clock = new FakeClock({ now: 1_700_000_000_000 });
  readonly server: FakeApiServer;
  readonly registry = new MetricsRegistry();
  readonly #fetch: Disposable;
  readonly client: FetchClient;
  readonly replicas: Replica[] = [];
  reference!: Watcher<KubeObject>;
  #referenceRun: Promise<void> = Promise.resolve();

  constructor(sharded: boolean) {
    this.server = new FakeApiServer({
      clock: this.clock,
      initialResourceVersion: 100,
      shardedListAndWatch: sharded,
    });
    this.#fetch = mockFetch(this.server);
    this.client = new FetchClient({ server: this.server.url });
  }

  seed(count: number): void {
    for (let i = 0; i < count; i++) {
      this.server.create("configmaps", {
        metadata: { name: `cm-${i}`, namespace: "app" },
        data: { n: String(i) },
      });
    }
  }

  startReference(): void {
    this.reference = new Watcher<KubeObject>(
      {
        gvr: GVR,
        indexBy: ["metadata.namespace", "metadata.name"],
        onChange: () => {},
      },
      this.client,
      { clock: this.clock },
    );
    this.#referenceRun = this.reference.start();
  }

  replica(identity: string): Replica {
    const logger = new RecordingLogger();
    const ring = new ShardRing(
      { name: "widgets", namespace: "shop", identity, ...TIMINGS },
      this.client,
      { clock: this.clock, random: () => 0.5 },
    );
    const replica: Replica = {
      identity,
      ring,
      logger,
      created: [],
      deleted: [],
      modified: [],
      watcher: undefined as unknown as Watcher<KubeObject>,
      running: Promise.resolve(),
      ringRunning: Promise.resolve(),
    };
    replica.watcher = new Watcher<KubeObject>(
      {
        gvr: GVR,
        indexBy: ["metadata.namespace", "metadata.name"],
        shard: ring,
        name: identity,
        onChange: (_store, batch: ChangeBatch<KubeObject>) => {
          const name = (o: KubeObject) => o.metadata.name!;
          replica.created.push(...batch.objects.created.map(name));
          replica.modified.push(
            ...batch.objects.modified.map((m) => name(m.current)),
          );
          replica.deleted.push(...batch.objects.deleted.map(name));
        },
      },
      this.client,
      { clock: this.clock, logger, meter: this.registry },
    );
    replica.ringRunning = ring.start();
    replica.running = replica.watcher.start();
    this.replicas.push(replica);
    return replica;
  }

  /** Moves the fake clock until `predicate` holds, or throws. */
  async until(predicate: () => boolean, maxMs: number, what: string) {
    const start = this.clock.now();
    await this.clock.tick(0);
    while (!predicate()) {
      if (this.clock.now() - start >= maxMs) {
        throw new Error(`${what}: not reached within ${maxMs} ms`);
      }
      await this.clock.tick(100);
    }
  }

  async [Symbol.asyncDispose](): Promise<void> {
    const stops = [
      ...this.replicas.map((r) => r.watcher.stop()),
      ...this.replicas.map((r) => r.ring.stop()),
      this.reference?.stop(),
    ];
    const all = Promise.all(stops);
    let done = false;
    void all.finally(() => done = true);
    for (let i = 0; i < 600 && !done; i++) await this.clock.tick(100);
    await all;
    await Promise.all([
      ...this.replicas.flatMap((r) => [r.running, r.ringRunning]),
      this.#referenceRun,
    ]);
    this.client.close();
    this.#fetch[Symbol.dispose]();
    await this.server.close();
  }
}

const names = (w: Watcher<KubeObject>) =>
  w.store.list().map((o) => o.metadata.name!).sort();

/** Every replica's store is disjoint from the others', and together they hold what the reference holds. */
function partitioned(setup: Setup, replicas: Replica[]): boolean {
  const seen = new Set<string>();
  for (const r of replicas) {
    for (const name of names(r.watcher)) {
      if (seen.has(name)) return false;
      seen.add(name);
    }
  }
  const all = names(setup.reference);
  return seen.size === all.length && all.every((n) => seen.has(n));
}

function assertPartitioned(setup: Setup, replicas: Replica[]): void {
  const stores = replicas.map((r) => names(r.watcher));
  const union = stores.flat().sort();
  assert.deepEqual(union, names(setup.reference), "the union is everything");
  assert.equal(new Set(union).size, union.length, "no object twice");
}

for (const sharded of [true, false]) {
  const mode = sharded ? "server" : "client";
  Deno.test(`three sharded watchers (${mode}-side) see together exactly what one unsharded watcher sees, and a hand-over reports no deletion`, async () => {
    await using setup = new Setup(sharded);
    setup.seed(60);
    setup.startReference();
    const replicas = ["a", "b", "c"].map((id) => setup.replica(id));
    await setup.until(
      () =>
        setup.reference.health().synced &&
        replicas.every((r) =>
          r.watcher.health().synced && r.ring.selector() !== ""
        ) && partitioned(setup, replicas),
      60_000,
      "three synced watchers share the objects",
    );
    assertPartitioned(setup, replicas);
    for (const r of replicas) {
      // Each holds a real share, not all and not nothing.
      const held = r.watcher.store.size;
      assert.ok(held > 0 && held < 60, `${r.identity} holds ${held}`);
      const shard = r.watcher.health().shard!;
      assert.equal(shard.mode, mode);
      assert.equal(shard.selector, r.ring.selector());
      const lines = r.logger.records.filter((l) =>
        l.message.startsWith("Watching only this shard")
      );
      assert.equal(lines.length, 1, `${r.identity}: one line of its mode`);
      assert.equal(lines[0].fields?.shardMode, mode);
    }
    const text = setup.registry.render();
    for (const id of ["a", "b", "c"]) {
      assert.match(
        text,
        new RegExp(
          `k8s_watcher_shard_server_side\\{[^}]*watcher="${id}"[^}]*\\} ${
            sharded ? 1 : 0
          }`,
        ),
      );
    }

    // Changes: each reaches exactly one replica, the owner.
    const eventsBefore = replicas.map((r) => r.watcher.health().events);
    const referenceBefore = setup.reference.health().events;
    for (let i = 0; i < 10; i++) {
      setup.server.patch("configmaps", "app", `cm-${i}`, {
        data: { n: `changed-${i}` },
      });
    }
    setup.server.delete("configmaps", "app", "cm-59");
    setup.server.create("configmaps", {
      metadata: { name: "cm-new", namespace: "app" },
    });
    await setup.until(
      () =>
        names(setup.reference).includes("cm-new") &&
        partitioned(setup, replicas) &&
        replicas.flatMap((r) => r.modified).length === 10,
      30_000,
      "the changes delivered",
    );
    assertPartitioned(setup, replicas);
    assert.deepEqual(
      replicas.flatMap((r) => r.modified).sort(),
      Array.from({ length: 10 }, (_, i) => `cm-${i}`).sort(),
    );
    assert.deepEqual(replicas.flatMap((r) => r.deleted), ["cm-59"]);
    // What each replica's watch carried: server-side, its share; client-side,
    // everything (and it dropped the others').
    const received = replicas.map((r, i) =>
      r.watcher.health().events - eventsBefore[i]
    );
    const all = setup.reference.health().events - referenceBefore;
    assert.equal(all, 12);
    if (sharded) {
      assert.equal(received.reduce((a, b) => a + b, 0), all);
    } else {
      assert.deepEqual(received, [all, all, all]);
      for (const r of replicas) {
        assert.ok(r.watcher.health().shard!.skipped > 0);
      }
    }

    // Hand-over: c leaves the ring; its watcher gives everything up, a and
    // b list again and pick their new ranges up (c's, and part of each
    // other's: one contiguous range each), as created; nobody is told of a
    // deletion.
    const [a, b, c] = replicas;
    const deletedBefore = replicas.map((r) => r.deleted.length);
    const heldBefore = replicas.map((r) => names(r.watcher));
    const createdBefore = replicas.map((r) => r.created.length);
    const gained = () =>
      [a, b].map((r, i) =>
        names(r.watcher).filter((n) => !heldBefore[i].includes(n))
      );
    const stopping = c.ring.stop();
    await setup.until(
      () =>
        c.watcher.store.size === 0 && partitioned(setup, [a, b]) &&
        [a, b].every((r, i) =>
          r.created.length - createdBefore[i] === gained()[i].length
        ),
      60_000,
      "c's objects moved to a and b",
    );
    await stopping;
    assertPartitioned(setup, [a, b]);
    assert.deepEqual(
      replicas.map((r) => r.deleted.length),
      deletedBefore,
      "no deletion reported on the hand-over",
    );
    [a, b].forEach((r, i) =>
      assert.deepEqual(
        r.created.slice(createdBefore[i]).sort(),
        gained()[i],
        `${r.identity}: what it gained arrives as created`,
      )
    );
    assert.ok(
      heldBefore[2].every((n) => gained().flat().includes(n)),
      "c's objects went to a or b",
    );
    assert.equal(c.watcher.health().shard!.released, heldBefore[2].length);
    assert.equal(c.watcher.health().shard!.selector, "");
    // What a and b gave each other is released, not deleted.
    const released = [a, b].reduce(
      (sum, r) => sum + r.watcher.health().shard!.released,
      0,
    );
    const lost = [a, b].reduce(
      (sum, r, i) =>
        sum +
        heldBefore[i].filter((n) => !names(r.watcher).includes(n)).length,
      0,
    );
    assert.ok(lost > 0, "a and b moved keys between them too");
    assert.equal(released, lost);
    for (const r of [a, b]) {
      assert.ok(r.watcher.health().shard!.viewChanges >= 2);
    }
  });
}
