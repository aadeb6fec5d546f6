// Sharded Controllers as separate processes on a real kube-apiserver
// 1.37.2: each replica (_shard_replica.ts) runs a ShardRing and a Controller
// of the same 3,000 ConfigMaps, and reports every reconcile as it begins and
// ends, on the wall clock the processes share. The ring goes from three
// replicas to five (two join), loses one to SIGKILL (its Lease expires, its
// keys move to the others and are reconciled there), and two more leave
// gracefully (their Leases are deleted), ending with two. After each change
// the test waits until every live replica acknowledges the same members,
// holds exactly the ranges the ring computes for it, holds (caches) exactly
// its keys, and has reconciled every key that moved to it since the change.
// Then per key no two reconciles, on any replicas, overlap in time: a
// SIGKILLed process cannot reconcile, so the README's exception (an expired
// Lease whose holder is only partitioned) does not arise, and none is
// allowed. Run without the ShardedListAndWatch gate (client-side: every
// watch carries every event) and with it (server-side: each replica's watch
// carries only its share, counted by the watcher's `events`).
import assert from "node:assert/strict";
import { ControlPlane } from "../../testing/control_plane/mod.ts";
import {
  compileRanges,
  hashOf,
  inRanges,
  rangeOf,
  viewOf,
} from "../../sharding/_ring_view.ts";
import {
  CONFIGMAPS,
  create,
  createNamespace,
  eventually,
  inParallel,
  listAll,
  patch,
  planeTest,
} from "./_harness.ts";
import type { ReplicaConfig } from "./_shard_replica.ts";

const NAMESPACE = "shard-replicas";
const OBJECTS = 3_000;
const PATCHED = 300;
// Short, as in the other real-server tests, with room for a loaded 2-core
// machine running five replicas beside etcd and kube-apiserver.
const TIMINGS = {
  leaseDurationMs: 5_000,
  renewDeadlineMs: 3_500,
  retryPeriodMs: 700,
};
const RECONCILE_MS = 5;
const RUNNER = new URL("./_shard_replica.ts", import.meta.url);

/** One reconcile as a replica reported it, on the shared wall clock. */
interface Interval {
  replica: string;
  key: string;
  start: number;
  /** Undefined while running; a killed replica's ends at its exit. */
  end?: number;
  aborted?: boolean;
}

/** A replica's latest `state` line. */
interface ReplicaState {
  at: number;
  members: string[];
  assigned: [string, string][];
  permitted: [string, string][];
  synced: boolean;
  objects: number;
  events: number;
  mode: string | undefined;
  waiting: number;
  active: number;
}

/** Everything the replicas reported. */
class Reports {
  readonly intervals: Interval[] = [];
  readonly #running = new Map<string, Interval>();
  readonly states = new Map<string, ReplicaState>();

  line(text: string): void {
    const line = JSON.parse(text);
    if (line.type === "start") {
      const interval: Interval = {
        replica: line.replica,
        key: line.key,
        start: line.start,
      };
      this.intervals.push(interval);
      this.#running.set(`${line.replica} ${line.key} ${line.start}`, interval);
    } else if (line.type === "end") {
      const id = `${line.replica} ${line.key} ${line.start}`;
      const interval = this.#running.get(id);
      assert.ok(interval, `an end without a start: ${text}`);
      this.#running.delete(id);
      interval.end = line.end;
      interval.aborted = line.aborted;
    } else if (line.type === "state") {
      this.states.set(line.replica, line);
    }
  }

  /** A replica is gone at `at`: what it was running ends there. */
  gone(replica: string, at: number): void {
    for (const [id, interval] of this.#running) {
      if (interval.replica !== replica) continue;
      interval.end = at;
      interval.aborted = true;
      this.#running.delete(id);
    }
  }

  /** Per key, reconciles (on any replicas) that overlap in time. */
  overlaps(): string[] {
    const found: string[] = [];
    for (const [key, list] of Map.groupBy(this.intervals, (i) => i.key)) {
      const sorted = [...list].sort((a, b) => a.start - b.start);
      let last: Interval | undefined;
      for (const interval of sorted) {
        if (last && (last.end === undefined || last.end > interval.start)) {
          found.push(
            `${key}: ${last.replica} ${last.start}–${
              last.end ?? "…"
            } and ${interval.replica} from ${interval.start}`,
          );
        }
        if (!last || (last.end ?? Infinity) < (interval.end ?? Infinity)) {
          last = interval;
        }
      }
    }
    return found;
  }
}

/** One replica's process. */
class ReplicaProcess implements AsyncDisposable {
  readonly identity: string;
  stderr = "";
  /** When the test saw it exit (wall clock). */
  exitedAt: number | undefined;
  readonly #child: Deno.ChildProcess;
  readonly #stdin: WritableStreamDefaultWriter<Uint8Array>;
  #stdinClosed = false;
  readonly #done: Promise<Deno.CommandStatus>;

  constructor(identity: string, config: ReplicaConfig, record: Reports) {
    this.identity = identity;
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "--allow-all", "--quiet", RUNNER.pathname],
      env: { SHARD_REPLICA: JSON.stringify(config) },
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    this.#child = child;
    this.#stdin = child.stdin.getWriter();
    const reading = Promise.all([
      (async () => {
        let partial = "";
        for await (
          const chunk of child.stdout.pipeThrough(
            new TextDecoderStream(),
          )
        ) {
          const lines = (partial + chunk).split("\n");
          partial = lines.pop()!;
          for (const line of lines) if (line) record.line(line);
        }
      })(),
      (async () => {
        for await (
          const chunk of child.stderr.pipeThrough(
            new TextDecoderStream(),
          )
        ) {
          this.stderr += chunk;
        }
      })(),
    ]);
    this.#done = (async () => {
      const status = await child.status;
      this.exitedAt = Date.now();
      await reading;
      record.gone(identity, this.exitedAt);
      return status;
    })();
  }

  /** SIGKILL: nothing is released, its Lease expires. */
  async kill(): Promise<number> {
    this.#child.kill("SIGKILL");
    await this.#done;
    await this.#closeStdin();
    return this.exitedAt!;
  }

  /** Closes its stdin: it stops its controller and leaves the ring. */
  async stop(): Promise<void> {
    await this.#closeStdin();
    const status = await this.#done;
    assert.equal(status.code, 0, `${this.identity}: ${this.stderr}`);
  }

  async #closeStdin(): Promise<void> {
    if (this.#stdinClosed) return;
    this.#stdinClosed = true;
    await this.#stdin.close().catch(() => {});
  }

  async [Symbol.asyncDispose](): Promise<void> {
    if (this.exitedAt === undefined) {
      try {
        this.#child.kill("SIGKILL");
      } catch {
        // It exited already.
      }
    }
    await this.#done;
    await this.#closeStdin();
  }
}

/** The replicas a test started; all killed at its end if still running. */
class Fleet implements AsyncDisposable {
  readonly replicas = new Map<string, ReplicaProcess>();
  readonly record = new Reports();
  readonly #plane: ControlPlane;

  constructor(plane: ControlPlane) {
    this.#plane = plane;
  }

  spawn(...identities: string[]): void {
    for (const identity of identities) {
      this.replicas.set(
        identity,
        new ReplicaProcess(identity, {
          server: this.#plane.url,
          token: this.#plane.token(),
          caPem: this.#plane.caPem,
          identity,
          namespace: NAMESPACE,
          ring: "configmaps",
          ...TIMINGS,
          reconcileMs: RECONCILE_MS,
        }, this.record),
      );
    }
  }

  get(identity: string): ReplicaProcess {
    return this.replicas.get(identity)!;
  }

  stderr(): string {
    return [...this.replicas.values()]
      .filter((r) => r.stderr)
      .map((r) => `${r.identity}: ${r.stderr}`)
      .join("\n");
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await Promise.all(
      [...this.replicas.values()].map((r) => r[Symbol.asyncDispose]()),
    );
  }
}

const hex = (ranges: readonly { start: bigint; end: bigint }[]) =>
  ranges.map((r) => [r.start.toString(16), r.end.toString(16)]);

/** Which member of `live` the ring gives each key to. */
function owners(
  hashes: ReadonlyMap<string, ReturnType<typeof hashOf>>,
  live: readonly string[],
): Map<string, string> {
  const view = viewOf(live);
  const compiled = view.map((id) =>
    [id, compileRanges(rangeOf(view, id))] as const
  );
  const result = new Map<string, string>();
  for (const [key, hash] of hashes) {
    result.set(key, compiled.find(([, ranges]) => inRanges(ranges, hash))![0]);
  }
  return result;
}

const count = (owned: ReadonlyMap<string, string>) => {
  const counts: Record<string, number> = {};
  for (const owner of owned.values()) counts[owner] = (counts[owner] ?? 0) + 1;
  return Object.fromEntries(Object.entries(counts).sort());
};

/**
 * Waits until the live replicas agree on `live`, each holds and caches
 * exactly its keys and is idle, and every key whose owner changed since
 * `before` was reconciled to the end by its new owner since `since`.
 * Returns the new owners and how long after `since` the last moved key's
 * reconcile began.
 */
async function settle(
  fleet: Fleet,
  hashes: ReadonlyMap<string, ReturnType<typeof hashOf>>,
  live: readonly string[],
  mode: string,
  since: number,
  before: ReadonlyMap<string, string> | undefined,
): Promise<
  { owned: Map<string, string>; moved: number; lastMs: number; firstMs: number }
> {
  const view = viewOf(live);
  const owned = owners(hashes, live);
  const counts = count(owned);
  const moved = [...owned].filter(([key, owner]) => before?.get(key) !== owner);
  const { record } = fleet;
  let why = "";
  const agreed = () => {
    for (const id of view) {
      const s = record.states.get(id);
      const ranges = hex(rangeOf(view, id));
      if (!s || s.at < since) return why = `${id}: no state since the change`;
      if (JSON.stringify(s.members) !== JSON.stringify(view)) {
        return why = `${id} sees ${s.members}`;
      }
      if (JSON.stringify(s.assigned) !== JSON.stringify(ranges)) {
        return why = `${id} is assigned ${JSON.stringify(s.assigned)}`;
      }
      if (JSON.stringify(s.permitted) !== JSON.stringify(ranges)) {
        return why = `${id} may work on ${JSON.stringify(s.permitted)}`;
      }
      if (!s.synced || s.mode !== mode) {
        return why = `${id}: synced ${s.synced}, mode ${s.mode}`;
      }
      if (s.objects !== counts[id]) {
        return why = `${id} holds ${s.objects} objects, not ${counts[id]}`;
      }
      if (s.waiting !== 0 || s.active !== 0) {
        return why = `${id}: ${s.waiting} waiting, ${s.active} active`;
      }
    }
    return "";
  };
  const done = new Map<string, number>();
  const reconciled = () => {
    for (const i of record.intervals) {
      if (
        i.start >= since && i.end !== undefined && !i.aborted &&
        owned.get(i.key) === i.replica && !done.has(i.key) &&
        before?.get(i.key) !== i.replica
      ) {
        done.set(i.key, i.start);
      }
    }
    const left = moved.length - done.size;
    return left === 0 ? "" : why = `${left} moved keys not reconciled yet`;
  };
  await eventually(
    () => agreed() === "" && reconciled() === "",
    () => `${why} (members ${view}); ${fleet.stderr()}`,
    60_000,
  );
  const starts = [...done.values()];
  return {
    owned,
    moved: moved.length,
    firstMs: Math.min(...starts) - since,
    lastMs: Math.max(...starts) - since,
  };
}

async function scenario(mode: "client" | "server"): Promise<void> {
  const started = Date.now();
  await using plane = await ControlPlane.start(
    mode === "server"
      ? { apiServerArgs: ["--feature-gates=ShardedListAndWatch=true"] }
      : {},
  );
  using admin = plane.client();
  await createNamespace(admin, NAMESPACE);
  const names = Array.from({ length: OBJECTS }, (_, i) => `cm-${i}`);
  await inParallel(
    names,
    32,
    (name) => create(admin, CONFIGMAPS, NAMESPACE, { metadata: { name } }),
  );
  const created = Date.now();
  const hashes = new Map(
    (await listAll(admin, CONFIGMAPS, { namespace: NAMESPACE })).map((o) => [
      `${NAMESPACE}/${o.metadata.name}`,
      hashOf(o.metadata.uid),
    ]),
  );
  assert.equal(hashes.size, OBJECTS);

  await using fleet = new Fleet(plane);
  const lines: string[] = [];
  const note = (label: string, r: Awaited<ReturnType<typeof settle>>) =>
    lines.push(
      `${label}: ${JSON.stringify(count(r.owned))}, ${r.moved} keys moved, ` +
        `reconciled by their new owners ${r.firstMs}–${r.lastMs} ms after the change`,
    );

  // Three replicas.
  let since = Date.now();
  fleet.spawn("a", "b", "c");
  let r = await settle(fleet, hashes, ["a", "b", "c"], mode, since, undefined);
  note("3 replicas (from the start)", r);
  for (const n of Object.values(count(r.owned))) {
    assert.ok(n > 0 && n < OBJECTS);
  }

  // Each replica's watch: server-side only the changes of its share,
  // client-side every change.
  const events = () =>
    new Map(
      ["a", "b", "c"].map((id) => [id, fleet.record.states.get(id)!.events]),
    );
  const eventsBefore = events();
  const patched = names.slice(0, PATCHED);
  await inParallel(
    patched,
    32,
    (name) =>
      patch(admin, CONFIGMAPS, NAMESPACE, name, { data: { round: "1" } }),
  );
  const expected = new Map(
    ["a", "b", "c"].map((id) => [
      id,
      mode === "client"
        ? PATCHED
        : patched.filter((n) => r.owned.get(`${NAMESPACE}/${n}`) === id)
          .length,
    ]),
  );
  const carried = () =>
    [...events()].map(([id, n]) => [id, n - eventsBefore.get(id)!] as const);
  await eventually(
    () => carried().every(([id, n]) => n >= expected.get(id)!),
    () => `events ${JSON.stringify(carried())}, expected ${[...expected]}`,
  );
  // One more report from each, then the counts must not have grown.
  const checked = Date.now();
  await eventually(
    () =>
      ["a", "b", "c"].every((id) => fleet.record.states.get(id)!.at > checked),
    "fresh reports",
  );
  assert.deepEqual(new Map(carried()), expected);
  lines.push(
    `${PATCHED} changes: each watch carried ${
      JSON.stringify(Object.fromEntries(carried()))
    } events`,
  );

  // Two join: five.
  since = Date.now();
  fleet.spawn("d", "e");
  r = await settle(
    fleet,
    hashes,
    ["a", "b", "c", "d", "e"],
    mode,
    since,
    r.owned,
  );
  note("3 → 5 (d and e join)", r);

  // SIGKILL one: its Lease expires, its keys go to the others. None may
  // start before the Lease's last renewal is a lease duration old.
  const killedAt = await fleet.get("b").kill();
  const killedKeys = [...r.owned].filter(([, o]) => o === "b").length;
  const lease = await admin.performRequest({
    method: "GET",
    path:
      `/apis/coordination.k8s.io/v1/namespaces/${NAMESPACE}/leases/configmaps-b`,
    expectJson: true,
  }) as unknown as { spec: { renewTime: string } };
  const expiredAt = Date.parse(lease.spec.renewTime) + TIMINGS.leaseDurationMs;
  r = await settle(
    fleet,
    hashes,
    ["a", "c", "d", "e"],
    mode,
    killedAt,
    r.owned,
  );
  note(
    `5 → 4 (b SIGKILLed, it held ${killedKeys} keys; its Lease expired ${
      expiredAt - killedAt
    } ms after the kill)`,
    r,
  );
  assert.ok(
    killedAt + r.firstMs >= expiredAt,
    `a key moved ${r.firstMs} ms after the kill, before b's Lease expired (${
      expiredAt - killedAt
    } ms)`,
  );

  // Two leave gracefully: two.
  since = Date.now();
  await Promise.all([fleet.get("c").stop(), fleet.get("d").stop()]);
  r = await settle(fleet, hashes, ["a", "e"], mode, since, r.owned);
  note("4 → 2 (c and d stop)", r);

  assert.deepEqual(fleet.record.overlaps(), []);
  const reconciles = Map.groupBy(fleet.record.intervals, (i) => i.replica);
  console.log(
    `${mode}-side: ${OBJECTS} ConfigMaps created in ${created - started} ms ` +
      `(with the control plane's start); ${fleet.record.intervals.length} reconciles (${
        [...reconciles].sort().map(([id, l]) => `${id} ${l.length}`).join(", ")
      }), ${
        fleet.record.intervals.filter((i) => i.aborted).length
      } aborted, none overlapping; ${Date.now() - started} ms\n  ` +
      lines.join("\n  "),
  );
}

planeTest(
  "sharded Controllers in separate processes, client-side (no ShardedListAndWatch): 3,000 ConfigMaps, 3 → 5 replicas, one SIGKILLed, 2 left; no key reconciled by two at once",
  () => scenario("client"),
);

planeTest(
  "sharded Controllers in separate processes, server-side (ShardedListAndWatch): each watch carries only its share; 3 → 5 → 2 with a SIGKILL; no key reconciled by two at once",
  () => scenario("server"),
);
