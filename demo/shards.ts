import type { FetchClient, KubeObject } from "../mod.ts";
import { Controller, type ReconcileContext } from "../controller/mod.ts";
import { HASH_SPACE_END, type ShardRange, ShardRing } from "../sharding/mod.ts";
import { FakeApiServer } from "../testing/mod.ts";
import type { DemoArgs } from "./args.ts";
import { CONFIGMAPS, Rng } from "./cluster.ts";
import {
  type Endpoints,
  replicaConnection,
  replicaPort,
  serveEndpoints,
} from "./endpoints.ts";
import type { Printer } from "./output.ts";
import { sleep, waitUntil } from "./wait.ts";

const DEFAULT_SECONDS = 12;
/** Short timings, so the hand-off shows within seconds. */
const TIMINGS = {
  leaseDurationMs: 3_000,
  renewDeadlineMs: 2_000,
  retryPeriodMs: 500,
};
const RING = { name: "configmaps", namespace: "haptic" };
const NAMESPACES = ["shop", "lab", "web"];
const PER_NAMESPACE = 300;
/** How long a reconcile works (it waits, and stops when aborted). */
const RECONCILE_MS = 15;

/** One reconcile, on the printer's clock. */
interface Interval {
  replica: string;
  key: string;
  start: number;
  end?: number;
}

/** One replica: its client, its ring, its sharded controller. */
interface Replica {
  name: string;
  client: FetchClient;
  ring: ShardRing;
  controller: Controller;
  running: Promise<void>;
  ringRunning: Promise<void>;
  endpoints: Endpoints | undefined;
  reconciles: number;
  /** Killed: it says nothing more (a dead process says nothing). */
  dead: boolean;
}

/**
 * `--replicas N --shards`: N replicas of a Controller of ConfigMaps on the
 * embedded cluster, each with a `ShardRing` on a Lease of its own and the
 * ring as the controller's `shard`; the fake API server serves
 * `shardSelector`, so each replica's watch carries only its share. Shows
 * which replica owns how many keys, kills one part way through (its client
 * is closed: no renewal, no release), and shows the hand-off: the killed
 * replica's keys reconciled by the others once its Lease has expired, with
 * the time it took. Returns 0 when no key was reconciled by two replicas at
 * once, every key of the killed replica was reconciled by a survivor, and
 * every key has exactly one owner at the end.
 */
export async function runShards(
  args: DemoArgs,
  printer: Printer,
  signal: AbortSignal,
): Promise<number> {
  const count = args.replicas ?? 3;
  const durationMs = (args.duration ?? DEFAULT_SECONDS) * 1000;
  const rng = new Rng(args.seed);
  const server = new FakeApiServer({
    initialResourceVersion: 1000,
    shardedListAndWatch: true,
  });
  for (const namespace of NAMESPACES) {
    for (let i = 0; i < PER_NAMESPACE; i++) {
      server.create("configmaps", {
        metadata: { namespace, name: `item-${i}` },
        data: { version: "0" },
      });
    }
  }
  const total = NAMESPACES.length * PER_NAMESPACE;
  const listener = await server.listen();
  const replicas: Replica[] = [];
  const intervals: Interval[] = [];
  const problems: string[] = [];
  let churn: ReturnType<typeof setInterval> | undefined;
  let synced = false;
  /** Keys the churn changed, until reconciled, and when. */
  const churned = new Map<string, number>();
  let killedAt: number | undefined;
  /** The run is over: the shutdown is not news. */
  let ended = false;
  try {
    printer.plain(printer.style(
      "bold",
      `k8s-watcher demo · ${count} sharded replicas · simulated cluster at ${listener.url} · ${
        durationMs / 1000
      } s · seed ${args.seed}`,
    ));
    printer.plain(
      `each replica: a ShardRing "${RING.name}" (its own Lease in ${RING.namespace}) and a Controller of ConfigMaps given the ring as its shard · lease ${TIMINGS.leaseDurationMs} ms, renew deadline ${TIMINGS.renewDeadlineMs} ms, retry ${TIMINGS.retryPeriodMs} ms · ${total} ConfigMaps in ${NAMESPACES.length} namespaces · the server answers shardSelector`,
    );
    printer.plain();

    for (let i = 1; i <= count; i++) {
      const name = `replica-${i}`;
      const { client, meter, options } = replicaConnection(
        name,
        listener.url,
        args.metricsPort,
      );
      let members = "";
      const ring = new ShardRing(
        {
          ...RING,
          identity: name,
          ...TIMINGS,
          onChange: (state) => {
            const now = state.members.join(", ");
            if (now === members || replica.dead || ended) return;
            members = now;
            if (!synced) return;
            const after = killedAt === undefined ? "" : ` ${
              printer.style(
                "dim",
                `(${secondsSince(printer, killedAt)} s after the kill)`,
              )
            }`;
            printer.line(
              "ring",
              `${name} sees ${state.members.length} members: ${now}; its range ${
                describeRanges(state.assigned)
              }${after}`,
            );
          },
        },
        client,
        options,
      );
      const reconcile = async (key: string, context: ReconcileContext) => {
        if (replica.dead) return;
        const interval: Interval = {
          replica: name,
          key,
          start: printer.elapsedMs,
        };
        intervals.push(interval);
        replica.reconciles++;
        try {
          await sleep(RECONCILE_MS, context.signal);
        } finally {
          interval.end = printer.elapsedMs;
        }
        const object = context.get() as
          | { data?: { version?: string } }
          | undefined;
        // The churn's changes, each reconciled by its key's owner (the
        // hand-off's reconciles are summed up instead).
        const changedAt = churned.get(key);
        if (changedAt !== undefined && !replica.dead && !ended) {
          churned.delete(key);
          const waited = interval.start - changedAt;
          printer.line(
            "reconcile",
            `${name} ${key} ${
              printer.style(
                "dim",
                `(version ${object?.data?.version ?? "-"}${
                  waited > 1_000
                    ? `, changed ${(waited / 1000).toFixed(1)} s before`
                    : ""
                }${context.signal.aborted ? ", aborted" : ""})`,
              )
            }`,
          );
        }
      };
      const controller = new Controller(
        {
          name: `configmaps-${i}`,
          for: { gvr: CONFIGMAPS, name: "configmaps" },
          shard: ring,
          reconcile,
        },
        client,
        options,
      );
      const replica: Replica = {
        name,
        client,
        ring,
        controller,
        running: Promise.resolve(),
        ringRunning: Promise.resolve(),
        endpoints: undefined,
        reconciles: 0,
        dead: false,
      };
      replicas.push(replica);
      replica.endpoints = serveEndpoints(
        {
          host: args.metricsHost,
          port: replicaPort(args.metricsPort, i - 1),
        },
        { controllers: { [`configmaps-${i}`]: controller }, metrics: meter },
        printer,
        name,
      );
    }
    for (const r of replicas) {
      r.ringRunning = r.ring.start();
      r.running = r.controller.start();
    }
    const ownedBy = (r: Replica) => ownedObjects(server, r);
    // Synced: every replica holds its share, and every key is reconciled.
    const settled = () =>
      replicas.every((r) =>
        r.dead || (
          r.controller.health().synced &&
          r.ring.state.members.length === live(replicas).length &&
          sameRanges(r.ring.state.permitted, r.ring.state.assigned) &&
          r.controller.health().queue.waiting === 0 &&
          r.controller.health().workers.active === 0
        )
      ) &&
      live(replicas).reduce((n, r) => n + ownedBy(r).length, 0) === total;
    if (!await waitUntil(settled, 15_000, signal)) {
      printer.line(
        "error",
        signal.aborted
          ? "interrupted before the initial sync"
          : "the replicas did not share the keys within 15 s; giving up",
      );
      return 1;
    }
    synced = true;
    printer.line(
      "ready",
      `${count} replicas synced; ${intervals.length} reconciles, each key once: ${
        new Set(intervals.map((i) => i.key)).size
      } keys`,
    );
    for (const r of replicas) {
      const watcher = r.controller.health().watchers["configmaps"];
      printer.line(
        "ring",
        `${r.name} owns ${ownedBy(r).length} keys · range ${
          describeRanges(r.ring.state.assigned)
        } · its watch: ${watcher?.shard?.mode}-side, ${watcher?.objects} objects held`,
      );
    }
    // A light churn: one ConfigMap changes every 400 ms; its owner
    // reconciles it.
    let version = 0;
    churn = setInterval(() => {
      const namespace = NAMESPACES[rng.int(0, NAMESPACES.length - 1)];
      const name = `item-${rng.int(0, PER_NAMESPACE - 1)}`;
      churned.set(`${namespace}/${name}`, printer.elapsedMs);
      version++;
      server.patch("configmaps", namespace, name, {
        data: { version: String(version) },
      });
    }, 400);

    const startedAt = printer.elapsedMs;
    await sleep(startedAt + durationMs * 0.3 - printer.elapsedMs, signal);
    if (signal.aborted) return 1;
    const victim = replicas[Math.floor(count / 2)];
    const before = new Map(
      replicas.map((r) => [r.name, new Set(ownedBy(r).map(keyOf))]),
    );
    const victimKeys = before.get(victim.name)!;
    // A killed process neither renews nor releases: cut it off, then stop
    // what is left of it.
    victim.dead = true;
    await victim.endpoints?.[Symbol.asyncDispose]();
    killedAt = printer.elapsedMs;
    printer.line(
      "kill",
      `${victim.name} (owner of ${victimKeys.size} keys) is killed: no release, no goodbye`,
    );
    victim.client.close();
    await Promise.all([victim.controller.stop(), victim.ring.stop()]);
    const lease = server.list("leases", RING.namespace).find((l) =>
      l.metadata.name === `${RING.name}-${victim.name}`
    );
    printer.line(
      "lease",
      lease
        ? `${victim.name}'s Lease stays until it expires (${TIMINGS.leaseDurationMs} ms after its last renewal): the others wait for that`
        : `${victim.name}'s Lease is gone`,
    );
    if (!lease) problems.push(`${victim.name} released its Lease`);

    // The hand-off: each of the victim's keys reconciled by a survivor.
    const takenBy = new Map<string, Interval>();
    const handedOff = () => {
      for (const i of intervals) {
        if (
          i.start > killedAt! && i.end !== undefined &&
          victimKeys.has(i.key) && !takenBy.has(i.key)
        ) takenBy.set(i.key, i);
      }
      return takenBy.size === victimKeys.size && settled();
    };
    // Load can stretch timers: wait for the hand-off past the duration.
    if (await waitUntil(handedOff, 5 * TIMINGS.leaseDurationMs, signal)) {
      const starts = [...takenBy.values()].map((i) => i.start - killedAt!);
      const to = Map.groupBy(takenBy.values(), (i) => i.replica);
      printer.line(
        "handoff",
        `${victim.name}'s ${victimKeys.size} keys reconciled by ${
          [...to].sort().map(([r, l]) => `${r} (${l.length})`).join(" and ")
        } ${(Math.min(...starts) / 1000).toFixed(3)}–${
          (Math.max(...starts) / 1000).toFixed(3)
        } s after the kill (its Lease expires ${TIMINGS.leaseDurationMs} ms after its last renewal)`,
      );
    } else if (!signal.aborted) {
      problems.push(
        `${takenBy.size} of ${victim.name}'s ${victimKeys.size} keys reconciled by the others`,
      );
    }
    await sleep(startedAt + durationMs - printer.elapsedMs, signal);
    clearInterval(churn);
    churn = undefined;
    await waitUntil(settled, 5_000, signal);

    printer.plain();
    printer.table(
      ["replica", "state", "keys at start", "keys now", "reconciles"],
      replicas.map((r) => [
        r.name,
        r.dead ? "killed" : "live",
        before.get(r.name)!.size,
        r.dead ? "-" : ownedBy(r).length,
        r.reconciles,
      ]),
    );
    printer.plain();
    const overlaps = overlapping(intervals);
    if (overlaps.length > 0) {
      problems.push(
        `${overlaps.length} reconciles overlapped another of their key: ${
          overlaps.slice(0, 3).join("; ")
        }`,
      );
    }
    const owners = new Map<string, number>();
    for (const r of live(replicas)) {
      for (const o of ownedBy(r)) {
        owners.set(keyOf(o), (owners.get(keyOf(o)) ?? 0) + 1);
      }
    }
    const badOwners = [...owners.values()].filter((n) => n !== 1).length +
      total - owners.size;
    if (badOwners > 0 && !signal.aborted) {
      problems.push(`${badOwners} keys without exactly one live owner`);
    }
    if (problems.length === 0) {
      printer.line(
        "verify",
        `${intervals.length} reconciles, none of a key on two replicas at once; every key of ${victim.name} reconciled by a survivor; each of the ${total} keys has one live owner`,
      );
      printer.plain(printer.style("green", "all good"));
      return 0;
    }
    for (const p of problems) printer.line("error", p);
    return 1;
  } finally {
    ended = true;
    if (churn !== undefined) clearInterval(churn);
    await Promise.all(replicas.map(async (r) => {
      await r.controller.stop();
      await r.ring.stop();
      await Promise.all([r.running, r.ringRunning]);
    }));
    for (const r of replicas) r.client.close();
    await Promise.all(
      replicas.map((r) => r.endpoints?.[Symbol.asyncDispose]()),
    );
    await listener.close();
    await server.close();
  }
}

function live(replicas: readonly Replica[]): Replica[] {
  return replicas.filter((r) => !r.dead);
}

/** The server's ConfigMaps that `r`'s ring lets it work on now. */
function ownedObjects(server: FakeApiServer, r: Replica): KubeObject[] {
  return server.list("configmaps").filter((o) => r.ring.owns(o));
}

function keyOf(o: KubeObject): string {
  return `${o.metadata.namespace}/${o.metadata.name}`;
}

function sameRanges(
  a: readonly ShardRange[],
  b: readonly ShardRange[],
): boolean {
  return a.length === b.length &&
    a.every((r, i) => r.start === b[i].start && r.end === b[i].end);
}

/** Ranges as shares of the hash space: `[0 %, 33.3 %)`. */
function describeRanges(ranges: readonly ShardRange[]): string {
  if (ranges.length === 0) return "none";
  const percent = (x: bigint) =>
    `${(Number((x * 1000n) / HASH_SPACE_END) / 10).toFixed(1)} %`;
  return ranges.map((r) => `[${percent(r.start)}, ${percent(r.end)})`)
    .join(" ");
}

function secondsSince(printer: Printer, at: number): string {
  return ((printer.elapsedMs - at) / 1000).toFixed(3);
}

/** Per key, reconciles that overlapped in time (on any replicas). */
function overlapping(intervals: readonly Interval[]): string[] {
  const found: string[] = [];
  for (const [key, list] of Map.groupBy(intervals, (i) => i.key)) {
    const sorted = [...list].sort((a, b) => a.start - b.start);
    // The one that ends last so far, against each that starts after it.
    let last = sorted[0];
    for (const b of sorted.slice(1)) {
      if (last.end === undefined || last.end > b.start) {
        found.push(`${key} on ${last.replica} and ${b.replica}`);
      }
      if (last.end !== undefined && (b.end === undefined || b.end > last.end)) {
        last = b;
      }
    }
  }
  return found;
}
