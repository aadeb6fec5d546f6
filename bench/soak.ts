/**
 * The soak (`deno task soak`): three watchers on one client hold 100k pods
 * for an hour while the server churns them at a steady rate, drops every
 * watch every two minutes and compacts its history every five (so the
 * resumes get 410 Expired and relist). The heap is sampled after a forced
 * GC every 30 s; at the end each watcher's store is compared with a fresh
 * LIST (missing, ghost and stale objects) and `bench/SOAK.md` and
 * `bench/soak.svg` are written, with the slope of heap per object over the
 * second half.
 *
 * The watchers: two of one form (indexed by namespace and name,
 * `metadata.managedFields` ignored), which share one stream and one store,
 * and one with the client-side field selector `status.phase=Running`, a
 * view of its own on the same stream. The server (`_soak_server.ts`) runs
 * in its own process so that its objects never show in this heap.
 *
 * Run: `deno task soak [--minutes 60] [--pods 100000] [--rate 300]
 * [--out bench/SOAK.md]`, or `deno task soak --render <results.json>` to
 * write the report again from a run's saved results.
 *
 * @module
 */

import {
  FetchClient,
  type KubeObject,
  silentLogger,
  Watcher,
  type WatcherConfig,
} from "../mod.ts";
import { denoFmt } from "./_deno_fmt.ts";
import { renderSoakChart } from "./_soak_chart.ts";
import { startControlPlaneSoak } from "./_soak_control_plane.ts";
import { renderSoakReport, type SoakResults } from "./_soak_report.ts";

function flag(name: string): string | undefined {
  const i = Deno.args.indexOf(`--${name}`);
  return i >= 0 ? Deno.args[i + 1] : undefined;
}

const here = new URL(".", import.meta.url);

async function writeReport(results: SoakResults, out: URL): Promise<void> {
  const svgName = out.pathname.endsWith("SOAK.md")
    ? "soak.svg"
    : `${out.pathname.split("/").pop()!.replace(/\.md$/, "")}.svg`;
  const svg = new URL(svgName, out);
  await Deno.writeTextFile(svg, renderSoakChart(results));
  await Deno.writeTextFile(out, renderSoakReport(results, svgName));
  await denoFmt([svg.pathname, out.pathname]);
  console.log(`wrote ${out.pathname} and ${svg.pathname}`);
}

const outPath = flag("out");
const out = outPath
  ? new URL(outPath, `file://${Deno.cwd()}/`)
  : new URL("SOAK.md", here);

const render = flag("render");
if (render !== undefined) {
  const results = JSON.parse(await Deno.readTextFile(render)) as SoakResults;
  await writeReport(results, out);
  Deno.exit(0);
}

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) {
  throw new Error(
    "The soak needs a forced GC: run it with --v8-flags=--expose-gc (deno task soak does)",
  );
}

const controlPlane = Deno.args.includes("--control-plane");
const minutes = Number(flag("minutes") ?? (controlPlane ? 15 : 60));
const pods = Number(
  flag("objects") ?? flag("pods") ?? (controlPlane ? 10_000 : 100_000),
);
// 300 writes/s so that the second half starts in the steady state: a hash
// table under churn keeps room for deleted entries, so each of the
// per-namespace Maps (100 pods in each of 1000 namespaces) doubles its
// capacity once, at the 29th replacement in its namespace, and stays there.
// At 30 deletes/s the last namespace is past that by about 28 minutes; at
// 100 writes/s one namespace in ten was not there when the hour ended, and
// the step read as a slope (bench/ANALYSIS.md, "The soak's slope").
const rate = Number(flag("rate") ?? (controlPlane ? 50 : 300));
const sampleEverySec = Number(flag("sample-every") ?? 30);
const durationSec = Math.round(minutes * 60);
// An hour drops every watch every 2 minutes and compacts every 5; a
// shorter run keeps at least a few of each.
const dropEverySec = Number(
  flag("drop-every") ?? Math.min(120, Math.max(30, durationSec / 6)),
);
const compactEverySec = Number(
  flag("compact-every") ?? Math.min(300, Math.max(60, durationSec / 3)),
);
if (!(minutes > 0 && pods > 0 && rate > 0 && sampleEverySec > 0)) {
  throw new Error("--minutes, --pods, --rate and --sample-every must be > 0");
}
const resultsPath = flag("results") ??
  `/tmp/soak-${controlPlane ? "cp-" : ""}${pods}-${minutes}m.json`;

function settledHeap(): number {
  gc!();
  gc!();
  return Deno.memoryUsage().heapUsed;
}

// --- the server -----------------------------------------------------------

/** The server the soak runs against: what the watchers read, and its faults. */
interface SoakBackend {
  client: FetchClient;
  command(name: string): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

async function fakeBackend(): Promise<SoakBackend> {
  const serverProcess = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-net",
      "--v8-flags=--max-old-space-size=8192",
      new URL("_soak_server.ts", here).pathname,
      String(pods),
      String(rate),
    ],
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const serverIn = serverProcess.stdin.getWriter();
  const serverLines = serverProcess.stdout
    .pipeThrough(new TextDecoderStream())
    .getReader();
  let serverBuffer = "";
  async function serverLine(): Promise<Record<string, unknown>> {
    for (;;) {
      const nl = serverBuffer.indexOf("\n");
      if (nl >= 0) {
        const line = serverBuffer.slice(0, nl);
        serverBuffer = serverBuffer.slice(nl + 1);
        return JSON.parse(line);
      }
      const { value, done } = await serverLines.read();
      if (done) throw new Error("The soak server ended early");
      serverBuffer += value;
    }
  }
  const ready = await serverLine() as { url: string; fillMs: number };
  console.log(
    `server ready at ${ready.url} (${pods} pods in ${ready.fillMs} ms)`,
  );
  return {
    client: new FetchClient({ server: ready.url }),
    async command(name) {
      await serverIn.write(new TextEncoder().encode(`${name}\n`));
      return await serverLine();
    },
    async close() {
      await serverIn.close();
      await serverProcess.status;
    },
  };
}

const backend = controlPlane
  ? await startControlPlaneSoak(pods, rate)
  : await fakeBackend();
const command = (name: string) => backend.command(name);
const resource = controlPlane ? "configmaps" : "pods";

// --- the watchers ---------------------------------------------------------

const SELECTOR = controlPlane
  ? "metadata.labels.tier=web"
  : "status.phase=Running";
const client = backend.client;
const batches = [0, 0, 0];
function makeWatcher(k: number, fieldSelector?: string): Watcher {
  const config: WatcherConfig = {
    gvr: { group: "", version: "v1", resource },
    indexBy: ["metadata.namespace", "metadata.name"],
    ignoreFields: ["metadata.managedFields"],
    fieldSelector,
    onChange: () => {
      batches[k]++;
    },
  };
  return new Watcher(config, client, { logger: silentLogger });
}
const names = ["shared A", "shared B", `selector ${SELECTOR}`];
const watchers = [makeWatcher(0), makeWatcher(1), makeWatcher(2, SELECTOR)];

const baseline = settledHeap();
const stopper = new AbortController();
const t0 = performance.now();
const runs = watchers.map((w) => w.start(stopper.signal));
await Promise.all(
  watchers.map((w) => w.waitForSync(AbortSignal.timeout(600_000))),
);
const syncMs = performance.now() - t0;
console.log(`synced in ${Math.round(syncMs)} ms`);

// --- the hour -------------------------------------------------------------

const samples: SoakResults["samples"] = [];
const faults: SoakResults["faults"] = [];

function sample(t: number, objects: number): void {
  const heap = settledHeap();
  const health = watchers.map((w) => w.health());
  const s = {
    t: Math.round(t),
    heapUsed: heap,
    heapPerObject: (heap - baseline) / objects,
    rss: Deno.memoryUsage().rss,
    objects,
    stored: health.map((h) => h.objects),
    events: health.map((h) => h.events),
    relists: health.map((h) => h.relists),
    reconnects: health.map((h) => h.reconnects),
  };
  samples.push(s);
  console.log(
    `t=${s.t}s heap ${(heap / 2 ** 20).toFixed(1)} MiB, ${
      s.heapPerObject.toFixed(0)
    } B/object, objects ${objects}, relists ${
      s.relists.join("/")
    }, reconnects ${s.reconnects.join("/")}`,
  );
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const start = performance.now();
const elapsed = () => (performance.now() - start) / 1000;
let nextSample = 0;
let nextDrop = dropEverySec + 5;
let nextCompact = compactEverySec + 5;
let live = pods;
while (elapsed() < durationSec) {
  const t = elapsed();
  if (t >= nextCompact) {
    const s = await command("compact");
    faults.push({ t: Math.round(t), kind: "compact" });
    live = s.live as number;
    nextCompact += compactEverySec;
    // A drop due now is part of the compaction.
    if (nextDrop - t < 30) nextDrop += dropEverySec;
  } else if (t >= nextDrop) {
    const s = await command("drop");
    faults.push({ t: Math.round(t), kind: "drop" });
    live = s.live as number;
    nextDrop += dropEverySec;
  }
  if (t >= nextSample) {
    live = (await command("stats")).live as number;
    sample(t, live);
    nextSample += sampleEverySec;
  }
  await sleep(200);
}

// --- the check ------------------------------------------------------------

const paused = await command("pause");
const finalVersion = Number(paused.resourceVersion);
console.log(`churn paused at resourceVersion ${finalVersion}`);
sample(elapsed(), paused.live as number);
const pausedAt = performance.now();
const caughtUpBy = pausedAt + 300_000;
for (;;) {
  const behind = watchers.filter((w) => {
    const h = w.health();
    return !h.synced || Number(h.resourceVersion ?? 0) < finalVersion;
  });
  if (behind.length === 0) break;
  if (performance.now() > caughtUpBy) {
    throw new Error(
      `${behind.length} watcher(s) did not reach resourceVersion ${finalVersion}`,
    );
  }
  await sleep(200);
}
const caughtUpMs = performance.now() - pausedAt;

/** What the selector reads: the pod's phase, or the ConfigMap's tier. */
function selected(obj: KubeObject): string {
  return controlPlane
    ? obj.metadata.labels?.tier ?? ""
    : (obj as { status?: { phase?: string } }).status?.phase ?? "";
}

/** namespace/name → [resourceVersion, selected field] from a fresh LIST. */
async function freshList(): Promise<Map<string, [string, string]>> {
  const listed = new Map<string, [string, string]>();
  let token = "";
  do {
    const query = new URLSearchParams({ limit: "500" });
    if (token) query.set("continue", token);
    const page = await client.performRequest({
      method: "GET",
      path: `/api/v1/${resource}`,
      querystring: query,
      expectJson: true,
    }) as unknown as {
      items: KubeObject[];
      metadata: { continue?: string };
    };
    for (const obj of page.items) {
      listed.set(`${obj.metadata.namespace}/${obj.metadata.name}`, [
        obj.metadata.resourceVersion!,
        selected(obj),
      ]);
    }
    token = page.metadata.continue ?? "";
  } while (token);
  return listed;
}

const listed = await freshList();
const checks = await Promise.all(watchers.map(async (w, k) => {
  const expected = new Map(
    [...listed].filter(([, [, phase]]) =>
      k < 2 || phase === SELECTOR.split("=")[1]
    ),
  );
  let missing = 0;
  let ghost = 0;
  let stale = 0;
  const stored = await w.store.list();
  const seen = new Set<string>();
  for (const pod of stored) {
    const key = `${pod.metadata.namespace}/${pod.metadata.name}`;
    seen.add(key);
    const want = expected.get(key);
    if (want === undefined) ghost++;
    else if (want[0] !== pod.metadata.resourceVersion) stale++;
  }
  for (const key of expected.keys()) if (!seen.has(key)) missing++;
  const h = w.health();
  return {
    watcher: names[k],
    expected: expected.size,
    stored: stored.length,
    missing,
    ghost,
    stale,
    relists: h.relists,
    reconnects: h.reconnects,
    events: h.events,
    batches: batches[k],
    shared: h.shared === false ? 0 : h.shared.consumers,
  };
}));
const serverStats = await command("stats");

stopper.abort();
await Promise.all(runs);
await backend.close();

const results: SoakResults = {
  date: new Date().toISOString(),
  deno: Deno.version.deno,
  v8: Deno.version.v8,
  server: controlPlane
    ? "kube-apiserver and etcd (testing/control_plane/, watch cache off), written to from the soak's process"
    : "FakeApiServer over HTTP (bench/_soak_server.ts), its own process",
  selector: SELECTOR,
  churnLabel: controlPlane
    ? "three updates in eight flip the `tier` label between web and batch; unconditional PUTs from the soak's process"
    : undefined,
  faultsLabel: controlPlane
    ? `kube-apiserver killed and restarted every ${dropEverySec} s (every watch broke; ${
      faults.filter((f) => f.kind === "drop").length
    } times); every ${compactEverySec} s two Secrets written, etcd compacted at the current revision and kube-apiserver restarted, so every resume got 410 (${
      faults.filter((f) => f.kind === "compact").length
    } times)`
    : undefined,
  objectsLabel: controlPlane
    ? "ConfigMaps (~1 KB of data, ten namespaces; the selector watcher: `metadata.labels.tier=web`)"
    : undefined,
  minutes,
  pods,
  rate,
  sampleEverySec,
  dropEverySec,
  compactEverySec,
  syncMs: Math.round(syncMs),
  caughtUpMs: Math.round(caughtUpMs),
  baselineHeap: baseline,
  finalVersion,
  samples,
  faults,
  checks,
  serverStats,
};
await Deno.writeTextFile(resultsPath, JSON.stringify(results, null, 1));
console.log(`results in ${resultsPath}`);
console.table(checks);
await writeReport(results, out);
