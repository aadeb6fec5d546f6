/**
 * Side-by-side benchmark: our `Watcher`, `@kubernetes/client-node` 2.0.1's
 * informer (under Deno), the raw floor (fetch + line split + JSON.parse)
 * and the compiled peers (client-go's informer, kube-rs's reflector; built
 * on first use, see `_native.ts`), one after another in fresh processes,
 * against one bench server process serving identical pre-serialized bytes
 * on 127.0.0.1.
 *
 * Run with `deno task bench:compare`. Options:
 * - `--quick`: 1k and 10k objects, a 20k-event flood, fewer repeats (smoke test).
 * - `--repeats N`: runs per measurement (median reported); default 3 (the medians of 3 fresh processes the figures quote).
 * - `--no-scale`: skip the scale section (metadata-only curve to 1M objects,
 *   ten watchers of one resource).
 * - `--scale-only`: measure only the scale section; the other sections are
 *   kept from the stored results.json.
 * - `--out DIR`: where RESULTS.md, results.json and chart.svg go; default bench/.
 * - `--rerender`: rebuild those three from the runs kept in results.json.
 * - `--final`: drop the "preliminary" banner (for a run on a quiet machine;
 *   with `--rerender`, for the stored run).
 * - `--native LIST`: which built peers to build and run, of
 *   `client_go,kube_rs,fluent` (the default); `--no-native` runs none.
 * - `--real-server` / `--no-real-server`: the sync of 10k ConfigMaps
 *   against a real kube-apiserver and etcd (`testing/control_plane/`), on
 *   by default, off with `--quick` unless asked for.
 * - `--no-reconcile`: skip the reconcile section (ours, client-go's
 *   workqueue, controller-runtime and kube-runtime; `_reconcile_rows.ts`).
 * - `--reconcile-only`: measure only the reconcile section; the others are
 *   kept from the stored results.json.
 * - `--kube-rs-queue`: also run kube-runtime on the reconcile section's 1M-add
 *   queue row (878 s once here).
 *
 * @module
 */

import { denoFmt } from "./_deno_fmt.ts";
import type { Outcome, Task } from "./_contender.ts";
import {
  type ScenarioRequest,
  type ScenarioStats,
  scenarioStats,
  setScenario,
} from "./_protocol.ts";
import type { StoreCosts } from "./_store_costs.ts";
import { PEER_SPECIFIER } from "./_peer.ts";
import {
  type ContenderName,
  isScaleRun,
  renderMarkdown,
  type Report,
} from "./_report.ts";
import { renderChart } from "./_chart.ts";
import { NATIVE_METADATA_ONLY } from "./_metadata_only.ts";
import { fanoutSetups } from "./_report_scale.ts";
import {
  CAN_DROP_FIELDS,
  FANOUT_PEERS,
  METADATA_PEERS,
  REAL_SERVER_CONTENDERS,
} from "./_report_leaders.ts";
import {
  REAL_SERVER_NAMESPACE,
  type RealServer,
  startRealServer,
} from "./_real_server.ts";
import {
  buildNative,
  type NativeBuild,
  type NativeContender,
} from "./_native.ts";
import { measureReconcile } from "./_reconcile_rows.ts";
import { startBenchServer } from "./_server_process.ts";
import { takeFlag, takeOption } from "./_args.ts";

const args = [...Deno.args];

const quick = takeFlag(args, "--quick");
const rerender = takeFlag(args, "--rerender");
const final = takeFlag(args, "--final");
const scaleOnly = takeFlag(args, "--scale-only");
const reconcileOnly = takeFlag(args, "--reconcile-only");
if (scaleOnly && reconcileOnly) {
  throw new Error("--scale-only and --reconcile-only exclude each other");
}
/** Only one section is measured; the rest comes from results.json. */
const oneSection = scaleOnly || reconcileOnly;
const reconcile = !scaleOnly && !takeFlag(args, "--no-reconcile");
const kubeRsQueue = takeFlag(args, "--kube-rs-queue");
const scale = scaleOnly || (!reconcileOnly && !takeFlag(args, "--no-scale"));
const realServerAsked = takeFlag(args, "--real-server");
const realServer = !oneSection && !takeFlag(args, "--no-real-server") &&
  (realServerAsked || !quick);
const nativePrograms = takeFlag(args, "--no-native")
  ? []
  : takeOption(args, "--native", "client_go,kube_rs,fluent").split(",")
    .filter((p) => p);
for (const p of nativePrograms) {
  if (p !== "client_go" && p !== "kube_rs" && p !== "fluent") {
    throw new Error(
      `--native takes client_go, kube_rs and fluent, separated by commas, not ${p}`,
    );
  }
}
const repeats = Number(takeOption(args, "--repeats", quick ? "1" : "3"));
const outDir = new URL(
  takeOption(args, "--out", new URL(".", import.meta.url).pathname).replace(
    /\/?$/,
    "/",
  ),
  "file:///",
);
const SIZES = quick ? [1_000, 10_000] : [1_000, 10_000, 100_000];
const HEAP_SIZE = SIZES[SIZES.length - 1];
const FLOOD_OBJECTS = 5_000;
const FLOOD_EVENTS = quick ? 20_000 : 100_000;
const LATENCY_OBJECTS = 1_000;
const LATENCY_WARMUP = 20;
const LATENCY_COUNT = quick ? 100 : 300;
const LATENCY_GAP_MS = 20;
const RUN_TIMEOUT_MS = 180_000;
/** The scale curve: metadata-only to 1M objects, full objects to 100k. */
const SCALE_METADATA_SIZES = quick
  ? [1_000, 10_000]
  : [1_000, 10_000, 100_000, 1_000_000];
/** The target: metadata-only objects synced within a 2 GB heap. */
const SCALE_HEAP_MIB = 2048;
const SCALE_TIMEOUT_MS = 600_000;
/** Ten watchers of one resource with different field selectors. */
const FANOUT_OBJECTS = quick ? 1_000 : 10_000;
const FANOUT_CONSUMERS = 10;
/** Sizes of the full-object (managedFields kept) sync rows, and repeats. */
const FULL_SIZES = quick ? [10_000] : [10_000, 100_000];
const FULL_REPEATS = quick ? 1 : 3;
/** The size of the peers' metadata-only row (ours runs the whole curve). */
const METADATA_PEER_SIZE = quick ? 10_000 : 100_000;
/** The real-server row: ConfigMaps, and fresh processes per contender. */
const REAL_SERVER_OBJECTS = 10_000;
const REAL_SERVER_REPEATS = 3;

const here = new URL(".", import.meta.url);

const SCRIPTS: Partial<Record<ContenderName, URL>> = {
  floor: new URL("_contender_floor.ts", here),
  ours: new URL("_contender_ours.ts", here),
  peer: new URL("_contender_peer.ts", here),
};
/** The compiled peers, in the order they run. */
const NATIVE: Partial<Record<ContenderName, NativeContender>> = {
  "client-go": { program: "client_go", variant: "typed" },
  "client-go-dynamic": { program: "client_go", variant: "dynamic" },
  "kube-rs": { program: "kube_rs", variant: "typed" },
  "kube-rs-dynamic": { program: "kube_rs", variant: "dynamic" },
  fluent: { program: "fluent" },
};
/** How to run each built peer, by program. */
const binaries = new Map<string, { command: string; args: string[] }>();
const V8_FLAGS = "--v8-flags=--expose-gc,--max-old-space-size=8192";
const SCALE_V8_FLAGS =
  `--v8-flags=--expose-gc,--max-old-space-size=${SCALE_HEAP_MIB}`;

const started = performance.now();
const log = (msg: string) =>
  console.error(
    `[${
      ((performance.now() - started) / 1000).toFixed(1).padStart(6)
    } s] ${msg}`,
  );

/** Runs a Deno script in a fresh process; returns its `RESULT` payload. */
function runScript(
  script: URL,
  scriptArgs: string[],
  timeoutMs: number,
  extraFlags: string[] = [],
): Promise<unknown> {
  return runProcess(Deno.execPath(), [
    "run",
    "--no-lock",
    "--allow-all",
    ...extraFlags,
    script.pathname,
    ...scriptArgs,
  ], timeoutMs);
}

/** Runs a program in a fresh process; returns its `RESULT` payload. */
async function runProcess(
  command: string,
  args: string[],
  timeoutMs: number,
): Promise<unknown> {
  const { code, stdout, stderr } = await new Deno.Command(command, {
    args,
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(timeoutMs),
  }).output();
  const out = new TextDecoder().decode(stdout);
  const line = out.split("\n").find((l) => l.startsWith("RESULT "));
  if (code !== 0 || line === undefined) {
    const err = new TextDecoder().decode(stderr).trim().split("\n").slice(-5)
      .join(" | ");
    throw new Error(`exit code ${code}: ${err || out.slice(-300)}`);
  }
  return JSON.parse(line.slice("RESULT ".length));
}

/** Machine facts for the report. */
function machine(): Report["machine"] {
  let cpu = "unknown";
  try {
    const info = Deno.readTextFileSync("/proc/cpuinfo");
    cpu = info.match(/^model name\s*:\s*(.+)$/m)?.[1]?.trim() ?? cpu;
  } catch { /* not Linux */ }
  return {
    cpu,
    cores: navigator.hardwareConcurrency,
    memoryGiB: Math.round(Deno.systemMemoryInfo().total / 2 ** 30 * 10) / 10,
    os: `${Deno.build.os} ${Deno.osRelease()}`,
    deno: Deno.version.deno,
    v8: Deno.version.v8,
    loadAverageAtStart: Deno.loadavg(),
    loadAverageAtEnd: [],
  };
}

if (rerender) {
  // Re-renders the outputs from the runs stored in results.json, e.g. after
  // editing ANALYSIS.md, without measuring again.
  const stored = JSON.parse(
    await Deno.readTextFile(new URL("results.json", outDir)),
  ) as Report;
  // With --final, whoever re-renders says the stored run had a quiet machine.
  await writeOutputs(final ? { ...stored, preliminary: false } : stored);
  Deno.exit(0);
}

// ---------------------------------------------------------------------------

const fresh: Report = {
  preliminary: !final,
  date: new Date().toISOString(),
  machine: machine(),
  config: {
    quick,
    repeats,
    sizes: SIZES,
    heapSize: HEAP_SIZE,
    floodObjects: FLOOD_OBJECTS,
    floodEvents: FLOOD_EVENTS,
    latency: {
      objects: LATENCY_OBJECTS,
      warmup: LATENCY_WARMUP,
      count: LATENCY_COUNT,
      gapMs: LATENCY_GAP_MS,
    },
    peer: PEER_SPECIFIER,
    fullSizes: FULL_SIZES,
    fullRepeats: FULL_REPEATS,
    metadataPeerSize: METADATA_PEER_SIZE,
    scale: scale
      ? {
        metadataSizes: SCALE_METADATA_SIZES,
        heapLimitMiB: SCALE_HEAP_MIB,
        nativeMetadataOnly: NATIVE_METADATA_ONLY,
        fanoutObjects: FANOUT_OBJECTS,
        fanoutConsumers: FANOUT_CONSUMERS,
        measuredAt: new Date().toISOString(),
        loadAverageAtStart: Deno.loadavg(),
        seconds: 0,
      }
      : undefined,
  },
  server: {},
  runs: [],
  storeCosts: [],
  native: {},
  totalSeconds: 0,
};
// --scale-only, --reconcile-only: the other sections come from the last
// full run.
const report: Report = oneSection
  ? await (async () => {
    const file = new URL("results.json", outDir);
    const only = scaleOnly ? "--scale-only" : "--reconcile-only";
    const text = await Deno.readTextFile(file).catch((error) => {
      throw new Error(
        `${only} keeps the other sections of ${file.pathname}, which cannot be read: run once without it first`,
        { cause: error },
      );
    });
    const stored = JSON.parse(text) as Report;
    return scaleOnly
      ? {
        ...stored,
        config: { ...stored.config, scale: fresh.config.scale },
        runs: stored.runs.filter((r) => !isScaleRun(r)),
      }
      : stored;
  })()
  : fresh;

log(
  `machine: ${report.machine.cpu}, ${report.machine.cores} cores, Deno ${report.machine.deno}`,
);

if (!oneSection) {
  log(`preparing the peer (${PEER_SPECIFIER}) in Deno's cache`);
  const { code, stderr } = await new Deno.Command(Deno.execPath(), {
    args: [
      "eval",
      "--no-lock",
      `await import(${JSON.stringify(PEER_SPECIFIER)})`,
    ],
    stdout: "null",
    stderr: "piped",
  }).output();
  if (code !== 0) {
    throw new Error(
      `Cannot load ${PEER_SPECIFIER}: ${new TextDecoder().decode(stderr)}`,
    );
  }

  // The builds run side by side: each has stretches on one core (a
  // download, rustc's front end on one large crate, the link) that the
  // others fill, and nothing is measured until all are done.
  const programs = nativePrograms as NativeContender["program"][];
  const builds = await Promise.all(programs.map((p) => buildNative(p, log)));
  for (const [i, program] of programs.entries()) {
    const build: NativeBuild = builds[i];
    (report.native ??= {})[program] = "command" in build
      ? { seconds: build.seconds, cached: build.cached }
      : { unavailable: build.unavailable };
    if ("command" in build) {
      binaries.set(program, build);
      log(
        build.cached
          ? `${program}: cached build ${build.command}`
          : `${program}: built in ${build.seconds} s`,
      );
    } else log(`${program} unavailable: ${build.unavailable}`);
  }

  log("store costs (fresh process)");
  report.storeCosts = await runScript(
    new URL("_store_costs.ts", here),
    [SIZES.join(",")],
    RUN_TIMEOUT_MS,
  ) as StoreCosts[];
}

log("starting the bench server (pre-serializing the data set)");
const server = await startBenchServer(
  scaleOnly ? FANOUT_OBJECTS : reconcileOnly ? FLOOD_OBJECTS : HEAP_SIZE,
  FLOOD_OBJECTS,
  FLOOD_EVENTS,
  scale ? Math.max(...SCALE_METADATA_SIZES) : 0,
);
const serverInfo = server.info;
const base = server.base;
if (!oneSection) {
  report.server = {
    buildMs: serverInfo.buildMs,
    bytesPerObject: Math.round(serverInfo.listBytes / HEAP_SIZE),
    floodBytes: serverInfo.floodBytes,
  };
}
if (scale) {
  report.server.metadataBytesPerObject = serverInfo.metadataBytesPerObject;
}
log(`server ready on ${base} after ${serverInfo.buildMs} ms`);

/**
 * Runs one contender process on the bench server's `scenario`, or, with
 * `scenario.server`, against another server (the real one), whose
 * requests the bench server does not see.
 */
async function measure(
  contender: ContenderName,
  scenario: ScenarioRequest & { server?: string },
  task: Omit<Task, "server" | "timeoutMs" | "objects">,
  label: string,
  repeat: number,
  limits: { timeoutMs: number; v8Flags: string } = {
    timeoutMs: RUN_TIMEOUT_MS,
    v8Flags: V8_FLAGS,
  },
): Promise<void> {
  const onBench = scenario.server === undefined;
  if (onBench) await setScenario(base, scenario);
  const t0 = performance.now();
  let outcome: Outcome | undefined;
  let error: string | undefined;
  let stats: ScenarioStats | undefined;
  const taskJson = JSON.stringify({
    ...task,
    server: scenario.server ?? base,
    objects: scenario.objects,
    timeoutMs: limits.timeoutMs - 10_000,
  });
  const compiled = NATIVE[contender];
  try {
    outcome = compiled
      ? await runProcess(
        binaries.get(compiled.program)!.command,
        [
          ...binaries.get(compiled.program)!.args,
          ...(compiled.variant ? [compiled.variant] : []),
          taskJson,
        ],
        limits.timeoutMs,
      ) as Outcome
      : await runScript(
        SCRIPTS[contender]!,
        [taskJson],
        limits.timeoutMs,
        [limits.v8Flags],
      ) as Outcome;
    if (onBench) stats = await scenarioStats(base);
  } catch (e) {
    error = e instanceof Error ? e.message : String(e);
  }
  const wallMs = performance.now() - t0;
  report.runs.push({
    contender,
    workload: task.workload,
    label,
    objects: scenario.objects,
    repeat,
    outcome,
    server: stats,
    error,
    wallMs,
  });
  const summary = error
    ? `FAILED: ${error}`
    : task.workload === "fanout"
    ? `${outcome!.syncMs!.toFixed(0)} ms, ${
      outcome!.heapPerObject!.toFixed(0)
    } B/pod, ${stats!.lists} lists, ${stats!.watches} watches, ${
      (stats!.listBytes / 2 ** 20).toFixed(1)
    } MiB`
    : task.workload === "sync" && !onBench
    ? `${outcome!.syncMs!.toFixed(0)} ms${
      outcome!.heapPerObject
        ? `, ${outcome!.heapPerObject.toFixed(0)} B/object`
        : ""
    } (real server)`
    : task.workload === "sync"
    ? `${outcome!.syncMs!.toFixed(0)} ms${
      outcome!.heapPerObject
        ? `, ${outcome!.heapPerObject.toFixed(0)} B/object`
        : ""
    }`
    : task.workload === "flood"
    ? `${
      (outcome!.lastAppliedAt! - (stats!.floodStartedAt! -
        (outcome!.clockOffset ?? 0))).toFixed(0)
    } ms for ${outcome!.applied} events`
    : `${outcome!.latencies!.length} samples`;
  log(`${label} #${repeat + 1} ${contender}: ${summary}`);
}

const order: ContenderName[] = [
  "floor",
  "ours",
  "peer",
  ...(Object.keys(NATIVE) as ContenderName[]).filter((c) =>
    binaries.has(NATIVE[c]!.program)
  ),
];
try {
  if (!oneSection) await measureMain();
  if (realServer) await measureRealServer();
  else if (!oneSection) {
    report.config.realServer = {
      objects: REAL_SERVER_OBJECTS,
      notRun: quick
        ? "skipped by --quick (add --real-server to run it)"
        : "skipped by --no-real-server",
    };
  }
  if (scale) await measureScale();
  if (reconcile) {
    log("reconcile section");
    report.reconcile = await measureReconcile({
      server: base,
      floodObjects: FLOOD_OBJECTS,
      floodEvents: FLOOD_EVENTS,
      repeats,
      peers: nativePrograms.length > 0,
      kubeRsQueue,
      log,
    });
  }
} finally {
  await server.stop();
}

/** The side-by-side sections: sync, heap, flood, latency. */
async function measureMain(): Promise<void> {
  for (const size of SIZES) {
    // At least 3 below the heap size, except in the --quick smoke test.
    const n = size === HEAP_SIZE || quick ? repeats : Math.max(repeats, 3);
    for (let r = 0; r < n; r++) {
      for (const c of order) {
        await measure(
          c,
          { objects: size, watch: "idle" },
          // Ours at every size: the full-object scale curve.
          { workload: "sync", heap: size === HEAP_SIZE || c === "ours" },
          `sync ${size}`,
          r,
        );
      }
    }
  }
  // Full objects (managedFields kept) by those that can drop them; the
  // others keep them in every run, so their rows above are already full.
  for (const size of FULL_SIZES) {
    for (let r = 0; r < FULL_REPEATS; r++) {
      for (const c of order.filter((c) => CAN_DROP_FIELDS.includes(c))) {
        await measure(
          c,
          { objects: size, watch: "idle" },
          { workload: "sync", heap: size === HEAP_SIZE, ignoreFields: false },
          `sync ${size} full`,
          r,
        );
      }
    }
  }
  // Heap reference: the floor keeping its parse.
  await measure(
    "floor",
    { objects: HEAP_SIZE, watch: "idle" },
    { workload: "sync", heap: true, keep: true },
    `heap ${HEAP_SIZE} kept in a Map`,
    0,
  );
  for (let r = 0; r < repeats; r++) {
    for (const c of order) {
      await measure(
        c,
        { objects: FLOOD_OBJECTS, watch: "flood" },
        { workload: "flood", events: FLOOD_EVENTS },
        "flood",
        r,
      );
    }
    // The cost of metrics: ours again, with a registry as its meter.
    await measure(
      "ours",
      { objects: FLOOD_OBJECTS, watch: "flood" },
      { workload: "flood", events: FLOOD_EVENTS, metrics: true },
      "flood with metrics",
      r,
    );
    // Reference: the floor keeping every object (what any cache must do).
    await measure(
      "floor",
      { objects: FLOOD_OBJECTS, watch: "flood" },
      { workload: "flood", events: FLOOD_EVENTS, keep: true },
      "flood kept in a Map",
      r,
    );
  }
  for (const c of order) {
    await measure(
      c,
      { objects: LATENCY_OBJECTS, watch: "latency" },
      {
        workload: "latency",
        count: LATENCY_WARMUP + LATENCY_COUNT,
        gapMs: LATENCY_GAP_MS,
      },
      "latency",
      0,
    );
  }
}

/**
 * The scale section: initial sync and retained heap of metadata-only
 * objects to 1M (ours within a 2 GB heap, and the floor), and ten watchers
 * of one resource with different field selectors, on one client (which
 * shares their watch once the Watcher can) and on one client each.
 */
async function measureScale(): Promise<void> {
  const scaleStarted = performance.now();
  const limits = { timeoutMs: SCALE_TIMEOUT_MS, v8Flags: SCALE_V8_FLAGS };
  for (const size of SCALE_METADATA_SIZES) {
    const n = size >= 1_000_000 ? 1 : size >= 100_000 ? 2 : 3;
    for (let r = 0; r < n; r++) {
      // The built peers that ask for the metadata-only form, at one size.
      const peers = size === METADATA_PEER_SIZE
        ? METADATA_PEERS.filter((c) => order.includes(c))
        : [];
      for (const c of ["floor", "ours", ...peers] as ContenderName[]) {
        await measure(
          c,
          { objects: size, watch: "idle" },
          { workload: "sync", heap: c !== "floor", metadataOnly: true },
          `scale metadata ${size}`,
          r,
          limits,
        );
      }
    }
  }
  for (let r = 0; r < (quick ? 1 : 2); r++) {
    for (const f of fanoutSetups(FANOUT_CONSUMERS)) {
      await measure(
        "ours",
        { objects: FANOUT_OBJECTS, watch: "idle" },
        {
          workload: "fanout",
          consumers: f.consumers,
          sharedClient: f.sharedClient,
        },
        f.label,
        r,
      );
    }
    // The peers that share one watch among consumers, as each does it:
    // one consumer, and ten on the shared cache.
    for (const c of FANOUT_PEERS.filter((c) => order.includes(c))) {
      for (
        const f of fanoutSetups(FANOUT_CONSUMERS).filter((f) => f.sharedClient)
      ) {
        await measure(
          c,
          { objects: FANOUT_OBJECTS, watch: "idle" },
          { workload: "fanout", consumers: f.consumers },
          f.label,
          r,
        );
      }
    }
  }
  report.config.scale!.seconds =
    Math.round((performance.now() - scaleStarted) / 100) / 10;
}

/**
 * The real-server row: 10k ConfigMaps of a few KB in a real kube-apiserver
 * (etcd behind it), synced by ours, client-node, client-go (its default
 * streaming list, and paged) and kube-rs over TLS from the control plane's
 * kubeconfig; fresh processes, interleaved.
 */
async function measureRealServer(): Promise<void> {
  log("real server: starting a control plane (testing/control_plane/)");
  const started = performance.now();
  const rs: RealServer = await startRealServer(REAL_SERVER_OBJECTS, log);
  if ("notRun" in rs) {
    log(`real server not run: ${rs.notRun}`);
    report.config.realServer = {
      objects: REAL_SERVER_OBJECTS,
      notRun: rs.notRun,
    };
    return;
  }
  try {
    log(
      `real server: ${REAL_SERVER_OBJECTS} ConfigMaps created in ${
        rs.createSeconds.toFixed(1)
      } s`,
    );
    const contenders = REAL_SERVER_CONTENDERS.filter((c) =>
      order.includes(c.contender)
    );
    for (let r = 0; r < REAL_SERVER_REPEATS; r++) {
      for (const c of contenders) {
        await measure(
          c.contender,
          { objects: REAL_SERVER_OBJECTS, watch: "idle", server: rs.plane.url },
          {
            workload: "sync",
            heap: true,
            kubeconfig: rs.kubeconfig,
            namespace: REAL_SERVER_NAMESPACE,
            resource: "configmaps",
            ...c.task,
          },
          c.label,
          r,
        );
      }
    }
  } finally {
    await rs.plane.stop();
  }
  report.config.realServer = {
    objects: REAL_SERVER_OBJECTS,
    repeats: REAL_SERVER_REPEATS,
    bytesPerObject: rs.bytesPerObject,
    versions: rs.versions,
    startSeconds: Math.round(rs.startSeconds * 10) / 10,
    createSeconds: Math.round(rs.createSeconds * 10) / 10,
    seconds: Math.round((performance.now() - started) / 100) / 10,
  };
}

if (!oneSection) {
  // With --scale-only or --reconcile-only these describe the stored run;
  // those sections carry their own time and load.
  report.machine.loadAverageAtEnd = Deno.loadavg();
  report.totalSeconds = Math.round((performance.now() - started) / 100) / 10;
}

await writeOutputs(report);

/** A file's text, or undefined where there is none. */
async function readIfThere(url: URL): Promise<string | undefined> {
  try {
    return await Deno.readTextFile(url);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
}

/**
 * Puts the larger real-server rows (`bench/real_server_rows.ts` writes
 * them to REAL_SERVER_ROWS.md, a run of their own) at the end of the
 * real-server section, or after the rest where that section is missing.
 */
function withRealServerRows(markdown: string, rows?: string): string {
  if (rows === undefined) return markdown;
  const heading = markdown.indexOf("### Against a real kube-apiserver");
  const end = heading < 0 ? -1 : markdown.indexOf("\n## ", heading);
  if (end < 0) return `${markdown}\n${rows}`;
  return `${markdown.slice(0, end)}\n${rows}${markdown.slice(end)}`;
}

/** Renders RESULTS.md, results.json and chart.svg from a report. */
async function writeOutputs(report: Report): Promise<void> {
  const rendered = renderMarkdown(report);
  const { table, json, chartSeries, scaleSeries } = rendered;
  let markdown = withRealServerRows(
    rendered.markdown,
    await readIfThere(new URL("REAL_SERVER_ROWS.md", here)),
  );
  try {
    // Hand-written analysis of what bounds the figures, kept beside the script.
    markdown += "\n" + await Deno.readTextFile(new URL("ANALYSIS.md", here));
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  await Deno.mkdir(outDir, { recursive: true });
  await Deno.writeTextFile(new URL("RESULTS.md", outDir), markdown);
  await Deno.writeTextFile(
    new URL("results.json", outDir),
    JSON.stringify(json, null, 2) + "\n",
  );
  const { machine: m, config: c } = report;
  await Deno.writeTextFile(
    new URL("chart.svg", outDir),
    renderChart(
      chartSeries,
      `${m.cpu}, ${m.cores} cores, Deno ${m.deno}, ${report.date.slice(0, 10)}`,
      `${c.floodEvents / 1000}k MODIFIED events over ${
        c.floodObjects / 1000
      }k objects`,
      scaleSeries,
    ),
  );
  await denoFmt([new URL("chart.svg", outDir).pathname]);
  console.log(table);
  log(
    `wrote RESULTS.md, results.json and chart.svg to ${outDir.pathname} (measuring took ${report.totalSeconds} s)`,
  );
}
