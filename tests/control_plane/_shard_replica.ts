// One replica of a sharded Controller, run as a process of its own by
// shard_replicas_test.ts: a ShardRing on a real Lease and a Controller of
// the ConfigMaps of one namespace given that ring as its `shard`.
//
// Its configuration is one JSON value in the SHARD_REPLICA environment
// variable (see `ReplicaConfig`). It writes JSON lines on stdout, times in
// wall-clock ms (`Date.now()`, the clock the processes share):
//   {"type":"start","replica","key","start"}           a reconcile began
//   {"type":"end","replica","key","start","end","aborted"} and ended
//   {"type":"state","replica","at","members","assigned","permitted",
//    "synced","objects","events","mode","waiting","active"} every 200 ms
// (ranges as [start, end] hex strings). When its stdin closes (the test
// stops it, or the test process is gone) it stops gracefully: the
// controller, then the ring, which deletes its Lease; then it exits 0.
// SIGKILL leaves its Lease to expire.
import { FetchClient } from "../../client/fetch_client.ts";
import { Controller } from "../../controller/controller.ts";
import { silentLogger } from "../../logger.ts";
import { ShardRing } from "../../sharding/shard_ring.ts";
import type { ShardRange } from "../../sharding/shard_ring_config.ts";

/** What the test gives a replica. */
export interface ReplicaConfig {
  server: string;
  token: string;
  caPem: string;
  identity: string;
  namespace: string;
  ring: string;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
  /** How long each reconcile works (it waits, abortable). */
  reconcileMs: number;
}

const config = JSON.parse(Deno.env.get("SHARD_REPLICA") ?? "") as ReplicaConfig;
const replica = config.identity;
const encoder = new TextEncoder();
const out = Deno.stdout;

function emit(line: Record<string, unknown>): void {
  // Synchronous, whole lines: the test reads them in order, and a SIGKILL
  // cannot cut one in half after it was written.
  const bytes = encoder.encode(JSON.stringify(line) + "\n");
  let written = 0;
  while (written < bytes.length) {
    written += out.writeSync(bytes.subarray(written));
  }
}

const ranges = (rs: readonly ShardRange[]) =>
  rs.map((r) => [r.start.toString(16), r.end.toString(16)]);

const client = new FetchClient({
  server: config.server,
  token: config.token,
  caData: config.caPem,
});
const ring = new ShardRing(
  {
    name: config.ring,
    namespace: config.namespace,
    identity: replica,
    leaseDurationMs: config.leaseDurationMs,
    renewDeadlineMs: config.renewDeadlineMs,
    retryPeriodMs: config.retryPeriodMs,
  },
  client,
  { logger: silentLogger },
);
const controller = new Controller(
  {
    name: `configmaps-${replica}`,
    for: {
      gvr: { group: "", version: "v1", resource: "configmaps" },
      namespace: config.namespace,
    },
    shard: ring,
    maxConcurrent: 8,
    reconcile: async (key, { signal }) => {
      const start = Date.now();
      emit({ type: "start", replica, key, start });
      try {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, config.reconcileMs);
          signal.addEventListener("abort", () => {
            clearTimeout(timer);
            resolve();
          }, { once: true });
        });
      } finally {
        emit({
          type: "end",
          replica,
          key,
          start,
          end: Date.now(),
          aborted: signal.aborted,
        });
      }
    },
  },
  client,
  { logger: silentLogger },
);

function report(): void {
  const health = controller.health();
  const watcher = health.watchers["configmaps"];
  const state = ring.state;
  emit({
    type: "state",
    replica,
    at: Date.now(),
    members: state.members,
    assigned: ranges(state.assigned),
    permitted: ranges(state.permitted),
    synced: health.synced,
    objects: watcher?.objects ?? 0,
    events: watcher?.events ?? 0,
    mode: watcher?.shard?.mode,
    waiting: health.queue.waiting,
    active: health.workers.active,
  });
}

const ringRunning = ring.start();
const running = controller.start();
const reporting = setInterval(report, 200);

// Stdin's end is the signal to stop.
for await (const _ of Deno.stdin.readable) {
  // Nothing is sent; only the end matters.
}
clearInterval(reporting);
await controller.stop();
await ring.stop();
await Promise.all([running, ringRunning]);
report();
client.close();
Deno.exit(0);
