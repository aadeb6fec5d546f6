/**
 * Our `Watcher`, configured as the benchmark issue asks: indexed by
 * namespace and name, `metadata.managedFields` ignored (unless the task
 * says otherwise), memory store, default page size (500), `FetchClient`.
 *
 * @module
 */

import { FetchClient, type KubeObject, silentLogger, Watcher } from "../mod.ts";
import {
  deadline,
  fail,
  now,
  type Outcome,
  readTask,
  report,
  settledHeap,
} from "./_contender.ts";
import { clockOffset, requestIsolatedEvents, SENT_AT } from "./_protocol.ts";
import { podName, podNamespace } from "./_pods.ts";

const task = readTask();
const outcome: Outcome = {};

/** Debounce interval for the flood and latency runs (ms). */
const FAST_DEBOUNCE = 5;

let onChange: (stats: { modified: number; isInitialSync: boolean }) => void =
  () => {};
const client = new FetchClient({ server: task.server });
const watcher = new Watcher(
  {
    gvr: { group: "", version: "v1", resource: "pods" },
    indexBy: ["metadata.namespace", "metadata.name"],
    ignoreFields: task.ignoreFields === false ? [] : ["metadata.managedFields"],
    // The sync run keeps the default; the others need every batch promptly,
    // and leading-edge latency does not depend on the interval.
    debounceInterval: task.workload === "sync" ? undefined : FAST_DEBOUNCE,
    onChange: (_store, stats) => onChange(stats),
  },
  client,
  { logger: silentLogger },
);
const stopper = new AbortController();

if (task.workload === "sync") {
  const before = task.heap ? await settledHeap() : 0;
  const t0 = now();
  void watcher.start(stopper.signal);
  const count = await watcher.waitForSync(AbortSignal.timeout(task.timeoutMs));
  outcome.syncMs = now() - t0;
  outcome.objects = count;
  if (count !== task.objects) fail(`synced ${count} of ${task.objects}`);
  if (task.heap) {
    outcome.heapBefore = before;
    outcome.heapAfter = await settledHeap();
    outcome.heapPerObject = (outcome.heapAfter - before) / count;
  }
  report(outcome);
}

if (task.workload === "flood") {
  const want = task.events!;
  const done = deadline<void>(task.timeoutMs, `${want} flood events`);
  let applied = 0;
  onChange = (stats) => {
    if (stats.isInitialSync) return;
    // A batch counts objects, coalesced (a pod modified twice in one batch
    // is one entry): the events applied are the loop's count.
    applied = watcher.health().events;
    if (applied >= want) {
      outcome.lastAppliedAt = now();
      done.resolve();
    }
  };
  void watcher.start(stopper.signal);
  await watcher.waitForSync(AbortSignal.timeout(task.timeoutMs));
  await done.promise;
  outcome.applied = applied;
  outcome.clockOffset = await clockOffset(task.server);
  outcome.notes = [
    `debounceInterval ${FAST_DEBOUNCE} ms: the last batch fires at most that long after the last event`,
  ];
  report(outcome);
}

if (task.workload === "latency") {
  const want = task.count!;
  const latencies: number[] = [];
  let offset = 0;
  const done = deadline<void>(task.timeoutMs, `${want} isolated events`);
  const namespace = podNamespace(0);
  const name = podName(0);
  onChange = (stats) => {
    // The batch that closes the initial sync is not an isolated event.
    if (stats.isInitialSync || stats.modified === 0) return;
    const at = now();
    const [pod] = watcher.store.get(namespace, name) as KubeObject[];
    const sentAt = Number(pod.metadata.annotations?.[SENT_AT]);
    latencies.push(at - (sentAt - offset));
    if (latencies.length === want) done.resolve();
  };
  void watcher.start(stopper.signal);
  await watcher.waitForSync(AbortSignal.timeout(task.timeoutMs));
  offset = await clockOffset(task.server);
  await requestIsolatedEvents(task.server, want, task.gapMs!);
  await done.promise;
  outcome.latencies = latencies;
  outcome.clockOffset = offset;
  report(outcome);
}
