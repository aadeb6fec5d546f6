import assert from "node:assert/strict";
import { LeaderElector } from "../leaderelection/leader_elector.ts";
import { settle, waitFor } from "../testing/fake_clock.ts";
import { ControllerHarness, widget } from "./_controller_harness_test.ts";
import type { ControllerConfig, Leadership } from "./controller_config.ts";

/** A harness whose controller follows an elector on the same server. */
function withElector(
  config: Partial<ControllerConfig> = {},
): { h: ControllerHarness; elector: () => LeaderElector } {
  // The elector needs the harness's client, the harness the leadership.
  const made: { elector?: LeaderElector } = {};
  const leader: Leadership = {
    whileLeading: (onTerm) => made.elector!.whileLeading(onTerm),
    isLeader: () => made.elector?.isLeader() ?? false,
  };
  const h = new ControllerHarness({
    seed: (server) => server.create("widgets", widget("shop", "a")),
    config: { leader, ...config },
  });
  const elector = made.elector = new LeaderElector(
    {
      lease: { namespace: "shop", name: "widgets" },
      identity: "replica-a",
    },
    h.client,
    { clock: h.clock, logger: h.logger, random: () => 0.5 },
  );
  return { h, elector: () => elector };
}

Deno.test("Controller with a leader: a standby syncs and queues but reconciles nothing until it leads", async () => {
  const { h, elector } = withElector();
  await using _h = h;
  await h.started();
  await settle(10);
  assert.equal(h.runs.length, 0);
  const health = h.controller.health();
  assert.equal(health.synced, true);
  assert.equal(health.leading, false);
  assert.equal(health.queue.waiting, 1);
  const electing = elector().start();
  await h.ended(1);
  assert.equal(h.controller.health().leading, true);
  await elector().stop();
  await electing;
});

for (const ending of ["rejects", "returns"] as const) {
  Deno.test(`Controller with a leader: losing the lead aborts the reconciles in flight (one that ${ending} when aborted), starts none, and the next term takes their keys`, async () => {
    const { h, elector } = withElector();
    await using _h = h;
    h.reconcile = (_key, { signal }) =>
      h.runs.length > 1 ? undefined : new Promise<void>((resolve, reject) => {
        signal.addEventListener(
          "abort",
          () => ending === "rejects" ? reject(signal.reason) : resolve(),
        );
      });
    const electing = elector().start();
    await h.started();
    await waitFor(() => h.runs.length === 1, { description: "first run" });
    // Renewals fail from now on: the term ends at the renew deadline.
    const outage = h.server.addReactor({
      verb: ["get", "update"],
      resource: "leases",
      react: () => new Response("down", { status: 503 }),
    });
    for (let i = 0; i < 12 && elector().isLeader(); i++) {
      await h.clock.tick(1_000);
      await settle();
    }
    assert.equal(elector().isLeader(), false);
    await h.ended(1);
    assert.equal(h.runs[0].aborted, true);
    h.server.create("widgets", widget("shop", "b"));
    await waitFor(() => h.controller.health().queue.waiting === 2);
    await settle(10);
    assert.equal(h.runs.length, 1, "no reconcile starts without the lead");
    assert.deepEqual(h.metric("controller_runtime_reconcile_errors_total"), [
      0,
    ]);
    // Cut short: counted neither as an error nor as a success.
    assert.deepEqual(
      h.metric("controller_runtime_reconcile_total").filter((n) => n > 0),
      [],
    );
    assert.ok(
      h.logger.records.some((r) =>
        r.message.startsWith("Controller lost the lead")
      ),
    );
    outage.cancel();
    for (let i = 0; i < 30 && !elector().isLeader(); i++) {
      await h.clock.tick(1_000);
      await settle();
    }
    await h.ended(3);
    assert.deepEqual(h.runs.slice(1).map((r) => r.key).sort(), [
      "shop/a",
      "shop/b",
    ]);
    await elector().stop();
    await electing;
  });
}

Deno.test("Controller with a leader: a new term's workers wait for the last term's reconciles to return (never more than maxConcurrent)", async () => {
  const { h, elector } = withElector({ maxConcurrent: 1 });
  await using _h = h;
  let release = () => {};
  // The first reconcile ignores its signal until released.
  h.reconcile = () =>
    h.runs.length > 1
      ? undefined
      : new Promise<void>((resolve) => release = resolve);
  const electing = elector().start();
  await h.started();
  await waitFor(() => h.runs.length === 1, { description: "first run" });
  const outage = h.server.addReactor({
    verb: ["get", "update"],
    resource: "leases",
    react: () => new Response("down", { status: 503 }),
  });
  for (let i = 0; i < 12 && elector().isLeader(); i++) {
    await h.clock.tick(1_000);
    await settle();
  }
  assert.equal(elector().isLeader(), false);
  outage.cancel();
  for (let i = 0; i < 30 && !elector().isLeader(); i++) {
    await h.clock.tick(1_000);
    await settle();
  }
  assert.equal(elector().isLeader(), true);
  h.server.create("widgets", widget("shop", "b"));
  await waitFor(() => h.controller.health().queue.waiting >= 1);
  await settle(10);
  assert.equal(h.runs.length, 1, "the new term waits for the old reconcile");
  assert.equal(h.controller.health().workers.active, 1);
  release();
  await h.ended(2);
  await elector().stop();
  await electing;
});
