// LeaderElector on a real Lease: three electors at a time, the leader
// stopped with and without releasing, a leader whose API access is cut,
// and never two leaders at once, checked on the electors' own terms and on
// the Lease's history as a watch saw it.
import assert from "node:assert/strict";
import { FetchClient } from "../../client/fetch_client.ts";
import { LeaderElector } from "../../leaderelection/leader_elector.ts";
import { SingleWatcher } from "../../watcher/single.ts";
import { silentLogger } from "../../logger.ts";
import type { Gvr, KubeObject } from "../../types.ts";
import type { ControlPlane } from "../../testing/control_plane/mod.ts";
import {
  createNamespace,
  eventually,
  LoopbackProxy,
  planeTest,
  sharedControlPlane,
} from "./_harness.ts";

const plane = sharedControlPlane();
const LEASES: Gvr = {
  group: "coordination.k8s.io",
  version: "v1",
  resource: "leases",
};
const NAMESPACE = "election";
const LEASE = "controller";
// Short, so the test takes seconds, with room for a loaded 2-core machine:
// a renewal may take a second without the leader losing its lease.
const TIMINGS = {
  leaseDurationMs: 5_000,
  renewDeadlineMs: 3_500,
  retryPeriodMs: 700,
};

/** When an elector led, on this process's monotonic clock. */
interface Term {
  identity: string;
  start: number;
  end?: number;
}

/** One elector, reaching the API server through a proxy of its own. */
interface Replica extends AsyncDisposable {
  identity: string;
  elector: LeaderElector;
  proxy: LoopbackProxy;
  done: Promise<void>;
}

function replica(
  p: ControlPlane,
  identity: string,
  terms: Term[],
  releaseOnStop: boolean,
): Replica {
  const proxy = new LoopbackProxy(p.url);
  const client = new FetchClient({
    server: proxy.url,
    token: p.token(),
    caData: p.caPem,
  });
  const elector = new LeaderElector(
    {
      lease: { namespace: NAMESPACE, name: LEASE },
      identity,
      ...TIMINGS,
      releaseOnStop,
      onStartedLeading: async (signal) => {
        const term: Term = { identity, start: performance.now() };
        terms.push(term);
        await new Promise((resolve) =>
          signal.addEventListener("abort", resolve, { once: true })
        );
        term.end = performance.now();
      },
    },
    client,
    { logger: silentLogger },
  );
  const done = elector.start();
  return {
    identity,
    elector,
    proxy,
    done,
    async [Symbol.asyncDispose]() {
      await elector.stop();
      await done;
      client.close();
      await proxy[Symbol.asyncDispose]();
    },
  };
}

function leaders(replicas: Replica[]): string[] {
  return replicas.filter((r) => r.elector.isLeader()).map((r) => r.identity);
}

planeTest(
  "three LeaderElectors on a real Lease: handovers on stop with and without release and on cut API access, never two leaders",
  async () => {
    const p = await plane();
    using admin = p.client();
    await createNamespace(admin, NAMESPACE);

    // The Lease's history: every holder a watch on it saw, in order.
    const history: {
      holder: string | undefined;
      transitions: number | undefined;
    }[] = [];
    const lease = new SingleWatcher(
      {
        gvr: LEASES,
        namespace: NAMESPACE,
        name: LEASE,
        skip: "none",
        onChange: (o: KubeObject | null) => {
          const spec = o?.spec as {
            holderIdentity?: string;
            leaseTransitions?: number;
          } | undefined;
          const last = history.at(-1);
          if (spec && spec.holderIdentity !== last?.holder) {
            history.push({
              holder: spec.holderIdentity,
              transitions: spec.leaseTransitions,
            });
          }
        },
      },
      admin,
      { logger: silentLogger },
    );
    lease.start();
    const terms: Term[] = [];
    try {
      // a leads first (alone); b and c follow it.
      await using a = replica(p, "a", terms, true);
      await eventually(() => a.elector.isLeader(), "a never led");
      await using b = replica(p, "b", terms, false);
      await using c = replica(p, "c", terms, false);
      await eventually(
        () => b.elector.leader() === "a" && c.elector.leader() === "a",
        "b and c do not follow a",
      );

      // a stops and releases: b or c takes over without waiting the lease out.
      await a.elector.stop();
      await eventually(() => leaders([b, c]).length === 1, "no successor of a");
      const second = leaders([b, c])[0] === "b" ? b : c;
      const third = second === b ? c : b;

      // The successor stops without releasing: the last one waits the lease
      // out, then takes over.
      await second.elector.stop();
      await eventually(
        () => third.elector.isLeader(),
        `${third.identity} never led`,
        15_000,
      );

      // A fourth elector follows; then the leader loses its API access.
      await using d = replica(p, "d", terms, false);
      await eventually(
        () => d.elector.leader() === third.identity,
        "d does not follow",
      );
      third.proxy.cut();
      await eventually(
        () => !third.elector.isLeader(),
        `${third.identity} never stepped down`,
        15_000,
      );
      await eventually(() => d.elector.isLeader(), "d never took over", 15_000);
      third.proxy.restore();
      await eventually(
        () => third.elector.leader() === "d" && !third.elector.isLeader(),
        `${third.identity} does not follow d after its access came back`,
        15_000,
      );
      assert.deepEqual(leaders([b, c, d]), ["d"]);

      // Never two leaders: each term began after the one before had ended.
      const order = [...terms].sort((x, y) => x.start - y.start);
      assert.deepEqual(
        order.map((t) => t.identity),
        ["a", second.identity, third.identity, "d"],
      );
      for (let i = 1; i < order.length; i++) {
        const before = order[i - 1];
        assert.ok(
          before.end !== undefined && before.end <= order[i].start,
          `${order[i].identity} led from ${
            order[i].start
          } while ${before.identity} led until ${before.end}`,
        );
      }
      // The Lease went through the same holders (a release shows as none).
      await eventually(
        () => history.at(-1)?.holder === "d",
        () => `Lease history: ${JSON.stringify(history)}`,
      );
      // The Lease's watch may open after "a" first took it (it then starts
      // at a later holder): the holders it saw are the terms' from there.
      const holders = history.map((h) => h.holder).filter((h) => h);
      const expected = ["a", second.identity, third.identity, "d"];
      assert.ok(
        holders.length >= 3,
        `Lease history: ${JSON.stringify(history)}`,
      );
      assert.deepEqual(
        holders,
        expected.slice(expected.length - holders.length),
      );
      const transitions = history.filter((h) => h.holder).map((h) =>
        h.transitions ?? 0
      );
      for (let i = 1; i < transitions.length; i++) {
        assert.equal(
          transitions[i],
          transitions[i - 1] + 1,
          JSON.stringify(history),
        );
      }
    } finally {
      await lease.stop();
    }
  },
);
