// Controllers given a ShardRing (the `shard` option) on the FakeApiServer,
// with the server's ShardedListAndWatch on (server-side) and off
// (client-side): three replicas together reconcile every key a lone
// controller reconciles, each key on one replica; when members join or
// leave, keys move, reconciles of keys that left are aborted and waited
// for, and no key is ever reconciled by two replicas at once.
import assert from "node:assert/strict";
import { FetchClient } from "../client/fetch_client.ts";
import { ShardRing } from "../sharding/shard_ring.ts";
import {
  FakeApiServer,
  FakeClock,
  mockFetch,
  RecordingLogger,
} from "../testing/mod.ts";
import { Controller } from "./controller.ts";
import type { ControllerShard, ReconcileContext } from "./controller_config.ts";

const GVR = { group: "", version: "v1", resource: "configmaps" };
const TIMINGS = {
  leaseDurationMs: 15_000,
  renewDeadlineMs: 10_000,
  retryPeriodMs: 2_000,
};
const RECONCILE_MS = 300;

/** One reconcile as it ran, on which replica. */
interface Interval {
  replica: string;
  key: string;
  start: number;
  end?: number;
  aborted?: boolean;
}

interface Replica {
  identity: string;
  ring?: ShardRing;
  controller: Controller;
  running: Promise<void>;
  ringRunning: Promise<void>;
}

class Setup implements AsyncDisposable {
  readonly clock = new FakeClock({ now: 1_700_000_000_000 });
  readonly server: FakeApiServer;
  readonly #fetch: Disposable;
  readonly client: FetchClient;
  readonly replicas: Replica[] = [];
  readonly intervals: Interval[] = [];
  /**
   * `replica/key` whose reconcile waits for this before it returns (or
   * for its signal); `release()` lets every one go.
   */
  readonly hold = new Map<string, Promise<void>>();
  #releases: (() => void)[] = [];

  /** Holds `replica`'s reconciles of `keys` until `release()`. */
  holdOn(replica: string, keys: readonly string[]): void {
    const held = new Promise<void>((resolve) => this.#releases.push(resolve));
    for (const key of keys) this.hold.set(`${replica}/${key}`, held);
  }

  release(): void {
    this.hold.clear();
    for (const release of this.#releases.splice(0)) release();
  }

  constructor(sharded: boolean) {
    this.server = new FakeApiServer({
      clock: this.clock,
      shardedListAndWatch: sharded,
    });
    this.#fetch = mockFetch(this.server);
    this.client = new FetchClient({ server: this.server.url });
  }

  seed(count: number): void {
    for (let i = 0; i < count; i++) {
      this.server.create("configmaps", {
        metadata: { name: `cm-${i}`, namespace: "app" },
      });
    }
  }

  /** A replica; without a ring, a lone controller of everything. */
  replica(identity: string, sharded = true): Replica {
    const ring = sharded
      ? new ShardRing(
        { name: "widgets", namespace: "shop", identity, ...TIMINGS },
        this.client,
        { clock: this.clock, random: () => 0.5, logger: new RecordingLogger() },
      )
      : undefined;
    const controller = new Controller(
      {
        name: identity,
        for: { gvr: GVR },
        ...(ring ? { shard: ring } : {}),
        reconcile: (key, context) => this.#reconcile(identity, key, context),
      },
      this.client,
      { clock: this.clock, logger: new RecordingLogger() },
    );
    const replica: Replica = {
      identity,
      ring,
      controller,
      ringRunning: ring?.start() ?? Promise.resolve(),
      running: controller.start(),
    };
    this.replicas.push(replica);
    return replica;
  }

  async #reconcile(
    replica: string,
    key: string,
    { signal }: ReconcileContext,
  ): Promise<void> {
    const interval: Interval = { replica, key, start: this.clock.now() };
    this.intervals.push(interval);
    try {
      // It works for RECONCILE_MS, longer while its key is held; it ends
      // early when its signal aborts.
      const aborted = new Promise<void>((resolve) =>
        signal.addEventListener("abort", () => resolve(), { once: true })
      );
      let timer: unknown;
      await Promise.race([
        aborted,
        new Promise<void>((resolve) =>
          timer = this.clock.setTimeout(resolve, RECONCILE_MS)
        ),
      ]);
      this.clock.clearTimeout(timer);
      const held = this.hold.get(`${replica}/${key}`);
      if (!signal.aborted && held) await Promise.race([aborted, held]);
    } finally {
      interval.end = this.clock.now();
      interval.aborted = signal.aborted;
    }
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

  /** The keys each replica reconciled to the end, not aborted. */
  reconciledBy(identity: string): Set<string> {
    return new Set(
      this.intervals.filter((i) =>
        i.replica === identity && i.end !== undefined && !i.aborted
      ).map((i) => i.key),
    );
  }

  /** Two replicas' reconciles of one key that overlapped in time. */
  overlaps(): string[] {
    const found: string[] = [];
    for (const a of this.intervals) {
      for (const b of this.intervals) {
        if (a === b || a.key !== b.key || a.replica >= b.replica) continue;
        const aEnd = a.end ?? Infinity;
        const bEnd = b.end ?? Infinity;
        if (a.start < bEnd && b.start < aEnd) {
          found.push(
            `${a.key}: ${a.replica} ${a.start}-${aEnd}, ${b.replica} ${b.start}-${bEnd}`,
          );
        }
      }
    }
    return found;
  }

  idle(): boolean {
    return this.replicas.every((r) => {
      const h = r.controller.health();
      return h.state !== "running" ||
        (h.synced && h.workers.active === 0 && h.queue.waiting === 0);
    });
  }

  async stop(replica: Replica): Promise<void> {
    const stopping = Promise.all([
      replica.controller.stop(),
      replica.ring?.stop(),
    ]);
    let done = false;
    void stopping.finally(() => done = true);
    for (let i = 0; i < 600 && !done; i++) await this.clock.tick(100);
    await stopping;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    this.release();
    await Promise.all(this.replicas.map((r) => this.stop(r)));
    await Promise.all(
      this.replicas.flatMap((r) => [r.running, r.ringRunning]),
    );
    this.client.close();
    this.#fetch[Symbol.dispose]();
    await this.server.close();
  }
}

const ALL = Array.from({ length: 30 }, (_, i) => `app/cm-${i}`).sort();

for (const sharded of [true, false]) {
  const mode = sharded ? "server" : "client";
  Deno.test(`three sharded controllers (${mode}-side) reconcile together what one controller alone does, each key on one replica`, async () => {
    let lone: string[];
    {
      await using alone = new Setup(sharded);
      alone.seed(30);
      alone.replica("alone", false);
      await alone.until(
        () => alone.reconciledBy("alone").size === 30 && alone.idle(),
        60_000,
        "the lone controller done",
      );
      lone = [...alone.reconciledBy("alone")].sort();
    }

    await using setup = new Setup(sharded);
    setup.seed(30);
    const replicas = ["a", "b", "c"].map((id) => setup.replica(id));
    const union = () =>
      replicas.flatMap((r) => [...setup.reconciledBy(r.identity)]);
    await setup.until(
      () => new Set(union()).size === 30 && setup.idle(),
      60_000,
      "every key reconciled",
    );
    assert.deepEqual([...new Set(union())].sort(), lone);
    assert.deepEqual([...new Set(union())].sort(), ALL);
    for (const r of replicas) {
      const share = setup.reconciledBy(r.identity).size;
      assert.ok(share > 0 && share < 30, `${r.identity} reconciled ${share}`);
      assert.equal(r.controller.health().watchers.configmaps.shard?.mode, mode);
    }
    assert.deepEqual(setup.overlaps(), []);
    // Each key once: nothing was reconciled on two replicas.
    assert.equal(union().length, 30);
  });

  Deno.test(`sharded controllers (${mode}-side): keys move when members join and leave, a reconcile of a key that leaves is aborted and waited for, none overlaps`, async () => {
    await using setup = new Setup(sharded);
    setup.seed(30);
    const [a, b] = ["a", "b"].map((id) => setup.replica(id));
    await setup.until(
      () =>
        new Set([...setup.reconciledBy("a"), ...setup.reconciledBy("b")])
            .size === 30 && setup.idle(),
      60_000,
      "a and b reconciled everything",
    );
    // Every key of b's is held in its reconcile until released, so the
    // hand-off to a joining member must abort them and wait.
    const bKeys = [...setup.reconciledBy("b")];
    setup.holdOn("b", bKeys);
    b.controller.reconcileAll();
    await setup.until(
      () => b.controller.health().workers.active > 0,
      10_000,
      "b busy",
    );
    const beforeJoin = setup.intervals.length;
    setup.replica("c");
    await setup.until(
      () => setup.reconciledBy("c").size > 0,
      60_000,
      "c works on its share",
    );
    // What c took from b was aborted on b before c began it.
    const moved = [...setup.reconciledBy("c")].filter((k) => bKeys.includes(k));
    assert.ok(moved.length > 0, "c took some of b's keys");
    const abortedOnB = setup.intervals.filter((i) =>
      i.replica === "b" && i.aborted && moved.includes(i.key)
    );
    assert.ok(abortedOnB.length > 0, "b's reconciles of moved keys aborted");
    setup.release();
    await setup.until(() => setup.idle(), 60_000, "quiet");
    // a only gave keys away: what stays with it is not reconciled again.
    assert.deepEqual(
      setup.intervals.slice(beforeJoin).filter((i) => i.replica === "a"),
      [],
    );
    // a leaves: its keys are reconciled by the others.
    const aKeys = setup.server.list("configmaps", "app")
      .filter((obj) => a.ring!.owns(obj))
      .map((obj) => `app/${obj.metadata.name}`);
    assert.ok(aKeys.length > 0, "a owns some keys");
    await setup.stop(a);
    const before = setup.intervals.length;
    await setup.until(
      () =>
        aKeys.every((k) =>
          setup.intervals.slice(before).some((i) =>
            i.key === k && i.end !== undefined && !i.aborted
          )
        ) && setup.idle(),
      60_000,
      "a's keys reconciled elsewhere",
    );
    assert.ok(
      setup.intervals.slice(before).every((i) => i.replica !== "a"),
      "nothing on a after it left",
    );
    assert.deepEqual(setup.overlaps(), []);
    assert.deepEqual(
      [...new Set([...setup.reconciledBy("b"), ...setup.reconciledBy("c")])]
        .filter((k) => aKeys.includes(k)).sort(),
      aKeys.sort(),
    );
  });
}

/**
 * A share driven by hand: it holds every object (nothing leaves the cache)
 * and may work on all but the objects whose uids are in `away`.
 */
class HandShard implements ControllerShard {
  readonly away = new Set<string>();
  #listeners = new Set<(state: unknown) => void | Promise<void>>();
  isAssigned(): boolean {
    return true;
  }
  owns(obj: { readonly metadata?: { readonly uid?: string } }): boolean {
    return !this.away.has(obj.metadata?.uid ?? "");
  }
  selector(): string {
    return "shardRange(object.metadata.uid, '0x0000000000000000', '0xffffffffffffffff')";
  }
  subscribe(listener: (state: unknown) => void | Promise<void>): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
  /** Tells the listeners and waits for them, as a ring does. */
  async changed(): Promise<void> {
    await Promise.all([...this.#listeners].map((l) => l(undefined)));
  }
}

for (const ending of ["returns", "throws"] as const) {
  Deno.test(`a reconcile cut short by its key leaving the shard (and that ${ending} when aborted) is reconciled again when the key comes back`, async () => {
    await using setup = new Setup(false);
    const { uid } = setup.server.create("configmaps", {
      metadata: { name: "cm-0", namespace: "app" },
    }).metadata;
    const shard = new HandShard();
    const runs: { start: number; end?: number; aborted?: boolean }[] = [];
    const controller = new Controller(
      {
        name: "hand",
        for: { gvr: GVR },
        shard,
        reconcile: async (_key, { signal }) => {
          const run: (typeof runs)[number] = { start: setup.clock.now() };
          runs.push(run);
          let timer: unknown;
          await new Promise<void>((resolve) => {
            timer = setup.clock.setTimeout(resolve, RECONCILE_MS);
            signal.addEventListener("abort", () => resolve(), { once: true });
          });
          setup.clock.clearTimeout(timer);
          run.end = setup.clock.now();
          run.aborted = signal.aborted;
          if (signal.aborted && ending === "throws") throw signal.reason;
        },
      },
      setup.client,
      { clock: setup.clock, logger: new RecordingLogger() },
    );
    const running = controller.start();
    try {
      await setup.until(() => runs.length === 1, 10_000, "first reconcile");
      // It leaves while reconciled: aborted.
      shard.away.add(uid!);
      await shard.changed();
      await setup.until(() => runs[0].end !== undefined, 10_000, "aborted");
      assert.equal(runs[0].aborted, true);
      await setup.clock.tick(1_000);
      assert.equal(runs.length, 1, "not reconciled while another's");
      // It comes back, unchanged: its cut-short reconcile is done again.
      shard.away.delete(uid!);
      await shard.changed();
      await setup.until(
        () => runs.some((r) => r.end !== undefined && !r.aborted),
        10_000,
        "reconciled to the end",
      );
      assert.equal(runs.length, 2);
    } finally {
      await controller.stop();
      await running;
    }
  });
}
