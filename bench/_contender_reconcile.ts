/**
 * Ours in the reconcile rows of `bench:compare`: `WorkQueue<string>` with
 * `workers` async worker loops (`next`, reconcile, `forget`, `done`), fed
 * by one producer. The task and the stopping point are in
 * `_reconcile_task.ts`.
 *
 * Usage: `deno run -A --v8-flags=--expose-gc bench/_contender_reconcile.ts '<task JSON>'`.
 *
 * @module
 */

import { WorkQueue } from "../controller/mod.ts";
import { fail, now, settledHeap } from "./_contender.ts";
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

fail(`workload ${task.workload} is not measured by this contender`);
