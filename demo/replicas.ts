import {
  type FetchClient,
  type KubeObject,
  LeaderElector,
  type ReadableStore,
  Watcher,
} from "../mod.ts";
import { FakeApiServer } from "../testing/mod.ts";
import type { DemoArgs } from "./args.ts";
import { Churn } from "./churn.ts";
import { INGRESSES, OUR_CLASS, Rng, seedCluster, SERVICES } from "./cluster.ts";
import {
  type Endpoints,
  replicaConnection,
  replicaPort,
  serveEndpoints,
} from "./endpoints.ts";
import type { Printer } from "./output.ts";
import { sleep, waitUntil } from "./wait.ts";

const DEFAULT_SECONDS = 12;
/** Short timings, so the takeover shows within seconds. */
const TIMINGS = {
  leaseDurationMs: 3_000,
  renewDeadlineMs: 2_000,
  retryPeriodMs: 500,
};
const LEASE = { namespace: "haptic", name: "haptic-demo-leader" };

/** One replica of the controller: warm watchers, an elector, its renders. */
interface Replica {
  name: string;
  client: FetchClient;
  ingresses: Watcher;
  services: Watcher;
  elector: LeaderElector;
  /** Its `/healthz`, `/readyz` and `/metrics`, with `--metrics-port`. */
  endpoints: Endpoints | undefined;
  renders: number;
  /** Killed: its callbacks no longer print (a dead process says nothing). */
  dead: boolean;
}

/**
 * `--replicas N`: N replicas of a controller over the embedded cluster.
 * Every replica keeps its watchers warm; only the leader renders. The
 * leader is killed (no release, no goodbye) part way through, and the
 * takeover is shown with its time. With `--metrics-port`, replica i
 * serves its own health and metrics at that port + i − 1 (0: a free port
 * each), and stops serving when killed. Returns 0 when exactly one replica
 * led at a time, a survivor took over, and only leaders rendered.
 */
export async function runReplicas(
  args: DemoArgs,
  printer: Printer,
  signal: AbortSignal,
): Promise<number> {
  const count = args.replicas ?? 3;
  const durationMs = (args.duration ?? DEFAULT_SECONDS) * 1000;
  const rng = new Rng(args.seed);
  const server = new FakeApiServer({ initialResourceVersion: 1000 });
  const seeded = seedCluster(server, rng);
  const listener = await server.listen();
  const replicas: Replica[] = [];
  const problems: string[] = [];
  let churn: Churn | undefined;
  let killedAt: number | undefined;
  let takeover: { name: string; afterMs: number } | undefined;
  /** The run is over: the shutdown is not news. */
  let ended = false;
  try {
    printer.plain(printer.style(
      "bold",
      `k8s-watcher demo · ${count} replicas · simulated cluster at ${listener.url} · ${
        durationMs / 1000
      } s · seed ${args.seed}`,
    ));
    printer.plain(
      `every replica watches ingresses (class ${OUR_CLASS}) and services; only the leader of Lease ${LEASE.namespace}/${LEASE.name} renders · lease ${TIMINGS.leaseDurationMs} ms, renew deadline ${TIMINGS.renewDeadlineMs} ms, retry ${TIMINGS.retryPeriodMs} ms · ${seeded.ingresses} ingresses, ${seeded.services} services`,
    );
    printer.plain();

    const leaders = () => replicas.filter((r) => r.elector.isLeader());
    const render = (r: Replica, why: string) => {
      if (r.dead || !r.elector.isLeader()) return;
      if (leaders().length !== 1) {
        problems.push(`${r.name} rendered while ${leaders().length} led`);
      }
      r.renders++;
      printer.line(
        "render",
        `${r.name} #${r.renders} ${
          describeConfig(r.ingresses.store, r.services.store)
        } ${printer.style("dim", `(${why})`)}`,
      );
    };

    for (let i = 1; i <= count; i++) {
      const name = `replica-${i}`;
      const { client, meter, options } = replicaConnection(
        name,
        listener.url,
        args.metricsPort,
      );
      const watcher = (
        gvr: typeof INGRESSES,
        watcherName: string,
        fieldSelector?: string,
      ) =>
        new Watcher(
          {
            gvr,
            name: watcherName,
            indexBy: ["metadata.namespace", "metadata.name"],
            fieldSelector,
            debounceInterval: 1_000,
            onChange: (_store, stats) => {
              if (!stats.isInitialSync) render(replica, "changes");
            },
          },
          client,
          options,
        );
      const replica: Replica = {
        name,
        client,
        ingresses: watcher(
          INGRESSES,
          "ingresses",
          `spec.ingressClassName=${OUR_CLASS}`,
        ),
        services: watcher(SERVICES, "services"),
        endpoints: undefined,
        renders: 0,
        dead: false,
        elector: new LeaderElector(
          {
            lease: LEASE,
            identity: name,
            ...TIMINGS,
            onStartedLeading: async () => {
              if (replica.dead) return;
              if (leaders().length !== 1) {
                problems.push(
                  `${name} started leading while ${leaders().length} led`,
                );
              }
              if (killedAt !== undefined && takeover === undefined) {
                takeover = {
                  name,
                  afterMs: printer.elapsedMs - killedAt,
                };
                printer.line(
                  "lease",
                  `${name} takes over ${
                    (takeover.afterMs / 1000).toFixed(3)
                  } s after the kill (a follower waits ${TIMINGS.leaseDurationMs} ms after the last renewal it saw)`,
                );
              } else printer.line("lease", `${name} leads`);
              // The stores are warm: the new leader renders at once.
              await Promise.all([
                replica.ingresses.waitForSync(),
                replica.services.waitForSync(),
              ]).catch(() => {});
              render(replica, "took the lead");
            },
            onStoppedLeading: () => {
              if (!replica.dead && !ended) {
                printer.line("lease", `${name} stopped leading`);
              }
            },
            onNewLeader: (identity) => {
              if (identity !== name && !replica.dead && !ended) {
                printer.line("lease", `${name} follows ${identity}`);
              }
            },
          },
          client,
          options,
        ),
      };
      replicas.push(replica);
      replica.endpoints = serveEndpoints(
        {
          host: args.metricsHost,
          port: replicaPort(args.metricsPort, i - 1),
        },
        {
          watchers: {
            ingresses: replica.ingresses,
            services: replica.services,
          },
          elector: replica.elector,
          metrics: meter,
        },
        printer,
        name,
      );
    }
    for (const r of replicas) {
      void r.ingresses.start();
      void r.services.start();
      void r.elector.start();
    }
    const synced = await Promise.all(
      replicas.flatMap((r) => [
        r.ingresses.waitForSync(signal),
        r.services.waitForSync(signal),
      ]),
    ).then(() => true, () => false);
    if (!synced) {
      printer.line("error", "interrupted before the initial sync");
      return 1;
    }
    printer.line(
      "ready",
      `${replicas.length} replicas synced: every replica's stores are warm`,
    );
    churn = new Churn(server, rng, {
      stepMs: 300,
      burstEveryMs: 4_000,
      secretEveryMs: 60_000,
      onBurst: () => {},
    });
    churn.start();

    const startedAt = printer.elapsedMs;
    await sleep(startedAt + durationMs * 0.35 - printer.elapsedMs, signal);
    const victim = leaders()[0];
    if (!signal.aborted && victim) {
      // A killed process neither renews nor releases nor answers probes:
      // cut it off, then stop.
      victim.dead = true;
      await victim.endpoints?.[Symbol.asyncDispose]();
      killedAt = printer.elapsedMs;
      printer.line(
        "kill",
        `${victim.name} (the leader, ${victim.renders} renders) is killed: no release, no goodbye`,
      );
      victim.client.close();
      await Promise.all([
        victim.elector.stop(),
        victim.ingresses.stop(),
        victim.services.stop(),
      ]);
      // Load can stretch timers: wait for the takeover past the duration.
      await waitUntil(
        () => takeover !== undefined,
        3 * TIMINGS.leaseDurationMs,
        signal,
      );
    }
    await sleep(startedAt + durationMs - printer.elapsedMs, signal);
    churn.stop();

    const leading = leaders();
    printer.plain();
    printer.table(
      ["replica", "state", "renders", "leader seen"],
      replicas.map((r) => [
        r.name,
        r.dead ? "killed" : r.elector.isLeader() ? "leader" : "follower",
        r.renders,
        r.elector.leader() ?? "-",
      ]),
    );
    if (!victim) problems.push("nobody led before the kill");
    if (victim && !takeover) problems.push("no survivor took over");
    if (leading.length !== 1 && !signal.aborted) {
      problems.push(`${leading.length} leaders at the end`);
    }
    const lease = server.list("leases", LEASE.namespace)
      .find((l) => l.metadata.name === LEASE.name);
    const transitions = (lease?.spec as { leaseTransitions?: number })
      ?.leaseTransitions;
    printer.plain();
    if (problems.length === 0) {
      printer.line(
        "verify",
        `one leader at a time; ${takeover?.name ?? "-"} took over in ${
          ((takeover?.afterMs ?? 0) / 1000).toFixed(3)
        } s; leaseTransitions ${transitions}; renders only on the leader`,
      );
      printer.plain(printer.style("green", "all good"));
      return 0;
    }
    for (const p of problems) printer.line("error", p);
    return 1;
  } finally {
    ended = true;
    churn?.stop();
    await Promise.all(replicas.flatMap((r) => [
      r.elector.stop(),
      r.ingresses.stop(),
      r.services.stop(),
    ]));
    for (const r of replicas) r.client.close();
    await Promise.all(
      replicas.map((r) => r.endpoints?.[Symbol.asyncDispose]()),
    );
    await listener.close();
    await server.close();
  }
}

/** What the leader would write: a digest over what it renders. */
function describeConfig(
  ingresses: ReadableStore,
  services: ReadableStore,
): string {
  const list = ingresses.list() as KubeObject[]; // a MemoryStore answers at once
  const backends = new Set<string>();
  let hash = 0x811c9dc5;
  for (const ing of list) {
    const ns = ing.metadata.namespace ?? "";
    for (const name of backendNames(ing)) {
      const found = services.get(ns, name) as KubeObject[];
      if (found.length > 0) backends.add(`${ns}/${name}`);
    }
    for (
      const c of `${ns}/${ing.metadata.name}@${ing.metadata.resourceVersion};`
    ) {
      hash = Math.imul(hash ^ c.charCodeAt(0), 0x01000193) >>> 0;
    }
  }
  return `${list.length} ingresses → ${backends.size} backends, config ${
    hash.toString(16).padStart(8, "0")
  }`;
}

function backendNames(ingress: KubeObject): string[] {
  const rules = (ingress.spec as {
    rules?: {
      http?: { paths?: { backend?: { service?: { name?: string } } }[] };
    }[];
  } | undefined)?.rules ?? [];
  return rules.flatMap((r) => r.http?.paths ?? [])
    .map((p) => p.backend?.service?.name)
    .filter((n): n is string => typeof n === "string");
}
