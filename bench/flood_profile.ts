/**
 * Where the flood's time per event goes, from V8 CPU profiles of our
 * contender (`deno run -A bench/flood_ab.ts --cpu-prof <dir> .`): each
 * sample of the flood (from the first one reading watch lines on) goes to
 * the layer of the innermost frame of ours on its stack (a runtime frame
 * called from our JSON line reader counts as parsing; GC and runtime time
 * with no frame of ours are rows of their own; idle time is left out),
 * then µs per event = the layer's share × the profiled run's wall time per
 * event.
 *
 * Run: `deno run -A bench/flood_profile.ts --events 100000 <profile>…`;
 * prints a Markdown table (medians over the profiles).
 *
 * @module
 */

import { median } from "./_format.ts";

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

/** The layers, in the order the event passes them. */
const LAYERS: [string, (url: string, fn: string) => boolean][] = [
  [
    "parse: JSON rewrite (resourceVersion escape)",
    (u, f) => f.startsWith("RegExp:") || u.endsWith("/_json.ts#rewrite"),
  ],
  [
    "parse: line split + decode + JSON.parse",
    (u) =>
      u.endsWith("/client/json_lines.ts") || u.endsWith("/_json.ts") ||
      u.endsWith("/json_lines.ts"),
  ],
  [
    "loop: ListWatch driver + state machine",
    (u) => u.includes("/listwatch/"),
  ],
  ["shared source", (u) => u.endsWith("/watcher/_shared_source.ts")],
  [
    "object preparer (check, drop managedFields)",
    (u, f) =>
      // ObjectPreparer's frames: it shares _store_writer.ts with StoreWriter.
      (u.endsWith("/watcher/_store_writer.ts") &&
        (f === "prepare" || f === "#shareNamespace")) ||
      u.endsWith("/selection/_prune.ts") ||
      u.endsWith("/selection/invalid_object_error.ts"),
  ],
  [
    "index keys + key index",
    (u) =>
      u.endsWith("/selection/indexer.ts") ||
      u.endsWith("/selection/jsonpath.ts") ||
      u.endsWith("/store/_key_index.ts"),
  ],
  [
    "store writer + store",
    (u) => u.endsWith("/watcher/_store_writer.ts") || u.includes("/store/"),
  ],
  [
    "batch builder",
    (u) => u.endsWith("/watcher/change_batch.ts"),
  ],
  [
    "scheduler + callback",
    (u) =>
      u.includes("/watcher/") || u.includes("/bench/") ||
      u.endsWith("/clock.ts") || u.endsWith("/_lifecycle.ts"),
  ],
  ["other code of ours", (u) => u.startsWith("file://")],
];
const GC = "garbage collector";
const RUNTIME = "runtime (fetch, streams, timers, promises) outside our frames";

function layerOf(url: string, fn: string): string | undefined {
  for (const [name, test] of LAYERS) if (test(url, fn)) return name;
  return undefined;
}

const args = [...Deno.args];
const at = args.indexOf("--events");
const events = at >= 0 ? Number(args.splice(at, 2)[1]) : 100_000;
const shares = new Map<string, number[]>();
const perEvent: number[] = [];
for (const file of args) {
  const profile = JSON.parse(await Deno.readTextFile(file)) as Profile;
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) {
    for (const c of n.children ?? []) parent.set(c, n.id);
  }
  const layerCache = new Map<number, string | null>();
  const readsLines = new Map<number, boolean>();
  const classify = (id: number): string | null => {
    const cached = layerCache.get(id);
    if (cached !== undefined) return cached;
    let layer: string | null = null;
    const fn = nodes.get(id)!.callFrame.functionName;
    if (fn === "(garbage collector)") layer = GC;
    else if (fn === "(idle)") layer = null;
    else {
      let runtime = true;
      for (
        let at: number | undefined = id;
        at !== undefined;
        at = parent.get(at)
      ) {
        const { url, functionName } = nodes.get(at)!.callFrame;
        const found = layerOf(url, functionName);
        if (found !== undefined) {
          layer = found;
          runtime = false;
          break;
        }
      }
      if (runtime) layer = RUNTIME;
    }
    layerCache.set(id, layer);
    return layer;
  };
  const reading = (id: number): boolean => {
    const cached = readsLines.get(id);
    if (cached !== undefined) return cached;
    const { url, functionName } = nodes.get(id)!.callFrame;
    const p = parent.get(id);
    const yes = functionName === "readJsonLines" ||
      url.endsWith("/json_lines.ts") ||
      (p !== undefined && reading(p));
    readsLines.set(id, yes);
    return yes;
  };
  const time = new Map<string, number>();
  let started = false;
  let wall = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i];
    if (!started && reading(id)) started = true;
    if (!started) continue;
    const dt = profile.timeDeltas[i + 1] ?? 0;
    wall += dt;
    const layer = classify(id);
    if (layer !== null) time.set(layer, (time.get(layer) ?? 0) + dt);
  }
  const busy = [...time.values()].reduce((a, b) => a + b, 0);
  perEvent.push(busy / events);
  for (const [layer, us] of time) {
    if (!shares.has(layer)) shares.set(layer, []);
    shares.get(layer)!.push(us / busy);
  }
  console.error(
    `${file}: flood ${(wall / 1000).toFixed(0)} ms sampled, ${
      (busy / 1000).toFixed(0)
    } ms busy`,
  );
}
const us = median(perEvent)!;
const order = [...LAYERS.map(([n]) => n), GC, RUNTIME];
console.log(
  `| where | µs per event | share |\n| --- | ---: | ---: |`,
);
for (const layer of order) {
  const s = shares.get(layer);
  if (s === undefined) continue;
  // Profiles without the layer count it as 0.
  while (s.length < args.length) s.push(0);
  const share = median(s)!;
  console.log(
    `| ${layer} | ${(share * us).toFixed(2)} | ${(share * 100).toFixed(1)} % |`,
  );
}
console.log(`| **busy time per event** | **${us.toFixed(2)}** | 100 % |`);
