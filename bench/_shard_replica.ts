/**
 * One replica of `bench/shards.ts`, in a process of its own so that its
 * heap and CPU time are its own: a `Controller` of ConfigMaps with a
 * no-op reconcile, unsharded, sharded by a `ShardRing` (server-side or
 * client-side, as the server answers), or by a label selector
 * (`shard=<n>`, the label-shard row).
 *
 * The steps, each told to the orchestrator by one line on stdout and the
 * next one started by a line on stdin (so that every replica of a run syncs
 * at the same time, measures its reconcile throughput alone, and sees the
 * flood start with the others):
 * 1. `READY`: a ring member once the ring holds every replica and the
 *    hand-off is over (its permitted ranges are its assigned ones); at
 *    once otherwise. Waits for `go`.
 * 2. The sync: from the controller's start until every key it holds was
 *    reconciled once and the queue is empty. Then the retained heap
 *    (`--expose-gc`, collections until settled, minus the heap before the
 *    client was made) and the CPU time of 2 s idle. `SYNCED`.
 * 3. On `rate`: the reconcile throughput, `reconcileAll()` until every held
 *    key was reconciled again (the others idle meanwhile). `RATED`.
 * 4. On `flood` (the server then updates every ConfigMap once): until
 *    every held ConfigMap was reconciled with the flood's mark
 *    (`data.flood`). `RESULT {…}`, then exit.
 *
 * CPU time is the process's user + system time (`process.cpuUsage()`),
 * of step 2 up to the heap measurement (the collections excluded) and of
 * step 4.
 *
 * Usage: `deno run -A --v8-flags=--expose-gc bench/_shard_replica.ts '<task JSON>'`.
 *
 * @module
 */

import process from "node:process";
import { FetchClient } from "../client/mod.ts";
import { Controller } from "../controller/mod.ts";
import { silentLogger } from "../logger.ts";
import { ShardRing } from "../sharding/mod.ts";
import { fail, now, settledHeap } from "./_contender.ts";

/** What the orchestrator asks of a replica. */
export interface ReplicaTask {
  /** The fake API server's URL. */
  server: string;
  /** `single`: no shard; `ring`: a `ShardRing` of `replicas`; `label`: `shard=<label>`. */
  mode: "single" | "ring" | "label";
  /** The ring member's identity (`ring`). */
  identity?: string;
  /** Members the ring waits for (`ring`). */
  replicas?: number;
  /** The label value (`label`). */
  label?: number;
  /**
   * A ring member that starts no controller, so that another member can be
   * measured with no other replica working beside it.
   */
  memberOnly?: boolean;
  /** Profiled: spin in `floodStartMarker` for 20 ms as the flood starts. */
  marker?: boolean;
  /** Give up after this many ms. */
  timeoutMs: number;
}

/** What a replica reports. */
export interface ReplicaOutcome {
  /** ConfigMaps held after the sync. */
  objects: number;
  /** ms from the controller's start to every key reconciled once. */
  syncMs: number;
  /** Heap in use after collections: before the client, after the sync. */
  heapBefore: number;
  heapAfter: number;
  /** CPU ms (user + system) of the sync, and of the flood. */
  cpuSyncMs: number;
  cpuFloodMs: number;
  /** `reconcileAll()`: keys reconciled per second. */
  reconcilesPerSecond: number;
  /** ms from `flood` to every held key reconciled with the flood's mark. */
  floodMs: number;
  /** Times the process was preempted during the flood (Linux). */
  floodPreempted: number;
  /** The 1-minute load average as the flood ended. */
  floodLoad: number;
  /** Reconciles the flood caused (a key reconciled once per batch it is in). */
  floodReconciles: number;
  /** CPU ms per second while idle after the sync (ring renewals, timers). */
  cpuIdleMsPerS: number;
  /** Events (changes) the primary watcher received in all, and dropped. */
  skipped: number;
  /** `health().shard.mode` of the primary watcher, if sharded. */
  shardMode?: string;
  /** Views the watcher saw; more than 1 means the ring moved mid-run. */
  viewChanges?: number;
  rss: number;
}

const task = JSON.parse(Deno.args[0] ?? "{}") as ReplicaTask;
if (!task.server || !task.mode) {
  fail("expected a JSON task as the first argument");
}
setTimeout(
  () => fail(`timed out after ${task.timeoutMs} ms (${task.mode})`),
  task.timeoutMs,
);

const stdinLines = (async function* () {
  let buffer = "";
  for await (
    const chunk of Deno.stdin.readable.pipeThrough(new TextDecoderStream())
  ) {
    buffer += chunk;
    let nl: number;
    while ((nl = buffer.indexOf("\n")) >= 0) {
      yield buffer.slice(0, nl).trim();
      buffer = buffer.slice(nl + 1);
    }
  }
})();
async function expect(command: string): Promise<void> {
  const { value, done } = await stdinLines.next();
  if (done || value !== command) {
    fail(`expected ${command} on stdin, got ${done ? "its end" : value}`);
  }
}
/** Times the kernel took the CPU from this process (`/proc`; 0 elsewhere). */
function preempted(): number {
  try {
    const status = Deno.readTextFileSync("/proc/self/status");
    return Number(
      /^nonvoluntary_ctxt_switches:\s*(\d+)/m.exec(status)?.[1] ?? 0,
    );
  } catch {
    return 0;
  }
}
const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

const heapBefore = await settledHeap();
const client = new FetchClient({ server: task.server });
let ring: ShardRing | undefined;
if (task.mode === "ring") {
  ring = new ShardRing(
    {
      name: "bench",
      namespace: "default",
      identity: task.identity!,
      // Renewals every 500 ms (2 s by default): the ring forms in seconds.
      retryPeriodMs: 500,
    },
    client,
    { logger: silentLogger },
  );
  void ring.start();
  const replicas = task.replicas ?? 1;
  for (;;) {
    const { members, assigned, permitted } = ring.state;
    if (
      members.length === replicas && assigned.length > 0 &&
      JSON.stringify(assigned, big) === JSON.stringify(permitted, big)
    ) break;
    await new Promise((r) => setTimeout(r, 50));
  }
}
function big(_key: string, value: unknown): unknown {
  return typeof value === "bigint" ? value.toString(16) : value;
}
console.log("READY");
await expect("go");
if (task.memberOnly) {
  // A member that watches nothing: it only holds its Lease (and its share).
  console.log("SYNCED");
  await expect("rate");
  console.log("RATED");
  await expect("flood");
  await expect("end");
  console.log(`RESULT ${JSON.stringify({ memberOnly: true })}`);
  Deno.exit(0);
}

/** Keys reconciled, counted; what a phase waits for. */
let reconciles = 0;
let target = Infinity;
let reachedAt = 0;
let onReached: () => void = () => {};
const flooded = new Set<string>();
let floodTarget = Infinity;
let onFlooded: () => void = () => {};

const controller = new Controller(
  {
    name: "bench",
    for: {
      gvr: { group: "", version: "v1", resource: "configmaps" },
      labelSelector: task.mode === "label" ? `shard=${task.label}` : undefined,
    },
    shard: ring,
    reconcile: (key, { get }) => {
      if (++reconciles === target) {
        reachedAt = now();
        onReached();
      }
      const data = get()?.data as { flood?: string } | undefined;
      if (data?.flood === "1" && !flooded.has(key)) {
        flooded.add(key);
        if (flooded.size === floodTarget) onFlooded();
      }
    },
  },
  client,
  { logger: silentLogger },
);

function held(): number {
  const [primary] = Object.values(controller.health().watchers);
  return primary.objects;
}
function quiet(): boolean {
  const h = controller.health();
  return h.synced && h.queue.waiting === 0 && h.queue.processing === 0 &&
    h.workers.active === 0;
}
/**
 * Spins 20 ms in a function named `name`, which a CPU profile shows: where
 * a phase's samples begin (`bench/shards_profile.ts`).
 */
function spin(name: "rateStartMarker" | "floodStartMarker"): void {
  const markers = {
    rateStartMarker(): void {
      const end = now() + 20;
      while (now() < end) { /* spin */ }
    },
    floodStartMarker(): void {
      const end = now() + 20;
      while (now() < end) { /* spin */ }
    },
  };
  markers[name]();
}

/** Polls `condition` every 25 ms (fine enough for syncs of seconds). */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((r) => setTimeout(r, 25));
}
const IDLE_MS = 2_000;

// 2. The sync.
const cpu0 = cpuMs();
const t0 = now();
void controller.start();
await until(() => quiet() && reconciles >= held());
const syncMs = now() - t0;
const cpuSyncMs = cpuMs() - cpu0;
const objects = held();
const heapAfter = await settledHeap();

// CPU while nothing changes (ring renewals, timers), per second.
const cpuIdle0 = cpuMs();
await new Promise((r) => setTimeout(r, IDLE_MS));
const cpuIdleMsPerS = (cpuMs() - cpuIdle0) / (IDLE_MS / 1000);
console.log("SYNCED");

// The reconcile throughput, one replica at a time.
await expect("rate");
const before = reconciles;
target = before + objects;
const reached = new Promise<void>((r) => onReached = r);
if (task.marker) spin("rateStartMarker");
const t1 = now();
controller.reconcileAll();
await reached;
const reconcilesPerSecond = objects / ((reachedAt - t1) / 1000);
await until(quiet);
console.log("RATED");

// 3. The flood.
await expect("flood");
floodTarget = objects;
const floodDone = new Promise<void>((r) => onFlooded = r);
if (task.marker) spin("floodStartMarker");
const cpu1 = cpuMs();
const preempted1 = preempted();
const reconcilesBeforeFlood = reconciles;
const t2 = now();
await floodDone;
const floodReconciles = reconciles - reconcilesBeforeFlood;
const floodMs = now() - t2;
const cpuFloodMs = cpuMs() - cpu1;
const floodPreempted = preempted() - preempted1;
const floodLoad = Deno.loadavg()[0];

const [watcherHealth] = Object.values(controller.health().watchers);
const outcome: ReplicaOutcome = {
  objects,
  syncMs,
  heapBefore,
  heapAfter,
  cpuSyncMs,
  cpuFloodMs,
  reconcilesPerSecond,
  floodMs,
  cpuIdleMsPerS,
  floodReconciles,
  floodPreempted,
  floodLoad,
  skipped: watcherHealth.shard?.skipped ?? 0,
  shardMode: watcherHealth.shard?.mode,
  viewChanges: watcherHealth.shard?.viewChanges,
  rss: Deno.memoryUsage().rss,
};
console.log(`RESULT ${JSON.stringify(outcome)}`);
Deno.exit(0);
