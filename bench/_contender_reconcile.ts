/**
 * Ours in the reconcile rows of `bench:compare`: `WorkQueue<string>` with
 * `workers` async worker loops (`next`, reconcile, `forget`, `done`), fed
 * by one producer; for the latency row, a `Controller` of the bench
 * server's pods. The task and the stopping point are in
 * `_reconcile_task.ts`.
 *
 * Usage: `deno run -A --v8-flags=--expose-gc bench/_contender_reconcile.ts '<task JSON>'`.
 *
 * @module
 */

import { Controller, WorkQueue } from "../controller/mod.ts";
import { FetchClient, type KubeObject, silentLogger } from "../mod.ts";
import { fail, now, settledHeap } from "./_contender.ts";
import { clockOffset, SENT_AT } from "./_protocol.ts";
import {
  benchKey,
  Coverage,
  type ReconcileOutcome,
  type ReconcileTask,
} from "./_reconcile_task.ts";

const task = JSON.parse(Deno.args[0] ?? "{}") as ReconcileTask;
if (!task.workload) fail("expected a JSON task as the first argument");
setTimeout(
  () => fail(`timed out after ${task.timeoutMs} ms (${task.workload})`),
  task.timeoutMs,
);

function report(outcome: ReconcileOutcome): never {
  console.log(`RESULT ${JSON.stringify(outcome)}`);
  Deno.exit(0);
}

const keys = task.keys ?? 0;
const workers = Math.max(task.workers ?? 1, 1);
const names = Array.from({ length: keys }, (_, i) => benchKey(i));
const index = new Map(names.map((k, i) => [k, i]));
const notes = ["WorkQueue<string> (controller/work_queue.ts), default options"];

/** Adds between the producer's yields to the workers (a microtask each). */
const CHUNK = 1000;

if (task.workload === "queue" || task.workload === "dedup") {
  const queue = new WorkQueue<string>({ name: "bench" });
  let resolveDone!: (at: number) => void;
  const done = new Promise<number>((r) => resolveDone = r);
  const cov = new Coverage(keys, () => resolveDone(now()));
  const slow = task.reconcileMs ?? 0;
  const worker = async () => {
    for (;;) {
      const key = await queue.next();
      if (key === undefined) return;
      cov.started(index.get(key)!);
      if (slow > 0) await new Promise((r) => setTimeout(r, slow));
      cov.finished();
      queue.forget(key);
      queue.done(key);
    }
  };
  const running = Array.from({ length: workers }, worker);
  const t0 = now();
  if (task.workload === "queue") {
    const adds = task.adds ?? 0;
    for (let i = 0; i < adds; i++) {
      const k = i % keys;
      cov.added(k);
      queue.add(names[k]);
      // A watch hands events over in chunks too: let the workers run.
      if (i % CHUNK === CHUNK - 1) await Promise.resolve();
    }
  } else {
    for (let r = 0; r <= (task.bursts ?? 0); r++) {
      // Rounds on an absolute schedule: Deno's setTimeout(1) fires after
      // about 2 ms, which would spread the bursts twice as wide as Go's
      // 1 ms sleeps do (and so change how many reconciles they cost).
      const due = t0 + r * (task.burstGapMs ?? 0);
      while (r > 0 && now() < due) {
        await new Promise((res) =>
          setTimeout(res, Math.max(0, due - now() - 1))
        );
      }
      for (let k = 0; k < keys; k++) {
        cov.added(k);
        queue.add(names[k]);
      }
    }
  }
  const producerMs = now() - t0;
  cov.produced();
  const at = await done;
  await queue.shutDown();
  await Promise.all(running);
  report({
    elapsedMs: at - t0,
    producerMs,
    adds: task.adds,
    reconciles: cov.reconciles,
    keys,
    notes: [
      ...notes,
      `${workers} async worker loops; one producer yielding a microtask every ${CHUNK} adds (queue)`,
    ],
  });
}

if (task.workload === "queueHeap") {
  const queue = new WorkQueue<string>({ name: "bench" });
  const heapBefore = await settledHeap();
  const rssBefore = Deno.memoryUsage().rss;
  for (const k of names) queue.add(k);
  const heapAfter = await settledHeap();
  if (queue.length !== keys) fail(`queue holds ${queue.length} of ${keys}`);
  report({
    keys,
    heapBefore,
    heapAfter,
    rssBefore,
    rssAfter: Deno.memoryUsage().rss,
    heapPerKey: (heapAfter - heapBefore) / keys,
    notes: [...notes, "keys built before the first measurement"],
  });
}

if (task.workload === "reconcileLatency") {
  // The peers note an event's send time in their event handler, which
  // runs once the object is in their cache. A `Controller` has no handler
  // per event: its watcher's `transform` sees each event as it arrives,
  // before the store, so a reconcile takes only the send times of the
  // versions its cache already holds (by resourceVersion); the others
  // wait for the reconcile their own batch brings.
  const events = task.events ?? 0;
  const offset = await clockOffset(task.server);
  /** Per key: resourceVersion and send time, pairs in arrival order. */
  const pending = new Map<string, number[]>();
  const latencies: number[] = [];
  let reconciles = 0;
  using client = new FetchClient({ server: task.server });
  const controller = new Controller<KubeObject>(
    {
      name: "bench",
      for: {
        gvr: { group: "", version: "v1", resource: "pods" },
        ignoreFields: ["metadata.managedFields"],
        transform: (pod) => {
          const sent = pod.metadata.annotations?.[SENT_AT];
          if (sent !== undefined) {
            const key = `${pod.metadata.namespace}/${pod.metadata.name}`;
            let list = pending.get(key);
            if (list === undefined) pending.set(key, list = []);
            list.push(Number(pod.metadata.resourceVersion), Number(sent));
          }
          return pod;
        },
      },
      maxConcurrent: workers,
      reconcile: (key, context) => {
        const at = now();
        reconciles++;
        const list = pending.get(key);
        const cached = Number(context.get()?.metadata.resourceVersion ?? 0);
        if (list === undefined) return;
        let i = 0;
        for (; i < list.length && list[i] <= cached; i += 2) {
          latencies.push(at - (list[i + 1] - offset));
        }
        if (i === list.length) pending.delete(key);
        else list.splice(0, i);
        if (latencies.length === events) {
          report({
            latencies,
            clockOffset: offset,
            reconciles,
            notes: [
              `Controller<KubeObject> (controller/controller.ts) on the pods, maxConcurrent ${workers}, metadata.managedFields ignored`,
              "send times noted in the watcher's transform, taken by the first reconcile whose cache holds that version",
            ],
          });
        }
      },
    },
    client,
    { logger: silentLogger },
  );
  await controller.start();
  fail("the controller stopped before every event was reconciled");
}

fail(`workload ${task.workload} is not measured by this contender`);
