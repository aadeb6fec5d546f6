/**
 * Where a replica's CPU goes in one phase, from the V8 CPU profiles that
 * `deno task bench:shards --cpu-prof <dir>` writes (the first replica of
 * each row): the samples after a phase's marker (a function the replica
 * spins in for 20 ms as the phase starts, in profiled runs only:
 * `rateStartMarker`, `floodStartMarker`) and before the next one are put,
 * by their innermost frame of ours, in that file and function, or in GC,
 * idle, or the runtime (no frame of ours on the stack); each is reported
 * in ms and µs per event (or key).
 *
 * Run: `deno run -A bench/shards_profile.ts <events> <profile> [from
 * marker, floodStartMarker by default] [to marker]`; prints a Markdown
 * table.
 *
 * @module
 */

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const [eventsArg, file, from = "floodStartMarker", to] = Deno.args;
const events = Number(eventsArg);
if (!(events > 0) || file === undefined) {
  throw new Error(
    "Usage: shards_profile.ts <events received> <profile> [from marker] [to marker]",
  );
}
const profile = JSON.parse(await Deno.readTextFile(file)) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) {
  for (const c of n.children ?? []) parent.set(c, n.id);
}
const root = new URL("..", import.meta.url).href;

/** The bucket of a sample: its innermost frame of ours, else what it is. */
function bucket(id: number): string {
  const leaf = byId.get(id)!.callFrame;
  if (leaf.functionName === "(garbage collector)") return "(GC)";
  if (leaf.functionName === "(idle)") return "(idle)";
  if (leaf.functionName === "(program)") return "(program)";
  for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
    const { url, functionName } = byId.get(at)!.callFrame;
    if (url.startsWith(root) && !url.includes("/bench/")) {
      return `${url.slice(root.length)} ${functionName || "(anonymous)"}`;
    }
    if (url.includes("/bench/_shard_replica.ts")) {
      return `bench/_shard_replica.ts ${functionName || "(top)"}`;
    }
  }
  return `(runtime) ${leaf.functionName || "(anonymous)"}`;
}

/** Whether sample `i` is inside the function `name`. */
function inside(i: number, name: string): boolean {
  for (
    let at: number | undefined = profile.samples[i];
    at !== undefined;
    at = parent.get(at)
  ) {
    if (byId.get(at)!.callFrame.functionName === name) return true;
  }
  return false;
}

// The window: after the last sample inside `from`, up to the first one
// inside `to`.
let start = -1;
let end = profile.samples.length;
for (let i = 0; i < profile.samples.length; i++) {
  if (inside(i, from)) start = i;
  else if (to !== undefined && start >= 0 && inside(i, to)) {
    end = i;
    break;
  }
}
if (start < 0) throw new Error(`${file} has no ${from} sample`);

const totals = new Map<string, number>();
let busy = 0;
for (let i = start + 1; i < end; i++) {
  const us = profile.timeDeltas[i] ?? 0;
  const b = bucket(profile.samples[i]);
  totals.set(b, (totals.get(b) ?? 0) + us);
  if (b !== "(idle)") busy += us;
}
console.log(`| where (innermost frame of ours) | ms | µs per event |`);
console.log(`| --- | ---: | ---: |`);
const rows = [...totals].filter(([b]) => b !== "(idle)")
  .sort((a, b) => b[1] - a[1]);
for (const [b, us] of rows.slice(0, 25)) {
  console.log(
    `| ${b} | ${(us / 1000).toFixed(0)} | ${(us / events).toFixed(1)} |`,
  );
}
console.log(
  `| **busy in all** | ${(busy / 1000).toFixed(0)} | ${
    (busy / events).toFixed(1)
  } |`,
);
