/**
 * The soak's API server, in a process of its own so that serving, churn and
 * its copies of 100k objects never show in the watchers' heap: a
 * `FakeApiServer` over HTTP holding the bench pods (`_pods.ts`), written to
 * at a steady rate (of every ten writes eight MODIFIED, one ADDED, one
 * DELETED, so the population stays where it started; three MODIFIED in
 * eight flip `status.phase` between `Running` and `Pending`, moving the pod in
 * or out of a `status.phase=Running` selector).
 *
 * The data keeps its shape through the run, so that heap per object can be
 * flat only if the watchers keep nothing they should have dropped: every
 * pod carries the annotation each MODIFIED rewrites (a fixed-width value of
 * its own) from its creation; half the pods start Pending, so the
 * selector's share stays where it started (about half) instead of
 * drifting down from all; and an ADDED pod, under a name never used
 * before, goes into the namespace of the pod deleted last, so no namespace
 * empties and none is opened (as in a cluster whose workloads replace
 * their pods).
 *
 * Commands arrive one per stdin line, each answered with one JSON line on
 * stdout:
 * - `drop`: every open watch ends cleanly (the watchers resume);
 * - `compact`: every open watch ends, one more write lands, and the history
 *   is compacted, so every resume is from a compacted version and gets 410
 *   Expired (the watchers relist);
 * - `stats`: writes and requests so far;
 * - `pause`: churn stops; the answer carries the final resourceVersion.
 *
 * Run: `deno run --allow-net bench/_soak_server.ts <pods> <writesPerSecond>`;
 * prints `{"url":…}` once the pods are in; exits when stdin closes.
 *
 * @module
 */

import { FakeApiServer } from "../testing/mod.ts";
import type { KubeObject } from "../types.ts";
import { makePod, podName, podNamespace } from "./_pods.ts";

const [pods, rate] = Deno.args.map(Number);
if (!(pods > 0 && rate > 0)) {
  throw new Error("Usage: _soak_server.ts <pods> <writesPerSecond>");
}

const started = performance.now();
const server = new FakeApiServer({
  // Long enough that only the explicit compactions expire a resume.
  historyLimit: Math.max(10_000, rate * 300),
  initialResourceVersion: 1_000,
});

/**
 * The annotation each MODIFIED rewrites, with a value of fixed width that
 * no other pod shares, from the start too: `JSON.parse` makes one string of
 * short values that are alike (V8 internalizes them), so pods created with
 * one shared value would each cost 32 B more once written.
 */
const WRITE_ANNOTATION = "soak.haptic.dev/write";
const stamp = (write: number) => String(write).padStart(9, "0");
const firstStamp = (i: number) => String(900_000_000 + i);
/** Where the pods start: every other one Pending. */
const phaseAtStart = (i: number) => i % 2 === 0 ? "Running" : "Pending";

/**
 * A pod as a client would create it (the server sets uid, version, time),
 * in `namespace`, already carrying what the churn's writes change.
 */
function fresh(i: number, namespace: string): KubeObject {
  const pod = makePod(i, 0, 0);
  const meta = pod.metadata as Record<string, unknown>;
  delete meta.resourceVersion;
  delete meta.uid;
  delete meta.creationTimestamp;
  meta.namespace = namespace;
  meta.annotations = {
    ...meta.annotations as Record<string, string>,
    [WRITE_ANNOTATION]: firstStamp(i),
  };
  ((pod as Record<string, unknown>).status as { phase: string }).phase =
    phaseAtStart(i);
  return pod;
}

/** Indices of the live pods (a DELETED picks a slot at random). */
const live: number[] = [];
const phase = new Map<number, string>();
/** Where each live pod is (an ADDED one need not be where its index says). */
const namespaceOf = new Map<number, string>();
for (let i = 0; i < pods; i++) {
  namespaceOf.set(i, podNamespace(i));
  server.create("pods", fresh(i, podNamespace(i)));
  live.push(i);
}
let nextIndex = pods;
/** The namespace the last DELETED thinned, which the next ADDED refills. */
let thinned: string | undefined;
const fillMs = performance.now() - started;

// A small deterministic generator (xorshift32), so two runs churn alike.
let seed = 0x9e3779b9;
function random(n: number): number {
  seed ^= seed << 13;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  return (seed >>> 0) % n;
}

const counts = { added: 0, modified: 0, deleted: 0, flipped: 0 };
let writes = 0;

function write(): void {
  const kind = writes++ % 10;
  if (kind === 3) {
    const i = nextIndex++;
    const namespace = thinned ?? namespaceOf.get(live[random(live.length)])!;
    thinned = undefined;
    namespaceOf.set(i, namespace);
    server.create("pods", fresh(i, namespace));
    live.push(i);
    counts.added++;
    return;
  }
  const slot = random(live.length);
  const i = live[slot];
  if (kind === 7) {
    thinned = namespaceOf.get(i)!;
    server.delete("pods", thinned, podName(i));
    const last = live.pop()!;
    if (last !== i) live[slot] = last;
    phase.delete(i);
    namespaceOf.delete(i);
    counts.deleted++;
    return;
  }
  const patch: Record<string, unknown> = {
    metadata: { annotations: { [WRITE_ANNOTATION]: stamp(writes) } },
  };
  if (kind % 4 === 0) {
    const next = (phase.get(i) ?? phaseAtStart(i)) === "Pending"
      ? "Running"
      : "Pending";
    phase.set(i, next);
    patch.status = { phase: next };
    counts.flipped++;
  }
  server.patch("pods", namespaceOf.get(i)!, podName(i), patch);
  counts.modified++;
}

// Writes owed by the clock, so the rate holds whatever a tick costs.
let paused = false;
const churnStart = performance.now();
const timer = setInterval(() => {
  if (paused) return;
  const owed = Math.floor((performance.now() - churnStart) / 1000 * rate);
  // Never more than a second's worth at once after a stall.
  let budget = rate;
  while (writes < owed && budget-- > 0) write();
  if (writes < owed - rate) {
    // Behind by more than a second: skip ahead rather than burst.
    writes = owed;
  }
}, 50);

const listener = await server.listen();
console.log(JSON.stringify({
  url: listener.url,
  pods,
  rate,
  fillMs: Math.round(fillMs),
  resourceVersion: server.resourceVersion,
}));

function stats(): Record<string, unknown> {
  let lists = 0;
  let watches = 0;
  for (const r of server.requests) {
    if (r.verb === "watch") watches++;
    else if (r.verb === "list") lists++;
  }
  // The server keeps every request; forget the ones counted.
  server.clearRequests();
  totals.lists += lists;
  totals.watches += watches;
  return {
    resourceVersion: server.resourceVersion,
    writes,
    ...counts,
    live: live.length,
    namespaces: new Set(namespaceOf.values()).size,
    listPages: totals.lists,
    watchRequests: totals.watches,
    openWatches: server.openWatchCount,
  };
}
const totals = { lists: 0, watches: 0 };

const decoder = new TextDecoderStream();
let buffered = "";
const reader = Deno.stdin.readable.pipeThrough(decoder).getReader();
for (;;) {
  const { value, done } = await reader.read();
  if (done) break;
  buffered += value;
  let nl;
  while ((nl = buffered.indexOf("\n")) >= 0) {
    const command = buffered.slice(0, nl).trim();
    buffered = buffered.slice(nl + 1);
    if (command === "drop") {
      server.closeAllWatches();
    } else if (command === "compact") {
      server.closeAllWatches();
      write();
      server.compactHistory();
    } else if (command === "pause") {
      paused = true;
    }
    console.log(JSON.stringify({ command, ...stats() }));
  }
}
clearInterval(timer);
await listener.close();
await server.close();
Deno.exit(0);
