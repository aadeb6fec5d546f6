// EventRecorder against a real kube-apiserver: its Events pass the strict
// validation of events.k8s.io/v1, land where `kubectl events` looks, and
// aggregate into one Event whose series counts the repeats. Time is a
// FakeClock's, so a series ends without waiting six minutes.
import assert from "node:assert/strict";
import { ResourceClient } from "../../client/resource_client.ts";
import { EventRecorder } from "../../controller/event_recorder.ts";
import { FakeClock } from "../../testing/fake_clock.ts";
import { RecordingLogger } from "../../testing/recording_logger.ts";
import {
  CONFIGMAPS,
  create,
  createNamespace,
  planeTest,
  sharedControlPlane,
} from "./_harness.ts";

const plane = sharedControlPlane();
const EVENTS = { group: "events.k8s.io", version: "v1", resource: "events" };
const MINUTE = 60_000;

type Event = {
  metadata: { name: string; namespace: string };
  eventTime?: string;
  reason?: string;
  note?: string;
  regarding?: Record<string, string>;
  series?: { count: number; lastObservedTime: string };
  reportingController?: string;
  reportingInstance?: string;
};

planeTest(
  "EventRecorder: Events land on kube-apiserver and repeats aggregate into one series",
  async () => {
    const p = await plane();
    using client = p.client();
    await createNamespace(client, "recorder");
    const cm = await create(client, CONFIGMAPS, "recorder", {
      metadata: { name: "settings" },
    }) as { metadata: { uid: string; resourceVersion: string } };
    const clock = new FakeClock({ now: Date.UTC(2026, 0, 1, 12) });
    const logger = new RecordingLogger();
    await using recorder = new EventRecorder(
      {
        reportingController: "example.com/widgets",
        reportingInstance: "widgets-0",
      },
      client,
      { clock, logger },
    );
    const events = new ResourceClient<Event>({ client, gvr: EVENTS });
    const inRecorder = async () =>
      (await events.list({ namespace: "recorder" })).items;
    const regarding = {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "settings", namespace: "recorder", ...cm.metadata },
    };
    const failed = {
      type: "Warning",
      reason: "ConfigFailed",
      action: "Reconciling",
      note: "é".repeat(600), // cut to 1024 bytes, the server's limit
    } as const;

    recorder.event(regarding, failed);
    await recorder.drain();
    let [event] = await inRecorder();
    assert.equal(event.reason, "ConfigFailed");
    assert.equal(event.reportingController, "example.com/widgets");
    assert.equal(event.reportingInstance, "widgets-0");
    assert.equal(event.eventTime, "2026-01-01T12:00:00.000000Z");
    assert.equal(event.note, "é".repeat(512));
    assert.equal(event.series, undefined);
    assert.deepEqual(event.regarding, {
      apiVersion: "v1",
      kind: "ConfigMap",
      name: "settings",
      namespace: "recorder",
      uid: cm.metadata.uid,
      resourceVersion: cm.metadata.resourceVersion,
    });

    await clock.tick(MINUTE);
    recorder.event(regarding, failed);
    await recorder.drain();
    [event] = await inRecorder();
    assert.deepEqual(event.series, {
      count: 2,
      lastObservedTime: "2026-01-01T12:01:00.000000Z",
    });

    for (let i = 0; i < 3; i++) {
      await clock.tick(MINUTE);
      recorder.event(regarding, failed);
    }
    await recorder.drain();
    assert.equal((await inRecorder())[0].series?.count, 2);
    await clock.tick(6 * MINUTE);
    await recorder.drain();
    const all = await inRecorder();
    assert.equal(all.length, 1);
    assert.deepEqual(all[0].series, {
      count: 5,
      lastObservedTime: "2026-01-01T12:04:00.000000Z",
    });

    // Six minutes on, the same Event starts a new one; deleted on the
    // server while its series goes on, it is created again with the count.
    recorder.event(regarding, failed);
    await recorder.drain();
    const second = (await inRecorder()).find((e) =>
      e.metadata.name !== all[0].metadata.name
    )!;
    assert.equal(second.series, undefined);
    await events.delete(second.metadata.name, { namespace: "recorder" });
    recorder.event(regarding, failed);
    await recorder.drain();
    assert.deepEqual(
      (await inRecorder()).map((e) => [e.metadata.name, e.series?.count]),
      [[all[0].metadata.name, 5], [second.metadata.name, 2]],
    );

    // kubectl finds them by the object, as `kubectl describe` does.
    const described = await p.kubectl(
      "events",
      "-n",
      "recorder",
      "--for",
      "configmap/settings",
      "-o",
      "json",
    );
    assert.match(described, /ConfigFailed/);
    assert.deepEqual(recorder.counts, {
      new: 2,
      aggregated: 5,
      rateLimited: 0,
      invalid: 0,
      writes: 6, // create, patch, patch; create, patch (404), create
      writeFailures: 0,
    });
    assert.deepEqual(logger.records, []);
  },
);

planeTest(
  "EventRecorder: a cluster-scoped object's Event lives in default; a name an Event may not have is made one",
  async () => {
    const p = await plane();
    using client = p.client();
    const logger = new RecordingLogger();
    await using recorder = new EventRecorder(
      { reportingController: "example.com/rbac", reportingInstance: "r-0" },
      client,
      { clock: new FakeClock({ now: Date.UTC(2026, 0, 1) }), logger },
    );
    const role = {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRole",
      metadata: { name: "system:controller:Widgets" },
    };
    recorder.event(role, {
      type: "Normal",
      reason: "Checked",
      action: "Auditing",
    });
    await recorder.drain();
    assert.deepEqual(logger.records, []);
    const events = new ResourceClient<Event>({ client, gvr: EVENTS });
    const found = (await events.list({ namespace: "default" })).items.filter(
      (e) => e.reason === "Checked",
    );
    assert.equal(found.length, 1);
    assert.match(found[0].metadata.name, /^system-controller-widgets\./);
    assert.deepEqual(found[0].regarding, {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRole",
      name: "system:controller:Widgets",
    });
  },
);
