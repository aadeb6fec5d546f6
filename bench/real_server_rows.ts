/**
 * The real-server rows of issue 33 in one run: a real kube-apiserver and
 * etcd (`testing/control_plane/`) filled with 10k and then `--large`
 * ConfigMaps of a few KB, synced over TLS by ours in both list modes (paged
 * LIST, `initialList: "stream"`), every peer in its default mode (client-go
 * streaming, also on protobuf and paged; client-node's one unpaged LIST;
 * kube-rs), and the real-server floor (`bench/_contender_real_floor.ts`: a
 * bare `fetch` and `JSON.parse` of the same list, keeping nothing). Fresh
 * processes, the order rotated every round.
 *
 * Besides the sync time it records each process's peaks: peak RSS is the
 * kernel's high-water mark (`VmHWM` in `/proc/<pid>/status`, polled), peak
 * heap the largest heap any collection started from (V8's `--trace-gc`, Go's
 * `GODEBUG=gctrace=1`; kube-rs has no collector to report it). Steady is the
 * contender's own figure after the sync and full collections.
 *
 * Run: `deno run -A bench/real_server_rows.ts [--rounds 3] [--sizes
 * 10000,100000] [--out bench/real_server_rows.json] [--md
 * bench/REAL_SERVER_ROWS.md] [--extra] [--render <json>]`. Prints one Markdown
 * table per size.
 *
 * @module
 */

import { median } from "./_format.ts";
import type { Outcome, Task } from "./_contender.ts";
import { denoFmt } from "./_deno_fmt.ts";
import { buildNative } from "./_native.ts";
import { REAL_SERVER_NAMESPACE, startRealServer } from "./_real_server.ts";
import { takeOption } from "./_args.ts";

const args = [...Deno.args];
const rounds = Number(takeOption(args, "--rounds", "3"));
const sizes = takeOption(args, "--sizes", "10000,100000").split(",").map(
  Number,
);
const out = takeOption(args, "--out", "");
const md = takeOption(args, "--md", "");
const rerender = takeOption(args, "--render", "");
const extra = args.includes("--extra");
/** `--only floor,diagnostic`: the rows whose names start so. */
const only = takeOption(args, "--only", "").split(",").filter((x) => x);
const log = (line: string) =>
  console.error(`${new Date().toISOString().slice(11, 19)} ${line}`);

const here = new URL(".", import.meta.url);
const V8 = "--v8-flags=--expose-gc,--max-old-space-size=8192,--trace-gc";

/** One row: which program, how it is asked, and its name in the table. */
interface Row {
  name: string;
  program: "ours" | "peer" | "floor" | "client_go" | "kube_rs";
  task: Partial<Task>;
  /** Watches from before the creates: the server replays them (a flood). */
  replay?: true;
}
const ROWS: Row[] = [
  {
    name: "floor: one unpaged LIST, fetch + JSON.parse",
    program: "floor",
    task: {},
  },
  {
    name: "floor: pages of 500, fetch + JSON.parse",
    program: "floor",
    task: { limit: 500 },
  },
  { name: "ours, paged LIST (default, limit 500)", program: "ours", task: {} },
  {
    name: "ours, paged LIST, `pageSize: 5000` (an option)",
    program: "ours",
    task: { pageSize: 5000 },
  },
  {
    name: 'ours, `initialList: "stream"`',
    program: "ours",
    task: { initialList: "stream" },
  },
  {
    name: "client-node 2.0.1 informer (one unpaged LIST, its default)",
    program: "peer",
    task: {},
  },
  {
    name:
      "client-go 0.37.2 typed informer, streaming list, JSON (its default mode)",
    program: "client_go",
    task: {},
  },
  {
    name: "client-go 0.37.2 typed informer, streaming list, protobuf",
    program: "client_go",
    task: { protobuf: true },
  },
  {
    name:
      "client-go 0.37.2 typed informer, paged LIST, JSON (WatchListClient off)",
    program: "client_go",
    task: { watchList: false },
  },
  {
    name: "kube-rs 5.0.0 reflector, typed ConfigMap (its default, paged)",
    program: "kube_rs",
    task: {},
  },
  // The flood against the real server: every object replayed to a watch
  // from before the creates, as ADDED events from the watch cache.
  {
    name: "replay: floor, one watch, JSON.parse per event",
    program: "floor",
    task: {},
    replay: true,
  },
  {
    name: "replay: ours (Watcher, managedFields ignored)",
    program: "ours",
    task: {},
    replay: true,
  },
  {
    name: "replay: client-go 0.37.2 typed informer, JSON",
    program: "client_go",
    task: { watchList: false },
    replay: true,
  },
  {
    name: "replay: client-go 0.37.2 typed informer, protobuf",
    program: "client_go",
    task: { watchList: false, protobuf: true },
    replay: true,
  },
  // Not run by default (`--extra`): where the floor's time goes, and
  // ours with larger pages.
  ...(extra
    ? [
      {
        name: "diagnostic: floor, one unpaged LIST, bytes only, JSON",
        program: "floor",
        task: { bytesOnly: true },
      },
      {
        name: "diagnostic: floor, one unpaged LIST, bytes only, protobuf",
        program: "floor",
        task: { bytesOnly: true, protobuf: true },
      },
      {
        name: "diagnostic: ours, one unpaged LIST (pageSize 1,000,000)",
        program: "ours",
        task: { pageSize: 1_000_000 },
      },
    ] satisfies Row[]
    : []),
];
const rowsRun = only.length === 0
  ? ROWS
  : ROWS.filter((r) => only.some((o) => r.name.startsWith(o)));

const SCRIPTS = {
  ours: "_contender_ours.ts",
  peer: "_contender_peer.ts",
  floor: "_contender_real_floor.ts",
} as const;

const native = new Map<string, { command: string; args: string[] }>();
for (const program of rerender ? [] : ["client_go", "kube_rs"] as const) {
  const built = await buildNative(program, log);
  if ("unavailable" in built) {
    log(`${program} unavailable: ${built.unavailable}`);
  } else native.set(program, built);
}

interface Measured {
  outcome?: Outcome;
  error?: string;
  peakRss?: number;
  peakHeap?: number;
}

/** The `VmHWM` of a process, in bytes (undefined once it is gone). */
async function highWater(pid: number): Promise<number | undefined> {
  try {
    const status = await Deno.readTextFile(`/proc/${pid}/status`);
    const m = status.match(/^VmHWM:\s+(\d+) kB/m);
    return m ? Number(m[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** The largest heap a collection started (or, for Go, ended) from. */
function peakHeapFrom(text: string): number | undefined {
  let peak = 0;
  // V8: "Scavenge 3.3 (4.1) -> 3.1 (5.1) MB"
  for (
    const m of text.matchAll(
      /: [A-Za-z-() ]+? ([\d.]+) \([\d.]+\) -> ([\d.]+) \([\d.]+\) MB/g,
    )
  ) {
    peak = Math.max(peak, Number(m[1]), Number(m[2]));
  }
  // Go: "4->5->2 MB" (heap at start, at end of marking, live)
  for (const m of text.matchAll(/ (\d+)->(\d+)->(\d+) MB/g)) {
    peak = Math.max(peak, Number(m[1]), Number(m[2]));
  }
  return peak > 0 ? peak * 2 ** 20 : undefined;
}

async function once(
  row: Row,
  task: Task,
  replayFrom: string,
): Promise<Measured> {
  const json = JSON.stringify({
    ...task,
    ...row.task,
    ...(row.replay ? { fromResourceVersion: replayFrom } : {}),
  });
  const script = SCRIPTS[row.program as keyof typeof SCRIPTS];
  let command: string;
  let argv: string[];
  const env: Record<string, string> = {};
  if (script) {
    command = Deno.execPath();
    argv = [
      "run",
      "--no-lock",
      "--allow-all",
      V8,
      new URL(script, here).pathname,
      json,
    ];
  } else {
    const built = native.get(row.program);
    if (!built) return { error: `${row.program} is not built` };
    command = built.command;
    argv = [...built.args, "typed", json];
    if (row.program === "client_go") env.GODEBUG = "gctrace=1";
  }
  const child = new Deno.Command(command, {
    args: argv,
    env,
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(task.timeoutMs + 20_000),
  }).spawn();
  let peakRss = 0;
  let polling = true;
  const poller = (async () => {
    while (polling) {
      const hwm = await highWater(child.pid);
      if (hwm !== undefined) peakRss = Math.max(peakRss, hwm);
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  const { code, stdout, stderr } = await child.output();
  polling = false;
  await poller;
  const text = new TextDecoder().decode(stdout);
  const errText = new TextDecoder().decode(stderr);
  // V8's --trace-gc writes through a buffer of its own, so the RESULT line
  // may follow part of a trace line.
  const line = text.match(/RESULT (\{.*)$/m)?.[1];
  if (code !== 0 || line === undefined) {
    const why = (errText.split("\n").filter((l) =>
      !/^gc \d/.test(l)
    ).join(" ") ||
      text.split("\n").filter((l) => !l.startsWith("[")).join(" ")).slice(
        0,
        300,
      );
    return { error: `exit ${code}: ${why}` };
  }
  return {
    outcome: JSON.parse(line) as Outcome,
    peakRss: peakRss || undefined,
    peakHeap: row.program === "kube_rs"
      ? undefined
      : peakHeapFrom(text + errText),
  };
}

/** One size's runs. */
interface SizeRuns {
  objects: number;
  bytesPerObject: number;
  createSeconds: number;
  startSeconds: number;
  versions: string;
  load: number[][];
  rows: { name: string; runs: Measured[] }[];
}
const results: SizeRuns[] = rerender
  ? JSON.parse(await Deno.readTextFile(rerender))
  : [];

for (const objects of rerender ? [] : sizes) {
  log(`starting a control plane for ${objects} ConfigMaps`);
  const rs = await startRealServer(objects, log);
  if ("notRun" in rs) {
    log(`${objects}: not run: ${rs.notRun}`);
    continue;
  }
  log(`${objects} ConfigMaps created in ${rs.createSeconds.toFixed(1)} s`);
  const entry = {
    objects,
    bytesPerObject: rs.bytesPerObject,
    createSeconds: rs.createSeconds,
    startSeconds: rs.startSeconds,
    versions: rs.versions,
    load: [Deno.loadavg()],
    rows: rowsRun.map((r) => ({ name: r.name, runs: [] as Measured[] })),
  };
  results.push(entry);
  const task: Task = {
    server: rs.plane.url,
    workload: "sync",
    heap: true,
    kubeconfig: rs.kubeconfig,
    namespace: REAL_SERVER_NAMESPACE,
    resource: "configmaps",
    objects,
    caFile: rs.plane.caFile,
    token: rs.plane.token(),
    timeoutMs: 240_000,
  };
  try {
    for (let r = 0; r < rounds; r++) {
      // Rotate the order so no row always follows the same one.
      const order = rowsRun.map((_, k) => (k + r * 3) % rowsRun.length);
      for (const k of order) {
        const m = await once(rowsRun[k], task, rs.replayFrom);
        entry.rows[k].runs.push(m);
        log(
          `${objects} #${r + 1} ${rowsRun[k].name}: ${
            m.error ??
              `${m.outcome!.syncMs!.toFixed(0)} ms, peak heap ${
                mib(m.peakHeap)
              } / steady ${mib(m.outcome!.heapAfter)}, peak RSS ${
                mib(m.peakRss)
              } / steady ${mib(m.outcome!.rssAfter)}`
          }`,
        );
      }
      entry.load.push(Deno.loadavg());
    }
  } finally {
    await rs.plane.stop();
  }
  if (out) {
    await Deno.writeTextFile(out, JSON.stringify(results, null, 2) + "\n");
    await denoFmt([out]);
  }
}

function mib(bytes: number | undefined): string {
  return bytes === undefined ? "–" : `${(bytes / 2 ** 20).toFixed(0)} MiB`;
}
function med(runs: Measured[], f: (m: Measured) => number | undefined) {
  const v = runs.map(f).filter((x): x is number =>
    x !== undefined && !isNaN(x)
  );
  return v.length ? median(v)! : undefined;
}
function ratio(a: number | undefined, b: number | undefined): string {
  return a === undefined || b === undefined ? "–" : `${(a / b).toFixed(2)}×`;
}

/** Which rows are ours, which the floor, which peers (by name's start). */
const isOurs = (name: string) => name.startsWith("ours");
const isDiagnostic = (name: string) => name.startsWith("diagnostic");
const isFloor = (name: string) => name.startsWith("floor");
const isReplay = (name: string) => name.startsWith("replay");

const lines: string[] = [];
for (const e of results) {
  const loads = e.load.map((l) => l[0].toFixed(1)).join(", ");
  lines.push(
    `#### ${
      e.objects.toLocaleString("en")
    } ConfigMaps, every contender in one run`,
    "",
    `${e.versions}; ${e.objects.toLocaleString("en")} ConfigMaps of ${
      e.bytesPerObject.toLocaleString("en")
    } bytes of JSON created in ${
      e.createSeconds.toFixed(1)
    } s (32 POSTs in flight). 1-minute load average at the start and after each round: ${loads} (2 cores; the control plane and the contender are the load). Medians of the fresh processes counted under "runs", the order rotated every round. Peak heap: the largest heap a collection started from (V8 \`--trace-gc\`, Go \`GODEBUG=gctrace=1\`; kube-rs has no collector to ask); peak RSS: the kernel's high-water mark (\`VmHWM\`); steady: the contender's own figures after the sync and full collections.`,
    "",
    "| Contender | Sync (median) | min–max | runs | vs unpaged floor | Peak heap / steady | Peak RSS / steady |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
  );
  const stats = e.rows.map((row) => {
    const ok = row.runs.filter((m) => m.outcome);
    const ms = ok.map((m) => m.outcome!.syncMs!);
    return {
      name: row.name,
      ok,
      ms,
      sync: ms.length ? median(ms)! : undefined,
      ph: med(ok, (m) => m.peakHeap),
      sh: med(ok, (m) => m.outcome!.heapAfter),
      pr: med(ok, (m) => m.peakRss),
      sr: med(ok, (m) => m.outcome!.rssAfter),
      error: row.runs.find((m) => m.error)?.error,
      failed: row.runs.length - ok.length,
    };
  });
  const replays = stats.filter((r) => isReplay(r.name));
  stats.splice(0, stats.length, ...stats.filter((r) => !isReplay(r.name)));
  const floor = stats[0].sync;
  for (const r of stats) {
    if (r.sync === undefined) {
      lines.push(
        `| ${r.name} | failed: ${r.error ?? "not run"} | | 0 | | | |`,
      );
      continue;
    }
    lines.push(
      `| ${r.name} | ${r.sync.toFixed(0)} ms | ${
        Math.min(...r.ms).toFixed(0)
      }–${Math.max(...r.ms).toFixed(0)} | ${r.ok.length}${
        r.failed ? ` (+${r.failed} failed)` : ""
      } | ${ratio(r.sync, floor)} | ${mib(r.ph)} / ${mib(r.sh)} = ${
        ratio(r.ph, r.sh)
      } | ${mib(r.pr)} / ${mib(r.sr)} = ${ratio(r.pr, r.sr)} |`,
    );
  }
  // The verdicts, for ours in each mode.
  const peers = stats.filter((r) =>
    !isOurs(r.name) && !isFloor(r.name) && !isDiagnostic(r.name) &&
    r.sync !== undefined
  );
  lines.push("");
  for (const o of stats.filter((r) => isOurs(r.name) && r.sync !== undefined)) {
    const ahead = peers.filter((p) => p.sync! <= o.sync!);
    const heapRatio = o.ph !== undefined && o.sh ? o.ph / o.sh : undefined;
    const rssRatio = o.pr !== undefined && o.sr ? o.pr / o.sr : undefined;
    lines.push(
      `- ${o.name}: ahead of every peer on sync time: ${
        peers.length === 0
          ? "not measured (no peer in this run)"
          : ahead.length === 0
          ? "**met**"
          : `**missed**, behind ${
            ahead.map((p) =>
              `${p.name.split(",")[0].split(" (")[0]}${
                p.name.includes("protobuf") ? " on protobuf" : ""
              }${p.name.includes("paged LIST, JSON") ? " paged" : ""} (${
                (o.sync! / p.sync!).toFixed(2)
              }× its time)`
            ).join(", ")
          }`
      }; ≤ 1.1× the real-server floor: ${
        floor === undefined
          ? "not measured"
          : `**${o.sync! / floor <= 1.1 ? "met" : "missed"}** (${
            (o.sync! / floor).toFixed(2)
          }×)`
      }; peak ≤ 1.3× steady: heap **${
        heapRatio === undefined
          ? "not measured"
          : heapRatio <= 1.3
          ? "met"
          : "missed"
      }** (${heapRatio?.toFixed(2)}×), RSS **${
        rssRatio === undefined
          ? "not measured"
          : rssRatio <= 1.3
          ? "met"
          : "missed"
      }** (${rssRatio?.toFixed(2)}×).`,
    );
  }
  lines.push("");
  if (replays.length > 0) replayTable(e, replays);
}

/**
 * The flood against the real server: every ConfigMap replayed as ADDED to a
 * watch from before the creates (empty LIST at that version, then the watch).
 */
function replayTable(
  e: SizeRuns,
  replays: { name: string; ms: number[]; sync?: number; error?: string }[],
): void {
  const rate = (ms: number) => e.objects / (ms / 1000);
  const events = (n: number) => Math.round(n).toLocaleString("en");
  lines.push(
    `Replayed: a watch from the namespace's resourceVersion before the creates (each contender first lists exactly there, an empty list), so the server sends all ${
      e.objects.toLocaleString("en")
    } ConfigMaps as ADDED events from its watch cache: the flood of a real server. Time from the contender's start to the last object held (the floor: parsed).`,
    "",
    "| Contender | Time (median) | min–max | events/s | vs the floor's rate |",
    "| --- | ---: | ---: | ---: | ---: |",
  );
  const floorRate = replays[0].sync && rate(replays[0].sync);
  for (const r of replays) {
    if (r.sync === undefined) {
      lines.push(`| ${r.name} | failed: ${r.error ?? "not run"} | | | |`);
      continue;
    }
    lines.push(
      `| ${r.name} | ${r.sync.toFixed(0)} ms | ${
        Math.min(...r.ms).toFixed(0)
      }–${Math.max(...r.ms).toFixed(0)} | ${events(rate(r.sync))} | ${
        ratio(rate(r.sync), floorRate)
      } |`,
    );
  }
  lines.push("");
}
const text = lines.join("\n");
console.log(text);
if (md) {
  await Deno.writeTextFile(
    md,
    `### Against a real kube-apiserver: 10k and 100k, both list modes, every peer, the floor\n\nFrom \`deno run -A bench/real_server_rows.ts --rounds 3 --out bench/real_server_rows.json --md bench/REAL_SERVER_ROWS.md\` (a run of its own, not part of \`bench:compare\`; \`--render bench/real_server_rows.json\` re-renders it). The floor (\`bench/_contender_real_floor.ts\`) is a bare \`fetch\` over TLS and \`JSON.parse\` of the same list from the same server, keeping nothing, in one process; it keeps nothing, so its peak/steady ratios only show what one parse allocates. Diagnostics of a second run (\`--extra\`: the floor read as bytes in JSON and protobuf, ours with larger pages) are in \`bench/real_server_rows_extra.json\`. Reasoning in ANALYSIS.md, "Against the real server: every contender at 10k and 100k".\n\n${text}`,
  );
  await denoFmt([md]);
}
