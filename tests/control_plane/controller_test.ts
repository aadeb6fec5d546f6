// The example Widget controller (see _widget_controller.ts) on a real
// control plane: it converges through creates, updates and deletes,
// through a kube-apiserver restart, and when its ConfigMaps are deleted or
// edited by hand. Without a garbage collector (none runs here), a deleted
// Widget's ConfigMap is deleted by the controller's own reconcile of the
// absent Widget; an object the Widget owns that the controller did not make
// is left, orphaned, its owner reference dangling.
import assert from "node:assert/strict";
import { ResourceClient } from "../../client/resource_client.ts";
import { NotFoundError } from "../../client/api_error.ts";
import {
  controllerOf,
  setControllerReference,
} from "../../controller/object_helpers.ts";
import type { KubeObject } from "../../types.ts";
import { RecordingLogger } from "../../testing/recording_logger.ts";
import {
  CONFIGMAPS,
  createNamespace,
  inParallel,
  planeTest,
  sharedControlPlane,
} from "./_harness.ts";
import {
  assertWidgetsConverged,
  childName,
  installWidgetCrd,
  overlappingRuns,
  type ReconcileRun,
  repeatedWrites,
  type Widget,
  widgetController,
  WIDGETS,
} from "./_widget_controller.ts";

const plane = sharedControlPlane();

function widget(name: string, color: string, size: number): Widget {
  return {
    apiVersion: "example.com/v1",
    kind: "Widget",
    metadata: { name },
    spec: { color, size },
  };
}

/** The warnings and errors logged, by message. */
function problemsLogged(logger: RecordingLogger): string[] {
  return logger.records.filter((r) => r.level === "warn" || r.level === "error")
    .map((r) => `${r.level}: ${r.message}`);
}

planeTest(
  "a Widget controller converges through creates, updates and deletes; no garbage collector: its own reconcile deletes a deleted Widget's ConfigMap, another owned object stays orphaned",
  async () => {
    const started = performance.now();
    const p = await plane();
    using admin = p.client();
    await installWidgetCrd(admin);
    const namespace = "widgets-crud";
    await createNamespace(admin, namespace);
    const widgets = new ResourceClient<Widget>({
      client: admin,
      gvr: WIDGETS,
      namespace,
    });
    const configMaps = new ResourceClient({
      client: admin,
      gvr: CONFIGMAPS,
      namespace,
    });
    // Five before the controller starts (its initial list), five after.
    for (let i = 0; i < 5; i++) {
      await widgets.create(widget(`w-${i}`, "red", i));
    }
    using client = p.client();
    const runs: ReconcileRun[] = [];
    const logger = new RecordingLogger();
    await using controller = widgetController({
      replica: "only",
      client,
      namespace,
      runs,
      logger,
    });
    void controller.start();
    await inParallel(
      [5, 6, 7, 8, 9],
      5,
      (i) => widgets.create(widget(`w-${i}`, "blue", i)),
    );
    await assertWidgetsConverged(admin, namespace, { runs });

    // An object owned by w-0 that the controller did not make.
    const w0 = await widgets.get("w-0");
    const extra = await configMaps.create(
      setControllerReference(
        { apiVersion: "example.com/v1", kind: "Widget", metadata: w0.metadata },
        { metadata: { name: "w-0-extra", namespace }, data: { by: "hand" } },
      ),
    );

    // Spec updates bump the generation: status follows.
    await inParallel(
      [1, 2, 3, 4],
      4,
      (i) =>
        widgets.patch(`w-${i}`, { spec: { color: "green", size: 10 + i } }),
    );
    // A label changes no generation: nothing to do, but still converged.
    await widgets.patch("w-5", { metadata: { labels: { tier: "gold" } } });
    // Deletes: w-0 (with its extra object), w-6, w-7; one right after an update.
    await widgets.patch("w-6", { spec: { color: "black" } });
    await inParallel(
      ["w-0", "w-6", "w-7"],
      3,
      (name) => widgets.delete(name),
    );
    const deleted = ["w-0", "w-6", "w-7"];
    await assertWidgetsConverged(admin, namespace, { runs, absent: deleted });
    for (const name of deleted) {
      await assert.rejects(configMaps.get(childName(name)), NotFoundError);
      // Deleted by the reconcile of the absent Widget, not by anyone else.
      assert.ok(
        runs.some((r) =>
          r.key === `${namespace}/${name}` && r.saw === undefined &&
          r.wrote.includes("delete")
        ),
        `${name}'s ConfigMap was not deleted by its reconcile`,
      );
    }

    // A Widget re-created under a deleted one's name: a new uid, a new child.
    const again = await widgets.create(widget("w-7", "white", 77));
    await assertWidgetsConverged(admin, namespace, {
      runs,
      absent: ["w-0", "w-6"],
    });
    const child = await configMaps.get(childName("w-7"));
    assert.equal(controllerOf(child)?.uid, again.metadata.uid);
    assert.equal(
      (child.metadata.ownerReferences as unknown[]).length,
      1,
      "the old incarnation's reference was applied away",
    );

    // No garbage collector ran: w-0's other object is still there, seconds
    // and many reconciles after w-0 went, its owner reference dangling.
    const orphan = await configMaps.get("w-0-extra");
    assert.equal(orphan.metadata.uid, extra.metadata.uid);
    assert.equal(controllerOf(orphan)?.uid, w0.metadata.uid);
    await assert.rejects(widgets.get("w-0"), NotFoundError);

    assert.deepEqual(overlappingRuns(runs), []);
    assert.deepEqual(runs.filter((r) => r.result !== "ok"), []);
    // Every wait for the cache ended with the write seen, in time (first:
    // a wait that timed out explains a repeated write below).
    assert.deepEqual(problemsLogged(logger), []);
    // Read your writes: no reconcile acted on a cache from before the
    // previous one's writes (it would write the same thing again).
    assert.deepEqual(repeatedWrites(runs, "status"), []);
    assert.deepEqual(repeatedWrites(runs, "configmap"), []);
    const health = controller.health();
    assert.equal(health.state, "running");
    assert.equal(health.synced, true);
    console.log(
      `crud: ${runs.length} reconciles of ${
        new Set(runs.map((r) => r.key)).size
      } keys, ${runs.filter((r) => r.wrote.length > 0).length} wrote; ${
        Math.round(performance.now() - started)
      } ms`,
    );
  },
);

planeTest(
  "a Widget controller converges through a kube-apiserver restart mid-run without being restarted",
  async () => {
    const started = performance.now();
    const p = await plane();
    using admin = p.client();
    await installWidgetCrd(admin);
    const namespace = "widgets-restart";
    await createNamespace(admin, namespace);
    const widgets = new ResourceClient<Widget>({
      client: admin,
      gvr: WIDGETS,
      namespace,
    });
    using client = p.client();
    const runs: ReconcileRun[] = [];
    const logger = new RecordingLogger();
    await using controller = widgetController({
      replica: "only",
      client,
      namespace,
      runs,
      logger,
    });
    void controller.start();
    const names = Array.from({ length: 12 }, (_, i) => `w-${i}`);
    await inParallel(
      names,
      6,
      (name) => widgets.create(widget(name, "red", 1)),
    );
    await assertWidgetsConverged(admin, namespace, { runs });

    // Changes the controller is still reconciling when the server dies.
    await inParallel(
      names.slice(0, 6),
      6,
      (name) => widgets.patch(name, { spec: { color: "orange", size: 2 } }),
    );
    const before = runs.length;
    await p.restartApiServer();
    // And more once it is back.
    await inParallel(
      names.slice(6, 9),
      3,
      (name) => widgets.patch(name, { spec: { size: 3 } }),
    );
    await inParallel(["w-10", "w-11"], 2, (name) => widgets.delete(name));
    await inParallel(
      ["n-0", "n-1", "n-2"],
      3,
      (name) => widgets.create(widget(name, "violet", 4)),
    );
    await assertWidgetsConverged(admin, namespace, {
      runs,
      absent: ["w-10", "w-11"],
    });

    assert.deepEqual(overlappingRuns(runs), []);
    const health = controller.health();
    assert.equal(health.state, "running");
    assert.ok(runs.length > before);
    const failed = runs.filter((r) => r.result === "error").length;
    // A write whose watch event the restart cut off is seen by the relist;
    // on a slow machine that may take longer than the controller waits
    // (readYourWritesTimeoutMs): then it logs so and reconciles anyway.
    const stale =
      problemsLogged(logger).filter((line) =>
        line.includes("Cache did not reach")
      ).length;
    console.log(
      `restart: ${runs.length} reconciles, ${failed} failed while the server was away (retried), ${stale} waits for the cache timed out; ${
        Math.round(performance.now() - started)
      } ms`,
    );
  },
);

planeTest(
  "a Widget controller re-creates a ConfigMap deleted by hand and restores one edited by hand",
  async () => {
    const started = performance.now();
    const p = await plane();
    using admin = p.client();
    await installWidgetCrd(admin);
    const namespace = "widgets-children";
    await createNamespace(admin, namespace);
    const widgets = new ResourceClient<Widget>({
      client: admin,
      gvr: WIDGETS,
      namespace,
    });
    const configMaps = new ResourceClient<KubeObject>({
      client: admin,
      gvr: CONFIGMAPS,
      namespace,
    });
    using client = p.client();
    const runs: ReconcileRun[] = [];
    const logger = new RecordingLogger();
    await using controller = widgetController({
      replica: "only",
      client,
      namespace,
      runs,
      logger,
    });
    void controller.start();
    await inParallel(
      ["a", "b", "c"],
      3,
      (name) => widgets.create(widget(name, "red", 1)),
    );
    await assertWidgetsConverged(admin, namespace, { runs });
    const first = await configMaps.get(childName("a"));

    // Deleted by hand: made again (a new object, controlled by its Widget).
    await configMaps.delete(childName("a"));
    // Edited by hand, by another manager: its fields are taken back.
    await configMaps.patch(childName("b"), { data: { color: "hacked" } }, {
      fieldManager: "someone",
    });
    await assertWidgetsConverged(admin, namespace, { runs });
    const made = await configMaps.get(childName("a"));
    assert.notEqual(made.metadata.uid, first.metadata.uid);
    assert.equal(
      controllerOf(made)?.uid,
      (await widgets.get("a")).metadata.uid,
    );
    const restored = await configMaps.get(childName("b"));
    assert.deepEqual(restored.data, { color: "red", size: "1" });
    const rebuilt = runs.filter((r) =>
      r.key === `${namespace}/a` && r.wrote.includes("configmap")
    );
    assert.equal(rebuilt.length, 2, JSON.stringify(rebuilt));

    assert.deepEqual(overlappingRuns(runs), []);
    assert.deepEqual(runs.filter((r) => r.result !== "ok"), []);
    assert.deepEqual(problemsLogged(logger), []);
    assert.deepEqual(repeatedWrites(runs, "status"), []);
    console.log(
      `children: ${runs.length} reconciles; ${
        Math.round(performance.now() - started)
      } ms`,
    );
  },
);
