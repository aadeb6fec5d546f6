import assert from "node:assert/strict";
import { settle, waitFor } from "../testing/fake_clock.ts";
import {
  CONFIGMAPS,
  ControllerHarness,
  widget,
  WIDGETS,
} from "./_controller_harness_test.ts";
import { Controller } from "./controller.ts";
import { EventRecorder } from "./event_recorder.ts";

Deno.test("Controller reconciles every listed object once after sync, then each change, and a deletion with the object absent", async () => {
  await using h = new ControllerHarness({
    seed: (server) => {
      server.create("widgets", widget("shop", "a"));
      server.create("widgets", widget("shop", "b"));
    },
  });
  await h.started(2);
  assert.deepEqual(h.keys().sort(), ["shop/a", "shop/b"]);
  h.server.patch("widgets", "shop", "a", { spec: { size: 2 } });
  await h.ended(3);
  assert.equal(h.runs[2].key, "shop/a");
  assert.equal(
    h.runs[2].saw,
    h.server.get("widgets", "shop", "a").metadata.resourceVersion,
  );
  h.server.delete("widgets", "shop", "b");
  await h.ended(4);
  assert.equal(h.runs[3].key, "shop/b");
  assert.equal(h.runs[3].saw, undefined);
});

Deno.test("Controller starts no reconcile before every watched store has synced", async () => {
  await using h = new ControllerHarness({
    seed: (server) => server.create("widgets", widget("shop", "a")),
    config: { owns: [{ gvr: CONFIGMAPS }] },
  });
  // The children's LIST hangs until released: the primary's sync alone
  // must not start the work.
  let release!: () => void;
  const held = new Promise<void>((resolve) => release = resolve);
  h.server.addReactor({
    verb: "list",
    resource: "configmaps",
    times: 1,
    react: async (call) => {
      await held;
      return call.serve();
    },
  });
  h.start();
  await waitFor(() => h.controller.health().watchers.widgets.synced === true, {
    description: "widgets synced",
  });
  await settle();
  assert.equal(h.runs.length, 0);
  assert.equal(h.controller.health().synced, false);
  release();
  await h.ended(1);
  assert.deepEqual(h.keys(), ["shop/a"]);
});

Deno.test("Controller: a burst of events for a key during its reconcile costs one more reconcile", async () => {
  await using h = new ControllerHarness({
    seed: (server) => server.create("widgets", widget("shop", "a")),
  });
  let unblock!: () => void;
  h.reconcile = (_key, { attempt }) => {
    if (h.runs.length === 1 && attempt === 1) {
      return new Promise<void>((resolve) => unblock = resolve);
    }
  };
  h.start();
  await waitFor(() => h.runs.length === 1, { description: "first run" });
  for (let i = 2; i <= 20; i++) {
    h.server.patch("widgets", "shop", "a", { spec: { size: i } });
  }
  await waitFor(
    () =>
      h.controller.health().queue.processing === 1 &&
      h.controller.health().watchers.widgets.objects === 1,
  );
  await settle(10);
  assert.equal(h.runs.length, 1, "never a second reconcile of a running key");
  unblock();
  await h.ended(2);
  await settle(10);
  assert.equal(h.runs.length, 2);
  assert.equal(
    h.runs[1].saw,
    h.server.get("widgets", "shop", "a").metadata.resourceVersion,
  );
});

Deno.test("Controller: a failure is retried after the key's backoff, success forgets it", async () => {
  await using h = new ControllerHarness({
    seed: (server) => server.create("widgets", widget("shop", "a")),
    config: { queue: { backoff: { baseMs: 100, maxMs: 1_000 } } },
  });
  h.reconcile = (_key, { attempt }) => {
    if (attempt <= 3) throw new Error(`attempt ${attempt} failed`);
  };
  await h.started(1);
  for (const [n, wait] of [[2, 100], [3, 200], [4, 400]]) {
    await h.clock.tick(wait - 1);
    await settle();
    assert.equal(h.runs.length, n - 1, `not before ${wait} ms`);
    await h.clock.tick(1);
    await h.ended(n);
  }
  assert.deepEqual(h.runs.map((r) => r.attempt), [1, 2, 3, 4]);
  assert.equal(
    h.logger.records.filter((e) => e.message.startsWith("Reconcile failed"))
      .length,
    3,
  );
  // Forgotten: the next failure starts again from the base.
  h.reconcile = () => {
    throw new Error("again");
  };
  h.server.patch("widgets", "shop", "a", { spec: { size: 9 } });
  await h.ended(5);
  assert.equal(h.runs[4].attempt, 1);
  await h.clock.tick(100);
  await h.ended(6);
  assert.equal(h.runs[5].attempt, 2);
  assert.deepEqual(h.metric("controller_runtime_reconcile_errors_total"), [5]);
  assert.deepEqual(
    h.metric("controller_runtime_reconcile_total", { result: "success" }),
    [1],
  );
});

Deno.test("Controller: requeueAfter looks again after that long, and is no failure", async () => {
  await using h = new ControllerHarness({
    seed: (server) => server.create("widgets", widget("shop", "a")),
  });
  h.reconcile = () => h.runs.length < 3 ? { requeueAfter: 60_000 } : undefined;
  await h.started(1);
  await h.clock.tick(59_999);
  await settle();
  assert.equal(h.runs.length, 1);
  await h.clock.tick(1);
  await h.ended(2);
  await h.clock.tick(60_000);
  await h.ended(3);
  await h.clock.tick(60_000);
  await settle();
  assert.equal(h.runs.length, 3);
  assert.deepEqual(h.runs.map((r) => r.attempt), [1, 1, 1]);
  assert.deepEqual(
    h.metric("controller_runtime_reconcile_total", { result: "requeue_after" }),
    [2],
  );
  assert.deepEqual(h.metric("controller_runtime_reconcile_errors_total"), [0]);
});

Deno.test("Controller: { requeue: true } comes back after the key's backoff", async () => {
  await using h = new ControllerHarness({
    seed: (server) => server.create("widgets", widget("shop", "a")),
    config: { queue: { backoff: { baseMs: 50 } } },
  });
  h.reconcile = () => h.runs.length === 1 ? { requeue: true } : undefined;
  await h.started(1);
  await h.clock.tick(50);
  await h.ended(2);
  assert.deepEqual(
    h.metric("controller_runtime_reconcile_total", { result: "requeue" }),
    [1],
  );
});

Deno.test("Controller: children map to their controlling owner; other owners and kinds do not", async () => {
  await using h = new ControllerHarness({
    seed: (server) => server.create("widgets", widget("shop", "a")),
    config: { owns: [{ gvr: CONFIGMAPS }] },
  });
  await h.started(1);
  const owner = h.server.get("widgets", "shop", "a");
  const ref = (kind: string, apiVersion: string, controller: boolean) => ({
    apiVersion,
    kind,
    name: "a",
    uid: owner.metadata.uid!,
    controller,
  });
  h.server.create("configmaps", {
    metadata: {
      namespace: "shop",
      name: "owned",
      ownerReferences: [ref("Widget", "example.com/v1", true)],
    },
  });
  await h.ended(2);
  assert.equal(h.runs[1].key, "shop/a");
  h.server.create("configmaps", {
    metadata: {
      namespace: "shop",
      name: "not-controlled",
      ownerReferences: [ref("Widget", "example.com/v1", false)],
    },
  });
  h.server.create("configmaps", {
    metadata: {
      namespace: "shop",
      name: "other-kind",
      ownerReferences: [ref("Gadget", "example.com/v1", true)],
    },
  });
  h.server.create("configmaps", {
    metadata: {
      namespace: "shop",
      name: "other-group",
      ownerReferences: [ref("Widget", "other.io/v1", true)],
    },
  });
  await waitFor(() => h.controller.health().watchers.configmaps.objects === 4);
  await settle(10);
  assert.equal(h.runs.length, 2);
  h.server.delete("configmaps", "shop", "owned");
  await h.ended(3);
  assert.equal(h.runs[2].key, "shop/a");
});

Deno.test("Controller: watches map any object to keys; reconcileAllOn looks at every key again", async () => {
  await using h = new ControllerHarness({
    seed: (server) => {
      server.create("widgets", widget("shop", "a"));
      server.create("widgets", widget("shop", "b"));
      server.create("configmaps", {
        metadata: { namespace: "shop", name: "settings" },
      });
    },
    config: {
      watches: [{
        gvr: { group: "", version: "v1", resource: "secrets" },
        map: (secret) => [`shop/${secret.metadata.labels?.widget}`],
      }],
      reconcileAllOn: [{
        gvr: CONFIGMAPS,
        fieldSelector: "metadata.name=settings",
      }],
    },
  });
  await h.started(2);
  h.server.create("secrets", {
    metadata: { namespace: "shop", name: "s", labels: { widget: "b" } },
  });
  await h.ended(3);
  assert.equal(h.runs[2].key, "shop/b");
  h.server.patch("configmaps", "shop", "settings", { data: { x: "1" } });
  await h.ended(5);
  assert.deepEqual(h.runs.slice(3).map((r) => r.key).sort(), [
    "shop/a",
    "shop/b",
  ]);
});

Deno.test("Controller: at most maxConcurrent reconciles at once, never two of one key", async () => {
  await using h = new ControllerHarness({
    seed: (server) => {
      for (let i = 0; i < 10; i++) {
        server.create("widgets", widget("shop", `w${i}`));
      }
    },
    config: { maxConcurrent: 3 },
  });
  let running = 0;
  let most = 0;
  h.reconcile = async () => {
    running++;
    most = Math.max(most, running);
    await new Promise<void>((resolve) => h.clock.setTimeout(resolve, 10));
    running--;
  };
  h.start();
  await waitFor(() => h.controller.health().workers.active === 3);
  assert.deepEqual(h.metric("controller_runtime_active_workers"), [3]);
  assert.deepEqual(h.metric("controller_runtime_max_concurrent_reconciles"), [
    3,
  ]);
  for (let i = 0; i < 5; i++) {
    await h.clock.tick(10);
    await settle();
  }
  await h.ended(10);
  assert.equal(most, 3);
});

Deno.test("Controller: reconcileTimeoutMs aborts the signal and counts as a failure", async () => {
  await using h = new ControllerHarness({
    seed: (server) => server.create("widgets", widget("shop", "a")),
    config: { reconcileTimeoutMs: 1_000, queue: { backoff: { baseMs: 10 } } },
  });
  h.reconcile = (_key, { signal, attempt }) =>
    attempt > 1 ? undefined : new Promise<void>((resolve) => {
      signal.addEventListener("abort", () => resolve());
    });
  h.start();
  await waitFor(() => h.runs.length === 1);
  await h.clock.tick(999);
  await settle();
  assert.equal(h.runs[0].end, undefined);
  await h.clock.tick(1);
  await h.ended(1);
  assert.equal(h.runs[0].aborted, true);
  assert.ok(
    h.logger.records.some((e) => e.message.startsWith("Reconcile timed out")),
  );
  await h.clock.tick(10);
  await h.ended(2);
  assert.equal(h.runs[1].attempt, 2);
  assert.deepEqual(h.metric("controller_runtime_reconcile_errors_total"), [1]);
});

Deno.test("Controller: generationChangedOnly skips status writes, not spec changes, deletion or finalizers", async () => {
  await using h = new ControllerHarness({
    seed: (server) => server.create("widgets", widget("shop", "a")),
    config: { generationChangedOnly: true },
  });
  await h.started(1);
  const status = (n: number) =>
    h.server.patch("widgets", "shop", "a", { status: { n } });
  status(1);
  await waitFor(() => h.controller.health().watchers.widgets.objects === 1);
  await settle(10);
  assert.equal(h.runs.length, 1);
  h.server.patch("widgets", "shop", "a", { spec: { size: 5 } });
  await h.ended(2);
  h.server.patch("widgets", "shop", "a", {
    metadata: { finalizers: ["example.com/cleanup"] },
  });
  await h.ended(3);
  h.server.delete("widgets", "shop", "a");
  await h.ended(4);
  assert.ok(h.server.get("widgets", "shop", "a").metadata.deletionTimestamp);
});

Deno.test("Controller: resyncEveryMs reconciles every key again", async () => {
  await using h = new ControllerHarness({
    seed: (server) => server.create("widgets", widget("shop", "a")),
    config: { resyncEveryMs: 30_000 },
  });
  await h.started(1);
  await h.clock.tick(30_000);
  await h.ended(2);
  await h.clock.tick(30_000);
  await h.ended(3);
  assert.deepEqual(h.keys(), ["shop/a", "shop/a", "shop/a"]);
});

Deno.test("Controller: context.event() records an Event regarding the key's object, named by for's apiVersion and kind", async () => {
  await using h = new ControllerHarness({
    seed: (server) => server.create("widgets", widget("shop", "a")),
  });
  await using recorder = new EventRecorder(
    { reportingController: "example.com/widgets", reportingInstance: "r-0" },
    h.client,
    { clock: h.clock, logger: h.logger },
  );
  // A second controller on the same harness server, with the recorder.
  await using controller = new Controller(
    {
      name: "widgets-events",
      for: { gvr: WIDGETS, kind: "Widget" },
      recorder,
      reconcile: (_key, context) =>
        context.event({
          type: "Warning",
          reason: "Broken",
          action: "Reconciling",
        }),
    },
    h.client,
    { clock: h.clock, logger: h.logger },
  );
  controller.start();
  const events = () =>
    h.server.list(
      { group: "events.k8s.io", version: "v1", resource: "events" },
      "shop",
    );
  await waitFor(() => events().length === 1, { description: "an Event" });
  const regarding = events()[0].regarding as Record<string, unknown>;
  assert.equal(regarding.apiVersion, "example.com/v1");
  assert.equal(regarding.kind, "Widget");
  assert.equal(regarding.name, "a");
  assert.equal(
    regarding.uid,
    h.server.get("widgets", "shop", "a").metadata.uid,
  );
  // Without a recorder, asking for one is a clear error.
  h.reconcile = (_key, context) => {
    assert.throws(
      () => context.event({ type: "Normal", reason: "X", action: "Y" }),
      /has no recorder/,
    );
  };
  await h.started(1);
});
