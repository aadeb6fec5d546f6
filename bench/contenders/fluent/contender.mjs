/**
 * bench:compare contender: kubernetes-fluent-client 3.11.11's `Watch` on
 * Pods under Node 22, used as its README shows (it lists without `limit`,
 * keeps every object it sees in its own map for relist reconciliation, and
 * has no transform: objects keep `managedFields`).
 *
 * Run: `node --expose-gc contender.mjs '<task JSON>'`; it points
 * `KUBECONFIG` at a kubeconfig naming the bench server (the client reads
 * it on every request), and prints one
 * `RESULT {json}` line, as the Deno contenders do (bench/_contender.ts has
 * the task and outcome). Sync ends at the N-th `data` event (emitted after
 * the object is in its map); the flood at the M-th MODIFIED one.
 *
 * @module
 */

import { rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { K8s, kind, WatchEvent } from "kubernetes-fluent-client";

const SENT_AT = "bench.haptic.dev/sent-at";
const task = JSON.parse(process.argv[2] ?? "{}");
if (!task.server || !task.workload) {
  fail("Expected a JSON task as the first argument");
}

/** Wall-clock ms, comparable with the bench server's clock. */
function now() {
  return performance.timeOrigin + performance.now();
}

function fail(message) {
  console.error(`FAILED ${message}`);
  process.exit(1);
}

function report(outcome) {
  console.log(`RESULT ${JSON.stringify(outcome)}`);
  process.exit(0);
}

async function settledHeap() {
  if (typeof globalThis.gc !== "function") fail("run with --expose-gc");
  for (let i = 0; i < 4; i++) {
    globalThis.gc();
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return process.memoryUsage().heapUsed;
}

async function benchCall(path) {
  const res = await fetch(`${task.server}${path}`, { method: "POST" });
  const body = await res.json();
  if (!res.ok || body.error) throw new Error(body.error ?? `${res.status}`);
}

/** Server clock minus ours, from the fastest of 15 round trips. */
async function clockOffset() {
  let best = Infinity;
  let offset = 0;
  for (let i = 0; i < 15; i++) {
    const t0 = now();
    const { now: serverNow } = await (await fetch(`${task.server}/_bench/now`))
      .json();
    const t1 = now();
    if (t1 - t0 < best) {
      best = t1 - t0;
      offset = serverNow - (t0 + t1) / 2;
    }
  }
  return offset;
}

const kubeconfig = `${tmpdir()}/bench-fluent-kubeconfig-${process.pid}.json`;
writeFileSync(
  kubeconfig,
  JSON.stringify({
    apiVersion: "v1",
    kind: "Config",
    // Plain HTTP needs skipTLSVerify in client-node's config loader.
    clusters: [{
      name: "bench",
      cluster: { server: task.server, "insecure-skip-tls-verify": true },
    }],
    users: [{ name: "bench", user: {} }],
    contexts: [{ name: "bench", context: { cluster: "bench", user: "bench" } }],
    "current-context": "bench",
  }),
);
process.env.KUBECONFIG = kubeconfig;
process.on("exit", () => {
  try {
    rmSync(kubeconfig);
  } catch { /* already gone */ }
});

setTimeout(
  () => fail(`timed out after ${task.timeoutMs} ms (${task.workload})`),
  task.timeoutMs,
).unref();

const outcome = { notes: ["kubernetes-fluent-client 3.11.11 Watch, Node 22"] };
let added = 0;
let modified = 0;
let onSynced = () => {};
let onModified = () => {};
const watcher = K8s(kind.Pod).Watch(() => {}, {
  // Its default resync timers are minutes; nothing here runs that long.
});
watcher.events.on(WatchEvent.DATA, (pod, phase) => {
  if (phase === "ADDED" && ++added === task.objects) onSynced();
  else if (phase === "MODIFIED") onModified(pod, ++modified);
});
for (const e of [WatchEvent.LIST_ERROR, WatchEvent.GIVE_UP]) {
  watcher.events.on(e, (err) => fail(`${e}: ${err}`));
}
const synced = new Promise((resolve) => onSynced = () => resolve(now()));

if (task.workload === "sync") {
  const before = task.heap ? await settledHeap() : 0;
  const rssBefore = process.memoryUsage().rss;
  const t0 = now();
  void watcher.start();
  const at = await synced;
  outcome.syncMs = at - t0;
  outcome.objects = added;
  if (task.heap) {
    outcome.heapBefore = before;
    outcome.heapAfter = await settledHeap();
    outcome.rssBefore = rssBefore;
    outcome.rssAfter = process.memoryUsage().rss;
    outcome.heapPerObject = (outcome.heapAfter - before) / added;
  }
  report(outcome);
} else if (task.workload === "flood") {
  const done = new Promise((resolve) => {
    onModified = (_pod, n) => {
      if (n === task.events) resolve(now());
    };
  });
  void watcher.start();
  await synced;
  outcome.lastAppliedAt = await done;
  outcome.applied = modified;
  outcome.clockOffset = await clockOffset();
  report(outcome);
} else if (task.workload === "latency") {
  const latencies = [];
  let offset = 0;
  const done = new Promise((resolve) => {
    onModified = (pod) => {
      const sentAt = Number(pod.metadata?.annotations?.[SENT_AT]);
      latencies.push(now() - (sentAt - offset));
      if (latencies.length === task.count) resolve();
    };
  });
  void watcher.start();
  await synced;
  offset = await clockOffset();
  for (const until = now() + 10_000;;) {
    try {
      await benchCall(`/_bench/latency?count=${task.count}&gap=${task.gapMs}`);
      break;
    } catch (error) {
      if (now() > until) fail(String(error));
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
  await done;
  outcome.latencies = latencies;
  outcome.clockOffset = offset;
  report(outcome);
} else {
  fail(`workload ${task.workload} is not measured by this contender`);
}
