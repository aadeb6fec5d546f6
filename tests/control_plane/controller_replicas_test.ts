// Three replicas of the Widget controller (see _widget_controller.ts), each
// with its own client, LeaderElector and Controller, on one Lease of a real
// control plane. The leader is killed mid-reconcile: a proxy swallows all
// its traffic from then on (its watches, its Lease renewals and the write
// it was making hang; nothing is released). Another replica takes over and
// finishes the work, and no two replicas ever reconcile one key at once.
//
// LeaderElector's guarantee (see its doc): a leader that cannot renew stops
// leading `renewDeadlineMs` after its last successful renewal, and aborts
// its term's signal then; another replica takes over only after seeing the
// Lease unchanged for `leaseDurationMs`, which is longer. The Controller
// aborts the reconciles in flight when the term ends, and this reconcile
// passes its signal to every request, so it ends at once. On one clock (one
// process) there is no window in which two replicas may both reconcile: the
// test allows none.
import assert from "node:assert/strict";
import { FetchClient } from "../../client/fetch_client.ts";
import { ResourceClient } from "../../client/resource_client.ts";
import { LeaderElector } from "../../leaderelection/leader_elector.ts";
import type { Controller } from "../../controller/controller.ts";
import { silentLogger } from "../../logger.ts";
import type { ControlPlane } from "../../testing/control_plane/mod.ts";
import {
  createNamespace,
  eventually,
  inParallel,
  planeTest,
  sharedControlPlane,
} from "./_harness.ts";
import { PartitionProxy } from "./_partition_proxy.ts";
import {
  assertWidgetsConverged,
  installWidgetCrd,
  overlappingRuns,
  type ReconcileRun,
  type Widget,
  widgetController,
  WIDGETS,
} from "./_widget_controller.ts";

const plane = sharedControlPlane();
const NAMESPACE = "widgets-ha";
// Short, so the test takes seconds, with room for a loaded 2-core machine
// (as in leader_election_test.ts).
const TIMINGS = {
  leaseDurationMs: 5_000,
  renewDeadlineMs: 3_500,
  retryPeriodMs: 700,
};

/** When a replica led, on `performance.now()`. */
interface Term {
  start: number;
  end?: number;
}

interface Replica extends AsyncDisposable {
  identity: string;
  proxy: PartitionProxy;
  elector: LeaderElector;
  controller: Controller<Widget>;
  terms: Term[];
}

function replica(
  p: ControlPlane,
  identity: string,
  runs: ReconcileRun[],
  onReconcile: (run: ReconcileRun) => void,
): Replica {
  const proxy = new PartitionProxy(p.url);
  const client = new FetchClient({
    server: proxy.url,
    token: p.token(),
    caData: p.caPem,
  });
  const elector = new LeaderElector(
    {
      lease: { namespace: NAMESPACE, name: "widget-controller" },
      identity,
      ...TIMINGS,
      // A killed replica releases nothing.
      releaseOnStop: false,
    },
    client,
    { logger: silentLogger },
  );
  const terms: Term[] = [];
  elector.whileLeading((signal) => {
    const term: Term = { start: performance.now() };
    terms.push(term);
    signal.addEventListener("abort", () => term.end = performance.now(), {
      once: true,
    });
  });
  const controller = widgetController({
    replica: identity,
    client,
    namespace: NAMESPACE,
    runs,
    leader: elector,
    onReconcile,
    // A reconcile hung in a swallowed connection must not hold the test's
    // end (the Controller aborts it when the term ends; this is for a test
    // that fails because it did not).
    drainOnStop: false,
  });
  const electing = elector.start();
  const running = controller.start();
  return {
    identity,
    proxy,
    elector,
    controller,
    terms,
    async [Symbol.asyncDispose]() {
      await controller.stop();
      await running;
      await elector.stop();
      await electing;
      client.close();
      await proxy[Symbol.asyncDispose]();
    },
  };
}

planeTest(
  "three Widget controller replicas under leader election: the leader is killed mid-reconcile, another takes over and finishes, no key is reconciled by two replicas at once",
  async () => {
    const started = performance.now();
    const p = await plane();
    using admin = p.client();
    await installWidgetCrd(admin);
    await createNamespace(admin, NAMESPACE);
    const widgets = new ResourceClient<Widget>({
      client: admin,
      gvr: WIDGETS,
      namespace: NAMESPACE,
    });
    const names = Array.from({ length: 8 }, (_, i) => `w-${i}`);
    await inParallel(names, 8, (name) =>
      widgets.create({
        apiVersion: "example.com/v1",
        kind: "Widget",
        metadata: { name },
        spec: { color: "red", size: 1 },
      }));

    const runs: ReconcileRun[] = [];
    const replicas: Replica[] = [];
    // The leader is killed as it starts reconciling generation 2 of w-0,
    // before its writes: they hang in the swallowed connection.
    let killed: { replica: Replica; at: number; run: ReconcileRun } | undefined;
    const onReconcile = (run: ReconcileRun) => {
      if (
        killed === undefined && run.key === `${NAMESPACE}/w-0` &&
        run.generation === 2
      ) {
        const leader = replicas.find((r) => r.identity === run.replica)!;
        leader.proxy.partition();
        killed = { replica: leader, at: performance.now(), run };
      }
    };
    await using a = replica(p, "a", runs, onReconcile);
    await using b = replica(p, "b", runs, onReconcile);
    await using c = replica(p, "c", runs, onReconcile);
    replicas.push(a, b, c);
    const leaders = () => replicas.filter((r) => r.elector.isLeader());
    await eventually(() => leaders().length === 1, "nobody leads");
    const first = leaders()[0];
    await assertWidgetsConverged(admin, NAMESPACE, { runs });
    // Warm standbys: synced, queues filled, but nothing reconciled.
    assert.deepEqual(
      [...new Set(runs.map((r) => r.replica))],
      [first.identity],
    );
    for (const r of replicas) {
      await eventually(
        () => r.controller.health().synced,
        `${r.identity} sync`,
      );
    }

    await widgets.patch("w-0", { spec: { color: "green", size: 2 } });
    await eventually(() => killed !== undefined, "w-0 never reconciled again");
    assert.equal(killed!.replica, first);
    // Work for whoever leads next: the killed leader sees none of it.
    await inParallel(
      ["w-1", "w-2", "w-3"],
      3,
      (name) => widgets.patch(name, { spec: { size: 5 } }),
    );
    await widgets.delete("w-7");
    await inParallel(["n-0", "n-1"], 2, (name) =>
      widgets.create({
        apiVersion: "example.com/v1",
        kind: "Widget",
        metadata: { name },
        spec: { color: "blue", size: 9 },
      }));

    const others = replicas.filter((r) => r !== first);
    await eventually(
      () => !first.elector.isLeader(),
      `${first.identity} never stepped down`,
      15_000,
    );
    await eventually(
      () => others.some((r) => r.elector.isLeader()),
      "nobody took over",
      20_000,
    );
    const second = leaders()[0];
    const tookOver = second.terms.at(-1)!.start - killed!.at;
    await assertWidgetsConverged(admin, NAMESPACE, {
      runs,
      absent: ["w-7"],
    });

    // No key was reconciled by two replicas (or twice by one) at once.
    assert.deepEqual(overlappingRuns(runs), []);
    // The killed leader's reconcile of w-0 was cut short when its term
    // ended, and none of its reconciles started after that.
    const cutShort = killed!.run;
    const lastTerm = first.terms.at(-1)!;
    assert.equal(cutShort.result, "aborted", JSON.stringify(cutShort));
    assert.deepEqual(cutShort.wrote, []);
    assert.ok(lastTerm.end !== undefined);
    assert.deepEqual(
      runs.filter((r) =>
        r.replica === first.identity && r.start > lastTerm.end!
      ),
      [],
    );
    // Another replica finished w-0: generation 2, status written.
    assert.ok(
      runs.some((r) =>
        r.replica === second.identity && r.key === `${NAMESPACE}/w-0` &&
        r.generation === 2 && r.wrote.includes("status")
      ),
      JSON.stringify(runs.filter((r) => r.key === `${NAMESPACE}/w-0`)),
    );
    // Every reconcile started within a term of its replica, and terms
    // never overlapped.
    for (const run of runs) {
      const r = replicas.find((x) => x.identity === run.replica)!;
      assert.ok(
        r.terms.some((t) =>
          t.start <= run.start && (t.end === undefined || run.start < t.end)
        ),
        `${run.replica} reconciled ${run.key} outside its terms`,
      );
    }
    const terms = replicas.flatMap((r) =>
      r.terms.map((t) => ({ ...t, identity: r.identity }))
    ).sort((x, y) => x.start - y.start);
    for (let i = 1; i < terms.length; i++) {
      assert.ok(
        terms[i - 1].end !== undefined &&
          terms[i - 1].end! <= terms[i].start,
        `${terms[i].identity} led from ${terms[i].start} while ${
          terms[i - 1].identity
        } led until ${terms[i - 1].end}`,
      );
    }
    const gap =
      runs.filter((r) =>
        r.replica === second.identity && r.key === cutShort.key &&
        r.start > cutShort.start
      ).sort((x, y) => x.start - y.start)[0].start - cutShort.end!;
    console.log(
      `replicas: ${runs.length} reconciles (${
        replicas.map((r) =>
          `${r.identity} ${runs.filter((x) => x.replica === r.identity).length}`
        ).join(", ")
      }); ${first.identity} killed, stepped down after ${
        Math.round(lastTerm.end! - killed!.at)
      } ms, ${second.identity} led ${
        Math.round(tookOver)
      } ms after the kill; w-0 idle ${
        Math.round(gap)
      } ms between the two replicas; ${
        Math.round(performance.now() - started)
      } ms`,
    );
  },
);
