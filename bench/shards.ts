/**
 * One replica against three shards (issue 32's bench): a `Controller` of
 * 100k ConfigMaps with a no-op reconcile, each replica a process of its
 * own (`_shard_replica.ts`), against the `FakeApiServer` served over HTTP
 * in another (`_shard_server.ts`). Rows:
 *
 * - `single`: one replica, unsharded;
 * - `client`: three replicas of a `ShardRing`, the server without
 *   `shardedListAndWatch` (each receives every event and keeps its share);
 * - `server`: the same, the server with it (each receives its share);
 * - `label`: three replicas, each with the label selector `shard=<n>` over
 *   ConfigMaps labelled up front (kubernetes-controller-sharding's way,
 *   without its sharder);
 * - `alone` (not run by default): `server`, but the other two members hold
 *   their Leases and watch nothing, so that one shard is measured with no
 *   other replica working beside it, as the single replica is.
 *
 * Per replica: the retained heap after the sync, CPU time (user + system)
 * of the sync and of a flood that updates every ConfigMap once, and the
 * reconcile throughput of `reconcileAll()`. A run starts a fresh server and
 * fresh replicas; the replicas of a run sync at the same time, and the
 * flood starts once they all are synced.
 *
 * Run with `deno task bench:shards`. Options:
 * - `--objects N`: ConfigMaps (default 100000).
 * - `--repeats N`: fresh runs per row (default 3; medians are reported).
 * - `--rows LIST`: of `single,client,server,label` (the default) and
 *   `alone`.
 * - `--json FILE`: where the runs go (default bench/shards.json).
 * - `--flood-ms N`: spread the flood's updates evenly over N ms (by
 *   default the server writes them as fast as it can).
 * - `--cpu-prof DIR`: V8 CPU profiles of the first replica of each row
 *   there (`deno run --cpu-prof`; slows that replica down).
 *
 * Prints a Markdown table of medians on stdout (the figures of the "One
 * replica against three shards" section of RESULTS.md and ANALYSIS.md).
 *
 * @module
 */

import type { ReplicaOutcome, ReplicaTask } from "./_shard_replica.ts";
import { takeOption } from "./_args.ts";

const args = [...Deno.args];
const objects = Number(takeOption(args, "--objects", "100000"));
const repeats = Number(takeOption(args, "--repeats", "3"));
const rows = takeOption(args, "--rows", "single,client,server,label").split(
  ",",
);
const profileDir = takeOption(args, "--cpu-prof", "");
const floodSpreadMs = Number(takeOption(args, "--flood-ms", "0"));
const jsonOut = takeOption(
  args,
  "--json",
  new URL("shards.json", import.meta.url).pathname,
);
const ROWS = ["single", "client", "server", "label", "alone"] as const;
type Row = (typeof ROWS)[number];
for (const row of rows) {
  if (!(ROWS as readonly string[]).includes(row)) {
    throw new Error(`--rows takes ${ROWS.join(", ")}, not ${row}`);
  }
}
const SHARDS = 3;
const RUN_TIMEOUT_MS = 600_000;
const here = new URL(".", import.meta.url);

const started = performance.now();
const log = (msg: string) =>
  console.error(
    `[${
      ((performance.now() - started) / 1000).toFixed(1).padStart(6)
    } s] ${msg}`,
  );

/** A child process read line by line, written to line by line. */
class Child {
  readonly #process: Deno.ChildProcess;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #lines: AsyncGenerator<string>;
  readonly #name: string;
  #stderr = "";

  constructor(name: string, args: string[]) {
    this.#name = name;
    const process = new Deno.Command(Deno.execPath(), {
      args,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    this.#process = process;
    this.#writer = process.stdin.getWriter();
    this.#lines = lines(process.stdout);
    void (async () => {
      for await (
        const chunk of process.stderr.pipeThrough(new TextDecoderStream())
      ) this.#stderr = (this.#stderr + chunk).slice(-2000);
    })();
  }

  async line(): Promise<string> {
    const { value, done } = await this.#lines.next();
    if (done) {
      throw new Error(`${this.#name} ended: ${this.#stderr.trim()}`);
    }
    return value;
  }

  async expect(prefix: string): Promise<string> {
    const line = await this.line();
    if (!line.startsWith(prefix)) {
      throw new Error(`${this.#name}: expected ${prefix}, got ${line}`);
    }
    return line.slice(prefix.length).trim();
  }

  send(line: string): Promise<void> {
    return this.#writer.write(new TextEncoder().encode(line + "\n"));
  }

  /** Closes its stdin; ends it unless it exits by itself within `graceMs`. */
  async close(graceMs = 0): Promise<void> {
    await this.#writer.close().catch(() => {});
    let timer: ReturnType<typeof setTimeout> | undefined;
    const exited = await Promise.race([
      this.#process.status.then(() => true),
      new Promise<false>((r) => timer = setTimeout(() => r(false), graceMs)),
    ]);
    clearTimeout(timer);
    if (!exited) {
      try {
        this.#process.kill("SIGTERM");
      } catch { /* already gone */ }
    }
    await this.#process.status;
  }
}

async function* lines(stream: ReadableStream<Uint8Array>) {
  let buffer = "";
  for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
    buffer += chunk;
    let nl: number;
    while ((nl = buffer.indexOf("\n")) >= 0) {
      yield buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
    }
  }
}

interface Run {
  row: Row;
  repeat: number;
  loadBefore: number[];
  loadAfter: number[];
  serverBuildMs: number;
  serverFloodMs: number;
  replicas: ReplicaOutcome[];
}

async function run(row: Row, repeat: number): Promise<Run> {
  const loadBefore = Deno.loadavg();
  const server = new Child(`server (${row})`, [
    "run",
    "--no-lock",
    "--allow-all",
    new URL("_shard_server.ts", here).pathname,
    String(objects),
    row === "server" || row === "alone" ? "1" : "0",
  ]);
  const replicas: Child[] = [];
  const timer = setTimeout(() => {
    log(`${row}: timed out after ${RUN_TIMEOUT_MS} ms`);
    for (const child of [server, ...replicas]) void child.close();
  }, RUN_TIMEOUT_MS);
  try {
    const { url, buildMs } = JSON.parse(await server.line());
    const count = row === "single" ? 1 : SHARDS;
    for (let i = 0; i < count; i++) {
      const task: ReplicaTask = {
        server: url,
        mode: row === "single" ? "single" : row === "label" ? "label" : "ring",
        identity: `replica-${i}`,
        replicas: count,
        label: i,
        marker: profileDir !== "" && i === 0,
        memberOnly: row === "alone" && i > 0,
        timeoutMs: RUN_TIMEOUT_MS,
      };
      replicas.push(
        new Child(`replica ${i} (${row})`, [
          "run",
          "--no-lock",
          "--allow-all",
          "--v8-flags=--expose-gc,--max-old-space-size=8192",
          ...(profileDir && i === 0
            ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}/${row}-${repeat}`]
            : []),
          new URL("_shard_replica.ts", here).pathname,
          JSON.stringify(task),
        ]),
      );
    }
    await Promise.all(replicas.map((r) => r.expect("READY")));
    await Promise.all(replicas.map((r) => r.send("go")));
    await Promise.all(replicas.map((r) => r.expect("SYNCED")));
    for (const r of replicas) {
      await r.send("rate");
      await r.expect("RATED");
    }
    await Promise.all(replicas.map((r) => r.send("flood")));
    await server.send(`flood ${floodSpreadMs}`);
    const flood = JSON.parse(await server.line());
    const working = row === "alone" ? replicas.slice(0, 1) : replicas;
    const outcomes = await Promise.all(
      working.map(async (r) =>
        JSON.parse(await r.expect("RESULT")) as ReplicaOutcome
      ),
    );
    for (const r of replicas.slice(working.length)) {
      await r.send("end");
      await r.expect("RESULT");
    }
    return {
      row,
      repeat,
      loadBefore,
      loadAfter: Deno.loadavg(),
      serverBuildMs: buildMs,
      serverFloodMs: flood.ms,
      replicas: outcomes,
    };
  } finally {
    clearTimeout(timer);
    // A replica that reported exits by itself (and writes its profile).
    await Promise.all([
      server.close(),
      ...replicas.map((c) => c.close(30_000)),
    ]);
  }
}

const runs: Run[] = [];
for (let repeat = 0; repeat < repeats; repeat++) {
  for (const row of rows as Row[]) {
    const r = await run(row, repeat);
    runs.push(r);
    log(
      `${row} #${repeat + 1}: ${
        r.replicas.map((o) =>
          `${o.objects} objects, heap ${mib(retained(o))} MiB, cpu ${
            Math.round(o.cpuSyncMs)
          }+${Math.round(o.cpuFloodMs)} ms, ${
            Math.round(o.reconcilesPerSecond)
          }/s${o.shardMode ? `, ${o.shardMode}` : ""}`
        ).join(" | ")
      }; load ${r.loadBefore.map((l) => l.toFixed(1)).join(" ")}`,
    );
  }
}
await Deno.writeTextFile(
  jsonOut,
  JSON.stringify(
    {
      date: new Date().toISOString(),
      objects,
      repeats,
      cpu: cpuModel(),
      deno: Deno.version.deno,
      runs,
    },
    null,
    2,
  ) + "\n",
);

function retained(o: ReplicaOutcome): number {
  return o.heapAfter - o.heapBefore;
}
function cpu(o: ReplicaOutcome): number {
  return o.cpuSyncMs + o.cpuFloodMs;
}
function seconds(ms: number): string {
  return (ms / 1000).toFixed(2);
}
function mib(bytes: number): string {
  return (bytes / 2 ** 20).toFixed(1);
}
function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2
    ? s[(s.length - 1) / 2]
    : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}
function cpuModel(): string {
  try {
    return Deno.readTextFileSync("/proc/cpuinfo")
      .match(/^model name\s*:\s*(.+)$/m)?.[1]?.trim() ?? "unknown";
  } catch {
    return "unknown";
  }
}

/** Per row: the median over runs of each run's largest replica (and mean). */
function summary(row: Row) {
  const mine = runs.filter((r) => r.row === row);
  const worst = (f: (o: ReplicaOutcome) => number) =>
    median(mine.map((r) => Math.max(...r.replicas.map(f))));
  const least = (f: (o: ReplicaOutcome) => number) =>
    median(mine.map((r) => Math.min(...r.replicas.map(f))));
  const sum = (f: (o: ReplicaOutcome) => number) =>
    median(mine.map((r) => r.replicas.reduce((a, o) => a + f(o), 0)));
  return {
    replicas: mine[0]?.replicas.length ?? 0,
    objects: worst((o) => o.objects),
    heap: worst(retained),
    cpuSync: worst((o) => o.cpuSyncMs),
    cpuFlood: worst((o) => o.cpuFloodMs),
    cpu: worst(cpu),
    syncMs: worst((o) => o.syncMs),
    floodMs: worst((o) => o.floodMs),
    idle: worst((o) => o.cpuIdleMsPerS),
    rate: least((o) => o.reconcilesPerSecond),
    rateSum: sum((o) => o.reconcilesPerSecond),
    mode: mine[0]?.replicas[0]?.shardMode ?? "—",
    skipped: worst((o) => o.skipped),
    viewChanges: Math.max(
      ...mine.flatMap((r) => r.replicas.map((o) => o.viewChanges ?? 1)),
    ),
    load: mine.map((r) => r.loadBefore[0].toFixed(1)).join(", "),
  };
}

const base = rows.includes("single") ? summary("single") : undefined;
const ratio = (v: number, b: number | undefined) =>
  b === undefined ? "" : ` (${(v / b).toFixed(2)}×)`;
const LABELS: Record<Row, string> = {
  single: "one replica, unsharded",
  client: "3 shards, client-side (ShardRing, no `shardedListAndWatch`)",
  server: "3 shards, server-side (ShardRing, `shardedListAndWatch`)",
  label: "3 shards by label selector `shard=<n>`",
  alone: "1 of 3 server-side shards, the other 2 members watching nothing",
};
console.log(
  "| row | objects held | retained heap, MiB | CPU sync + flood, s | reconciles/s (`reconcileAll`) | sync, s | flood, s | idle CPU, ms/s | shard mode | dropped client-side | load avg (1 min) at each run's start |",
);
console.log(
  "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | --- |",
);
for (const row of rows as Row[]) {
  const s = summary(row);
  const perReplica = s.replicas > 1 ? " (largest shard)" : "";
  console.log(
    `| ${LABELS[row]} | ${s.objects}${perReplica} | ${mib(s.heap)}${
      ratio(s.heap, base?.heap)
    } | ${seconds(s.cpu)}${ratio(s.cpu, base?.cpu)} = ${seconds(s.cpuSync)}${
      ratio(s.cpuSync, base?.cpuSync)
    } + ${seconds(s.cpuFlood)}${ratio(s.cpuFlood, base?.cpuFlood)} | ${
      Math.round(s.rate)
    }${
      s.replicas > 1 ? ` (slowest shard; ${Math.round(s.rateSum)} summed)` : ""
    } | ${seconds(s.syncMs)} | ${seconds(s.floodMs)} | ${
      s.idle.toFixed(1)
    } | ${s.mode} | ${s.skipped} | ${s.load} |`,
  );
}
console.log(
  `\n${objects} ConfigMaps, ${repeats} fresh runs per row, medians (of each run's largest shard for the sharded rows; slowest for reconciles/s); ring views seen per replica at most ${
    Math.max(...rows.map((r) => summary(r as Row).viewChanges))
  } (1: the ring never moved during a run); ${cpuModel()}, ${navigator.hardwareConcurrency} cores shared with other jobs; Deno ${Deno.version.deno}`,
);
