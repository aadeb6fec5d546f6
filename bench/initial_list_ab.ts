/**
 * The two initial-list modes against a real kube-apiserver, interleaved:
 * one control plane (`testing/control_plane/`) holding `--objects`
 * ConfigMaps of about 3 KB (`bench/_real_server.ts`), and a `Watcher` of
 * them in a fresh process per round, with `initialList: "list"` (LIST pages
 * of 500) and `initialList: "stream"` (one watch with
 * `sendInitialEvents=true`) in turn (A B A B …, the order reversed every
 * other round). Each round reports:
 *
 * - the sync time, from `start()` to `waitForSync()` resolving;
 * - the peak heap during the sync (sampled every 5 ms and at every
 *   `onChange`) and the peak RSS (the kernel's high-water mark, reset
 *   before the watcher starts);
 * - the steady state after it: heap after GC and RSS, once the sync is over
 *   and the objects are in the store.
 *
 * With `--bare`, two more runs per round: the same requests (the pages of
 * 500, or the one watch to its end bookmark) read as bytes, unparsed: the
 * server's and the transport's share of each mode's sync time.
 *
 * Run: `deno run -A --v8-flags=--expose-gc bench/initial_list_ab.ts
 * [--rounds 4] [--objects 10000] [--bare]` (Linux: the peak RSS reads
 * `/proc/self/status`).
 *
 * @module
 */

import { FetchClient, type RestClient, silentLogger, Watcher } from "../mod.ts";
import { median } from "./_format.ts";
import { REAL_SERVER_NAMESPACE, startRealServer } from "./_real_server.ts";
import { takeOption } from "./_args.ts";

type Mode = "list" | "stream";
/** A watcher in a mode, or the same requests read as bytes ("bare"). */
type Run = Mode | "bare-list" | "bare-stream";

interface Round {
  mode: Run;
  syncMs: number;
  objects: number;
  peakHeap: number;
  peakRss: number;
  /** RSS before the watcher started. */
  baseRss: number;
  steadyHeap: number;
  steadyRss: number;
  requests: string[];
}

const CHILD = "--child";

if (Deno.args[0] === CHILD) {
  const [, kubeconfig, mode, objects] = Deno.args;
  const run = mode.startsWith("bare-")
    ? bare(kubeconfig, mode as Run)
    : child(kubeconfig, mode as Mode, Number(objects));
  console.log(`RESULT ${JSON.stringify(await run)}`);
  Deno.exit(0);
}

async function settledHeap(): Promise<number> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error("run with --v8-flags=--expose-gc");
  for (let i = 0; i < 4; i++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return Deno.memoryUsage().heapUsed;
}

/** The kernel's peak RSS of this process (VmHWM), in bytes. */
function peakRss(): number {
  const status = Deno.readTextFileSync("/proc/self/status");
  const kb = Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? NaN);
  return kb * 1024;
}

/**
 * The server's and the transport's share: the same requests as the
 * watcher's (pages of 500, or one watch to its end bookmark), each body
 * read as bytes and not parsed.
 */
async function bare(kubeconfig: string, mode: Run): Promise<Round> {
  const client = FetchClient.fromKubeconfig(kubeconfig);
  const path = `/api/v1/namespaces/${REAL_SERVER_NAMESPACE}/configmaps`;
  const requests: string[] = [];
  const t0 = performance.now();
  if (mode === "bare-list") {
    let token: string | undefined;
    do {
      const query = new URLSearchParams({ limit: "500" });
      if (token) query.set("continue", token);
      requests.push(query.toString());
      const text = await new Response(
        await client.performRequest({
          method: "GET",
          path,
          querystring: query,
          expectStream: true,
        }),
      ).text();
      // The token is in the list's metadata, at the start of the body.
      token = /"continue":"([^"]+)"/.exec(text.slice(0, 2_000))?.[1];
    } while (token);
  } else {
    const query = new URLSearchParams({
      watch: "1",
      sendInitialEvents: "true",
      resourceVersionMatch: "NotOlderThan",
      allowWatchBookmarks: "true",
    });
    requests.push(query.toString());
    const abort = new AbortController();
    const body = await client.performRequest({
      method: "GET",
      path,
      querystring: query,
      expectStream: true,
      abortSignal: abort.signal,
    });
    const decoder = new TextDecoder();
    let tail = "";
    for await (const chunk of body) {
      tail = (tail + decoder.decode(chunk, { stream: true })).slice(-4_000);
      if (tail.includes("k8s.io/initial-events-end")) break;
    }
    abort.abort();
  }
  const syncMs = performance.now() - t0;
  client[Symbol.dispose]();
  return {
    mode,
    syncMs,
    objects: 0,
    peakHeap: NaN,
    peakRss: NaN,
    baseRss: NaN,
    steadyHeap: NaN,
    steadyRss: NaN,
    requests,
  };
}

async function child(
  kubeconfig: string,
  mode: Mode,
  objects: number,
): Promise<Round> {
  const inner = FetchClient.fromKubeconfig(kubeconfig);
  const requests: string[] = [];
  const client = {
    get defaultNamespace() {
      return inner.defaultNamespace;
    },
    // deno-lint-ignore no-explicit-any
    performRequest(opts: any): Promise<any> {
      requests.push(String(opts.querystring ?? ""));
      return inner.performRequest(opts);
    },
  } as RestClient;
  let peakHeap = 0;
  const sample = () => {
    const heap = Deno.memoryUsage().heapUsed;
    if (heap > peakHeap) peakHeap = heap;
  };
  const watcher = new Watcher(
    {
      gvr: { group: "", version: "v1", resource: "configmaps" },
      namespace: REAL_SERVER_NAMESPACE,
      indexBy: ["metadata.namespace", "metadata.name"],
      ignoreFields: ["metadata.managedFields"],
      initialList: mode,
      onChange: sample,
    },
    client,
    { logger: silentLogger },
  );
  await settledHeap();
  // Resets VmHWM to the current RSS (Linux 4.0+).
  Deno.writeTextFileSync("/proc/self/clear_refs", "5");
  peakHeap = 0;
  const baseRss = Deno.memoryUsage().rss;
  const sampler = setInterval(sample, 5);
  const stopper = new AbortController();
  const t0 = performance.now();
  void watcher.start(stopper.signal);
  const count = await watcher.waitForSync(AbortSignal.timeout(170_000));
  const syncMs = performance.now() - t0;
  sample();
  clearInterval(sampler);
  const duringRss = peakRss();
  if (count !== objects) throw new Error(`synced ${count} of ${objects}`);
  // The steady state: the sync's garbage collected, the store kept.
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const steadyHeap = await settledHeap();
  const steadyRss = Deno.memoryUsage().rss;
  await watcher.stop();
  inner[Symbol.dispose]();
  return {
    mode,
    syncMs,
    objects: count,
    peakHeap,
    peakRss: duringRss,
    baseRss,
    steadyHeap,
    steadyRss,
    requests,
  };
}

const args = [...Deno.args];
const rounds = Number(takeOption(args, "--rounds", "4"));
/** With `--bare`: also the requests alone, read as bytes. */
const withBare = args.includes("--bare");
const objects = Number(takeOption(args, "--objects", "10000"));

const server = await startRealServer(objects, (l) => console.error(l));
if ("notRun" in server) throw new Error(server.notRun);
const { plane, kubeconfig } = server;

async function once(mode: Run): Promise<Round> {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--no-lock",
      "--allow-all",
      "--v8-flags=--expose-gc,--max-old-space-size=8192",
      new URL(import.meta.url).pathname,
      CHILD,
      kubeconfig,
      mode,
      String(objects),
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const line = new TextDecoder().decode(stdout).split("\n")
    .find((l) => l.startsWith("RESULT "));
  if (code !== 0 || line === undefined) {
    throw new Error(
      `${mode} failed (${code}): ${new TextDecoder().decode(stderr)}`,
    );
  }
  return JSON.parse(line.slice(7)) as Round;
}

const MB = 1024 * 1024;
const modes: Run[] = withBare
  ? ["list", "stream", "bare-list", "bare-stream"]
  : ["list", "stream"];
const results = new Map<Run, Round[]>(modes.map((m) => [m, []]));
try {
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 === 0 ? modes : [...modes].reverse();
    for (const mode of order) {
      const round = await once(mode);
      results.get(mode)!.push(round);
      if (!(round.peakHeap > 0)) {
        console.error(
          `round ${r + 1} ${mode}: ${round.syncMs.toFixed(0)} ms (bytes only)`,
        );
        continue;
      }
      console.error(
        `round ${r + 1} ${mode}: ${round.syncMs.toFixed(0)} ms, peak heap ${
          (round.peakHeap / MB).toFixed(0)
        } MB / steady ${(round.steadyHeap / MB).toFixed(0)} MB, peak RSS ${
          (round.peakRss / MB).toFixed(0)
        } MB / steady ${
          (round.steadyRss / MB).toFixed(0)
        } MB; requests ${round.requests.length}${
          round.requests.some((q) => q.includes("sendInitialEvents"))
            ? " (streamed)"
            : ""
        }`,
      );
    }
  }
} finally {
  await plane.stop();
}

const m = (mode: Run, f: (r: Round) => number) =>
  median(results.get(mode)!.map(f))!;
console.log(
  `\n${
    objects / 1000
  }k ConfigMaps (${server.bytesPerObject} B each) from ${server.versions} over TLS, ${rounds} interleaved rounds, medians (load ${
    Deno.loadavg().map((l) => l.toFixed(1)).join(" ")
  }):`,
);
console.log(
  "| initialList | sync ms | peak heap MB | steady heap MB | peak/steady heap | RSS before MB | peak RSS MB | steady RSS MB | peak/steady RSS |",
);
console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
for (const mode of modes) {
  const sync = m(mode, (r) => r.syncMs);
  const ph = m(mode, (r) => r.peakHeap);
  const sh = m(mode, (r) => r.steadyHeap);
  const pr = m(mode, (r) => r.peakRss);
  const sr = m(mode, (r) => r.steadyRss);
  const br = m(mode, (r) => r.baseRss);
  if (!(ph > 0)) {
    console.log(
      `| ${mode} (bytes only) | ${sync.toFixed(0)} |${" – |".repeat(7)}`,
    );
    continue;
  }
  console.log(
    `| ${mode} | ${sync.toFixed(0)} | ${(ph / MB).toFixed(0)} | ${
      (sh / MB).toFixed(0)
    } | ${(ph / sh).toFixed(2)}× | ${(br / MB).toFixed(0)} | ${
      (pr / MB).toFixed(0)
    } | ${(sr / MB).toFixed(0)} | ${(pr / sr).toFixed(2)}× |`,
  );
}
