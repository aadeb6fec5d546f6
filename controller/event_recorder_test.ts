import assert from "node:assert/strict";
import { FetchClient } from "../client/fetch_client.ts";
import type { RestClient } from "../client/rest_client.ts";
import { FakeApiServer } from "../testing/fake_api_server.ts";
import { mockFetch } from "../testing/mock_fetch.ts";
import { FakeClock } from "../testing/fake_clock.ts";
import { RecordingLogger } from "../testing/recording_logger.ts";
import { MetricsRegistry } from "../metrics/registry.ts";
import type { KubeObject } from "../types.ts";
import { ControllerConfigError } from "./errors.ts";
import { EventRecorder } from "./event_recorder.ts";
import type {
  EventInput,
  EventRecorderConfig,
  EventRecorderOptions,
} from "./event_recorder_config.ts";

const EVENTS = { group: "events.k8s.io", version: "v1", resource: "events" };
const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);
const MINUTE = 60_000;

const WIDGET = {
  apiVersion: "example.com/v1",
  kind: "Widget",
  metadata: {
    name: "w",
    namespace: "shop",
    uid: "uid-w",
    resourceVersion: "7",
  },
};
const OTHER = {
  apiVersion: "example.com/v1",
  kind: "Widget",
  metadata: { name: "x", namespace: "shop", uid: "uid-x" },
};
const FAILED: EventInput = {
  type: "Warning",
  reason: "ConfigFailed",
  action: "Reconciling",
  note: "the ConfigMap could not be written",
};

/** A recorder on a fake clock and a fake server, and what it wrote. */
function setUp(
  config: Partial<EventRecorderConfig> = {},
  options: EventRecorderOptions = {},
) {
  const server = new FakeApiServer();
  const fetchMock = mockFetch(server);
  const client = new FetchClient({ server: server.url });
  const clock = new FakeClock({ now: T0 });
  const logger = new RecordingLogger();
  const recorder = new EventRecorder(
    {
      reportingController: "example.com/widgets",
      reportingInstance: "widgets-0",
      ...config,
    },
    client,
    { clock, logger, ...options },
  );
  const events = (namespace = "shop") =>
    server.list(EVENTS, namespace) as (KubeObject & {
      series?: { count: number; lastObservedTime: string };
      [field: string]: unknown;
    })[];
  const writes = () =>
    server.requests.filter((r) => r.resource === "events").map((r) => r.verb);
  return {
    server,
    client,
    clock,
    logger,
    recorder,
    events,
    writes,
    async [Symbol.asyncDispose]() {
      await recorder.stop();
      client.close();
      fetchMock[Symbol.dispose]();
      await server.close();
    },
  };
}

Deno.test("EventRecorder: the first Event is created with every field kube-apiserver asks for", async () => {
  await using t = setUp();
  t.recorder.event(WIDGET, { ...FAILED, related: OTHER });
  await t.recorder.drain();
  const [event] = t.events();
  assert.match(event.metadata.name!, /^w\.[0-9a-f]+$/);
  assert.deepEqual(
    {
      ...event,
      metadata: { namespace: event.metadata.namespace },
    },
    {
      apiVersion: "events.k8s.io/v1",
      kind: "Event",
      metadata: { namespace: "shop" },
      eventTime: "2026-01-01T12:00:00.000000Z",
      reportingController: "example.com/widgets",
      reportingInstance: "widgets-0",
      type: "Warning",
      reason: "ConfigFailed",
      action: "Reconciling",
      note: "the ConfigMap could not be written",
      regarding: {
        apiVersion: "example.com/v1",
        kind: "Widget",
        name: "w",
        namespace: "shop",
        uid: "uid-w",
        resourceVersion: "7",
      },
      related: {
        apiVersion: "example.com/v1",
        kind: "Widget",
        name: "x",
        namespace: "shop",
        uid: "uid-x",
      },
    },
  );
  assert.deepEqual(t.writes(), ["create"]);
  assert.deepEqual(t.recorder.counts, {
    new: 1,
    aggregated: 0,
    rateLimited: 0,
    invalid: 0,
    writes: 1,
    writeFailures: 0,
  });
});

Deno.test("EventRecorder: repeats become one series, written at the second, then when it ends", async () => {
  await using t = setUp();
  t.recorder.event(WIDGET, FAILED);
  await t.clock.tick(10_000);
  t.recorder.event(WIDGET, FAILED);
  await t.recorder.drain();
  assert.deepEqual(t.events().map((e) => e.series), [{
    count: 2,
    lastObservedTime: "2026-01-01T12:00:10.000000Z",
  }]);
  assert.deepEqual(t.writes(), ["create", "patch"]);

  // A crash loop: every minute, for five minutes. Only counted.
  for (let i = 0; i < 5; i++) {
    await t.clock.tick(MINUTE);
    t.recorder.event(WIDGET, FAILED);
  }
  await t.recorder.drain();
  assert.equal(t.events()[0].series?.count, 2);
  assert.deepEqual(t.writes(), ["create", "patch"]);

  // Six minutes without a repeat end the series: its count is written.
  await t.clock.tick(6 * MINUTE - 1);
  await t.recorder.drain();
  assert.equal(t.events()[0].series?.count, 2);
  await t.clock.tick(1);
  await t.recorder.drain();
  assert.deepEqual(t.events().map((e) => e.series), [{
    count: 7,
    lastObservedTime: "2026-01-01T12:05:10.000000Z",
  }]);
  assert.deepEqual(t.writes(), ["create", "patch", "patch"]);
  assert.equal(t.events()[0].eventTime, "2026-01-01T12:00:00.000000Z");

  // After the end, the same Event starts a new one.
  t.recorder.event(WIDGET, FAILED);
  await t.recorder.drain();
  assert.equal(t.events().length, 2);
  assert.deepEqual(t.recorder.counts, {
    new: 2,
    aggregated: 6,
    rateLimited: 0,
    invalid: 0,
    writes: 4,
    writeFailures: 0,
  });
});

Deno.test("EventRecorder: a series that goes on is written every 30 minutes", async () => {
  await using t = setUp();
  t.recorder.event(WIDGET, FAILED);
  t.recorder.event(WIDGET, FAILED);
  await t.recorder.drain();
  let count = 2;
  const counts: number[] = [];
  for (let minute = 5; minute <= 65; minute += 5) {
    await t.clock.tick(5 * MINUTE);
    t.recorder.event(WIDGET, FAILED);
    count++;
    await t.recorder.drain();
    counts.push(t.events()[0].series!.count);
  }
  assert.equal(count, 15);
  // Written at minute 30 and 60, with the count up to then (the repeat at
  // minute 30 comes after the write).
  assert.deepEqual(counts, [2, 2, 2, 2, 2, 7, 7, 7, 7, 7, 7, 13, 13]);
  // The first two were recorded before the create was sent: it carries
  // the series.
  assert.deepEqual(t.writes(), ["create", "patch", "patch"]);
});

Deno.test("EventRecorder: a changed note or resourceVersion stays in the series; another reason, type, action, object or related one does not", async () => {
  await using t = setUp();
  t.recorder.event(WIDGET, FAILED);
  t.recorder.event(
    { ...WIDGET, metadata: { ...WIDGET.metadata, resourceVersion: "8" } },
    { ...FAILED, note: "a changed detail" },
  );
  t.recorder.event(WIDGET, { ...FAILED, reason: "Other" });
  t.recorder.event(WIDGET, { ...FAILED, type: "Normal" });
  t.recorder.event(WIDGET, { ...FAILED, action: "Deleting" });
  t.recorder.event(OTHER, FAILED);
  t.recorder.event(WIDGET, { ...FAILED, related: OTHER });
  // Another incarnation of the object (a new uid) is another object.
  t.recorder.event(
    { ...WIDGET, metadata: { ...WIDGET.metadata, uid: "uid-w2" } },
    FAILED,
  );
  await t.recorder.drain();
  const events = t.events();
  assert.equal(events.length, 7);
  const first = events.find((e) =>
    e.reason === "ConfigFailed" && e.type === "Warning" &&
    e.action === "Reconciling" && e.related === undefined &&
    (e.regarding as { uid: string }).uid === "uid-w"
  )!;
  assert.equal(first.series?.count, 2);
  // The first's note and reference are kept.
  assert.equal(first.note, FAILED.note);
  assert.equal(
    (first.regarding as { resourceVersion: string }).resourceVersion,
    "7",
  );
});

Deno.test("EventRecorder: new Events of one object beyond 25 are dropped, one more every 5 minutes", async () => {
  await using t = setUp();
  for (let i = 0; i < 30; i++) {
    t.recorder.event(WIDGET, { ...FAILED, reason: `Reason${i}` });
  }
  await t.recorder.drain();
  assert.equal(t.events().length, 25);
  assert.equal(t.recorder.counts.rateLimited, 5);
  assert.equal(
    t.logger.records.filter((r) =>
      r.message === "Event dropped: its object's rate limit is spent"
    ).length,
    5,
  );
  // A repeat of a recorded one is never dropped: it counts, and its count
  // is written when the series ends.
  t.recorder.event(WIDGET, { ...FAILED, reason: "Reason0" });
  t.recorder.event(WIDGET, { ...FAILED, reason: "Reason0" });
  assert.equal(t.recorder.counts.aggregated, 2);

  await t.clock.tick(5 * MINUTE - 1);
  t.recorder.event(WIDGET, { ...FAILED, reason: "Late0" });
  await t.clock.tick(1);
  t.recorder.event(WIDGET, { ...FAILED, reason: "Late1" });
  t.recorder.event(WIDGET, { ...FAILED, reason: "Late2" });
  await t.recorder.drain();
  assert.deepEqual(
    t.events().map((e) => e.reason).filter((r) => String(r).startsWith("Late")),
    ["Late1"],
  );
  assert.equal(t.recorder.counts.rateLimited, 7);

  await t.clock.tick(2 * MINUTE);
  await t.recorder.drain();
  const reason0 = t.events().find((e) => e.reason === "Reason0")!;
  assert.equal(reason0.series?.count, 3);

  // Ten minutes later two more tokens are back.
  await t.clock.tick(10 * MINUTE);
  for (let i = 0; i < 3; i++) {
    t.recorder.event(WIDGET, { ...FAILED, reason: `Later${i}` });
  }
  await t.recorder.drain();
  assert.equal(
    t.events().filter((e) => String(e.reason).startsWith("Later")).length,
    2,
  );
});

Deno.test("EventRecorder: the rate limit is per object and per type", async () => {
  await using t = setUp({ rateLimit: { burst: 2, refillMs: MINUTE } });
  const fill = (
    obj: typeof WIDGET | typeof OTHER,
    type: "Normal" | "Warning",
  ) => {
    for (let i = 0; i < 3; i++) {
      t.recorder.event(obj, { ...FAILED, type, reason: `R${i}` });
    }
  };
  fill(WIDGET, "Warning");
  fill(WIDGET, "Normal");
  fill(OTHER, "Warning");
  await t.recorder.drain();
  assert.equal(t.events().length, 6);
  assert.equal(t.recorder.counts.rateLimited, 3);
  await t.clock.tick(MINUTE);
  t.recorder.event(WIDGET, { ...FAILED, reason: "R2" });
  await t.recorder.drain();
  assert.equal(t.events().length, 7);
  assert.equal(t.recorder.counts.rateLimited, 3);
  // A series' start takes a token too: without one it waits for its end.
  t.recorder.event(WIDGET, { ...FAILED, reason: "R0" });
  await t.recorder.drain();
  assert.equal(t.recorder.counts.rateLimited, 3);
  assert.deepEqual(t.writes().filter((verb) => verb === "patch"), []);
  await t.clock.tick(MINUTE);
  t.recorder.event(WIDGET, { ...FAILED, reason: "R1" });
  await t.recorder.drain();
  assert.deepEqual(t.writes().filter((verb) => verb === "patch"), ["patch"]);
});

Deno.test("EventRecorder: a failed write is logged and counted, never thrown; the next write creates the Event", async () => {
  await using t = setUp();
  t.server.injectFault({
    verb: "create",
    resource: EVENTS,
    kind: "status",
    code: 403,
  });
  t.recorder.event(WIDGET, FAILED);
  await t.recorder.drain();
  assert.equal(t.events().length, 0);
  assert.equal(t.recorder.counts.writeFailures, 1);
  const [line] = t.logger.records.filter((r) => r.level === "warn");
  assert.equal(line.message, "Event not written");
  assert.equal(line.fields.verb, "create");
  assert.equal(line.fields.reason, "ConfigFailed");
  assert.equal(line.fields.regarding, "shop/w");
  assert.equal(line.fields.reportingController, "example.com/widgets");
  assert.match(String(line.fields.error), /403|forbidden/i);

  // The repeat writes what the server lacks: the Event, with its series.
  t.recorder.event(WIDGET, FAILED);
  await t.recorder.drain();
  assert.deepEqual(t.events().map((e) => e.series?.count), [2]);

  // Deleted on the server (or gone with its TTL): created again.
  const [event] = t.events();
  t.server.delete(EVENTS, "shop", event.metadata.name!);
  t.recorder.event(WIDGET, FAILED);
  await t.clock.tick(6 * MINUTE);
  await t.recorder.drain();
  assert.deepEqual(
    t.events().map((e) => [e.metadata.name, e.series?.count]),
    [[event.metadata.name, 3]],
  );
  assert.deepEqual(t.writes(), ["create", "create", "patch", "create"]);
  assert.equal(t.recorder.counts.writeFailures, 1);
});

Deno.test("EventRecorder: an Event kube-apiserver would refuse is logged and counted, nothing sent", async () => {
  await using t = setUp();
  const bad: [unknown, unknown, RegExp][] = [
    [
      { metadata: { name: "w" } },
      FAILED,
      /regarding\.apiVersion must be a non-empty string.*add them/,
    ],
    [{ apiVersion: "v1", metadata: { name: "w" } }, FAILED, /regarding\.kind/],
    [{ apiVersion: "v1", kind: "Pod" }, FAILED, /regarding\.metadata\.name/],
    [null, FAILED, /regarding must be an object, got null/],
    [
      WIDGET,
      { ...FAILED, type: "Info" },
      /type must be "Normal" or "Warning", got "Info"/,
    ],
    [WIDGET, { ...FAILED, reason: "" }, /reason must be a non-empty string/],
    [
      WIDGET,
      { ...FAILED, action: "x".repeat(129) },
      /action must be at most 128 characters, got 129/,
    ],
    [WIDGET, { ...FAILED, note: 5 }, /note must be a string/],
    [WIDGET, { ...FAILED, related: { kind: "Pod" } }, /related\.apiVersion/],
    [WIDGET, undefined, /the event must be an object/],
  ];
  for (const [regarding, event] of bad) {
    t.recorder.event(regarding as never, event as never);
  }
  await t.recorder.drain();
  assert.deepEqual(t.writes(), []);
  assert.equal(t.recorder.counts.invalid, bad.length);
  const lines = t.logger.records.filter((r) => r.level === "error");
  assert.equal(lines.length, bad.length);
  bad.forEach(([, , message], i) => {
    assert.match(lines[i].message, /^Event not recorded: /);
    assert.match(lines[i].message, message);
  });
});

Deno.test("EventRecorder: a long note is cut to 1024 bytes between two characters; a cluster-scoped object's Event lives in default", async () => {
  await using t = setUp();
  const node = { apiVersion: "v1", kind: "Node", metadata: { name: "N1:a" } };
  t.recorder.event(node, { ...FAILED, note: "é".repeat(600) });
  await t.recorder.drain();
  const [event] = t.events("default");
  assert.equal(event.note, "é".repeat(512));
  assert.equal(new TextEncoder().encode(String(event.note)).length, 1024);
  // A name the object may have and an Event may not is made one.
  assert.match(event.metadata.name!, /^n1-a\.[0-9a-f]+$/);
  assert.deepEqual(event.regarding, {
    apiVersion: "v1",
    kind: "Node",
    name: "N1:a",
  });
});

Deno.test("EventRecorder: stop() writes the counts not yet written, leaves no timer and ignores later Events", async () => {
  await using t = setUp();
  t.recorder.event(WIDGET, FAILED);
  t.recorder.event(WIDGET, FAILED);
  t.recorder.event(WIDGET, FAILED);
  t.recorder.event(OTHER, FAILED);
  const stopped = t.recorder.stop();
  assert.equal(t.recorder.stop(), stopped);
  await stopped;
  assert.deepEqual(
    t.events().map((
      e,
    ) => [(e.regarding as { name: string }).name, e.series?.count]).sort(),
    [["w", 3], ["x", undefined]],
  );
  t.recorder.event(WIDGET, { ...FAILED, reason: "After" });
  await t.clock.tick(60 * MINUTE);
  await t.recorder.drain();
  assert.equal(t.events().length, 2);
  assert.equal(t.recorder.counts.new, 2);
  assert.equal(
    t.logger.records.at(-1)?.message,
    "Event recorder stopped, event not recorded",
  );
});

Deno.test("EventRecorder: metrics count results and writes by reporting controller", async () => {
  const meter = new MetricsRegistry();
  await using t = setUp({ rateLimit: { burst: 1 } }, { meter });
  t.server.injectFault({
    verb: "create",
    resource: EVENTS,
    namespace: "other",
    kind: "status",
    code: 403,
  });
  const elsewhere = {
    ...OTHER,
    metadata: { ...OTHER.metadata, namespace: "other" },
  };
  t.recorder.event(WIDGET, FAILED);
  await t.recorder.drain();
  // Burst 1 is spent: the series does not start now, but at its end.
  t.recorder.event(WIDGET, FAILED);
  t.recorder.event(WIDGET, { ...FAILED, reason: "Dropped" });
  t.recorder.event(WIDGET, { ...FAILED, type: "Bad" as never });
  t.recorder.event(elsewhere, FAILED);
  await t.recorder.drain();
  const value = (series: string) => {
    const line = meter.render().split("\n").find((l) =>
      l.startsWith(series + " ")
    );
    return line === undefined ? undefined : Number(line.split(" ")[1]);
  };
  const by = 'reporting_controller="example.com/widgets"';
  const events = (result: string) =>
    value(`k8s_watcher_recorded_events_total{${by},result="${result}"}`);
  const writes = (verb: string, result: string) =>
    value(
      `k8s_watcher_event_writes_total{${by},result="${result}",verb="${verb}"}`,
    );
  assert.equal(events("new"), 2);
  assert.equal(events("aggregated"), 1);
  assert.equal(events("rate_limited"), 1);
  assert.equal(events("invalid"), 1);
  assert.equal(writes("create", "success"), 1);
  assert.equal(writes("create", "failure"), 1);
  assert.equal(writes("patch", "success"), 0);
  await t.clock.tick(6 * MINUTE);
  await t.recorder.drain();
  assert.equal(writes("patch", "success"), 1);
  // The failed create was tried again at its end.
  assert.equal(writes("create", "success"), 2);
});

Deno.test("EventRecorder: the client's meter is the default; reportingInstance defaults to the controller and the host", async () => {
  const meter = new MetricsRegistry();
  await using server = new FakeApiServer();
  using _fetch = mockFetch(server);
  using client = new FetchClient({ server: server.url }, { meter });
  await using recorder = new EventRecorder(
    { reportingController: "example.com/widgets" },
    client,
    { clock: new FakeClock() },
  );
  assert.equal(
    recorder.reportingInstance,
    `example.com/widgets-${Deno.hostname()}`,
  );
  assert.match(
    meter.render(),
    /k8s_watcher_recorded_events_total\{reporting_controller="example.com\/widgets",result="new"\} 0/,
  );
});

Deno.test("EventRecorder: wrong options are a ControllerConfigError naming the first", () => {
  const client = {
    performRequest: () => Promise.reject(new Error("not called")),
  } as unknown as RestClient;
  const cases: [unknown, unknown, unknown, string, RegExp][] = [
    [
      undefined,
      client,
      undefined,
      "config",
      /must be an object, got undefined/,
    ],
    [
      {},
      client,
      undefined,
      "reportingController",
      /must be a non-empty string, got undefined/,
    ],
    [
      { reportingController: "Widgets Controller" },
      client,
      undefined,
      "reportingController",
      /must be a qualified name/,
    ],
    [
      { reportingController: "Example.com/widgets" },
      client,
      undefined,
      "reportingController",
      /prefix "Example.com" must be a DNS subdomain/,
    ],
    [
      { reportingController: "example.com/" + "w".repeat(64) },
      client,
      undefined,
      "reportingController",
      /at most 63 characters/,
    ],
    [
      { reportingController: "w", reportingInstance: "" },
      client,
      undefined,
      "reportingInstance",
      /non-empty string/,
    ],
    [
      { reportingController: "w", reportingInstance: "i".repeat(129) },
      client,
      undefined,
      "reportingInstance",
      /at most 128 characters, got 129/,
    ],
    [
      { reportingController: "w", rateLimit: 5 },
      client,
      undefined,
      "rateLimit",
      /must be an object, got 5/,
    ],
    [
      { reportingController: "w", rateLimit: { burst: 0 } },
      client,
      undefined,
      "rateLimit.burst",
      /positive whole number, got 0/,
    ],
    [
      { reportingController: "w", rateLimit: { refillMs: -1 } },
      client,
      undefined,
      "rateLimit.refillMs",
      /positive number of milliseconds, got -1/,
    ],
    [
      { reportingController: "w", rateLimit: { brust: 3 } },
      client,
      undefined,
      "rateLimit.brust",
      /is not a rateLimit option \(did you mean burst\?\)/,
    ],
    [
      { reportingController: "w", reportingInstanse: "a" },
      client,
      undefined,
      "reportingInstanse",
      /did you mean reportingInstance\?/,
    ],
    [
      { reportingController: "w", clock: new FakeClock() },
      client,
      undefined,
      "clock",
      /belongs in the third argument \(EventRecorderOptions\), not in the config/,
    ],
    [
      { reportingController: "w" },
      {},
      undefined,
      "client",
      /must be a RestClient/,
    ],
    [
      { reportingController: "w" },
      client,
      { clock: {} },
      "clock",
      /must be a Clock/,
    ],
    [
      { reportingController: "w" },
      client,
      { logger: { info() {} } },
      "logger",
      /must be a Logger/,
    ],
    [
      { reportingController: "w" },
      client,
      { meter: {} },
      "meter",
      /must be a Meter/,
    ],
    [
      { reportingController: "w" },
      { ...client, meter: 1 },
      undefined,
      "client.meter",
      /must be a Meter/,
    ],
  ];
  for (const [config, c, options, field, message] of cases) {
    assert.throws(
      () => new EventRecorder(config as never, c as never, options as never),
      (error: unknown) => {
        assert.ok(error instanceof ControllerConfigError, String(error));
        assert.equal(error.component, "EventRecorder");
        assert.equal(error.field, field);
        assert.match(error.message, message);
        assert.match(error.message, /^Invalid EventRecorder options: /);
        return true;
      },
    );
  }
});
