import assert from "node:assert/strict";
import { FetchClient } from "../client/fetch_client.ts";
import { FakeApiServer } from "../testing/fake_api_server.ts";
import { mockFetch } from "../testing/mock_fetch.ts";
import { FakeClock, waitFor } from "../testing/fake_clock.ts";
import { silentLogger } from "../logger.ts";
import { IndexSynchronizationTracker } from "../indextracker/index_synchronization_tracker.ts";
import { LeaderElector } from "../leaderelection/leader_elector.ts";
import { Watcher } from "../watcher/watcher.ts";
import type { WatcherHealth } from "../watcher/watcher_health.ts";
import { healthHandler, type HealthHandlerOptions } from "./health_handler.ts";

const CONFIGMAPS = { group: "", version: "v1", resource: "configmaps" };

async function get(
  handler: (request: Request) => Response | Promise<Response>,
  path: string,
  method = "GET",
): Promise<{ status: number; body: string; type: string | null }> {
  const response = await handler(
    new Request(`http://localhost${path}`, { method }),
  );
  return {
    status: response.status,
    body: await response.text(),
    type: response.headers.get("content-type"),
  };
}

/** A watcher's health as a test wants it: running and synced unless told. */
function health(overrides: Partial<WatcherHealth> = {}): WatcherHealth {
  return {
    state: "running",
    synced: true,
    resourceVersion: "1",
    objects: 0,
    lists: 1,
    relists: 0,
    listPages: 1,
    watches: 1,
    reconnects: 0,
    events: 0,
    bookmarks: 0,
    requestErrors: 0,
    backoffs: 0,
    lastEventTime: undefined,
    lastActivityTime: 0,
    idleTimeoutMs: 180_000,
    lastError: undefined,
    shared: false,
    ...overrides,
  };
}

Deno.test("healthHandler: /metrics serves the source's text as the Prometheus text format 0.0.4", async () => {
  const text = "# TYPE k8s_watcher_synced gauge\nk8s_watcher_synced 1\n";
  const handler = healthHandler({ metrics: { render: () => text } });
  assert.deepEqual(await get(handler, "/metrics"), {
    status: 200,
    body: text,
    type: "text/plain; version=0.0.4; charset=utf-8",
  });
  assert.deepEqual(await get(handler, "/metrics", "HEAD"), {
    status: 200,
    body: "",
    type: "text/plain; version=0.0.4; charset=utf-8",
  });
  const none = await get(healthHandler(), "/metrics");
  assert.equal(none.status, 404);
  assert.equal(none.body, "No metrics source is configured\n");
  const broken = await get(
    healthHandler({
      metrics: {
        render: () => {
          throw new Error("registry closed");
        },
      },
    }),
    "/metrics",
  );
  assert.equal(broken.status, 500);
  assert.equal(broken.body, "Rendering the metrics failed: registry closed\n");
});

Deno.test("healthHandler: /metrics serves a render() that answers with a promise, as prom-client's and OpenTelemetry's do", async () => {
  const text =
    "# TYPE process_cpu_seconds_total counter\nprocess_cpu_seconds_total 1.5\n";
  const handler = healthHandler({
    metrics: { render: () => Promise.resolve(text) },
  });
  assert.deepEqual(await get(handler, "/metrics"), {
    status: 200,
    body: text,
    type: "text/plain; version=0.0.4; charset=utf-8",
  });
  assert.deepEqual(await get(handler, "/metrics", "HEAD"), {
    status: 200,
    body: "",
    type: "text/plain; version=0.0.4; charset=utf-8",
  });
  // The probes still answer at once: only /metrics waits for the source.
  assert.ok(
    handler(new Request("http://localhost/healthz")) instanceof Response,
  );
  // Options typed as before keep the synchronous handler (a type check).
  const typed: HealthHandlerOptions = { metrics: { render: () => text } };
  const synchronous: (request: Request) => Response = healthHandler(typed);
  assert.equal(
    synchronous(new Request("http://localhost/metrics")).status,
    200,
  );
});

Deno.test("healthHandler: a render() whose promise rejects, or that gives no text, answers 500 saying so", async () => {
  const rejecting = healthHandler({
    metrics: {
      render: () => Promise.reject(new Error("collection timed out")),
    },
  });
  assert.deepEqual(await get(rejecting, "/metrics"), {
    status: 500,
    body: "Rendering the metrics failed: collection timed out\n",
    type: "text/plain; charset=utf-8",
  });
  assert.equal((await get(rejecting, "/metrics", "HEAD")).status, 500);
  const notText = healthHandler({
    metrics: { render: () => Promise.resolve(undefined as unknown as string) },
  });
  assert.deepEqual(await get(notText, "/metrics"), {
    status: 500,
    body: "Rendering the metrics failed: render() gave undefined, not text\n",
    type: "text/plain; charset=utf-8",
  });
});

Deno.test("healthHandler: with nothing to check every probe passes; other paths 404, other methods 405", async () => {
  const handler = healthHandler();
  for (const path of ["/healthz", "/livez", "/readyz"]) {
    assert.deepEqual(await get(handler, path), {
      status: 200,
      body: "ok\n",
      type: "text/plain; charset=utf-8",
    });
  }
  assert.equal(
    (await get(handler, "/readyz?verbose")).body,
    "readyz check passed\n",
  );
  assert.deepEqual(await get(handler, "/healthz/extra"), {
    status: 404,
    body: "Not found: /healthz/extra\n",
    type: "text/plain; charset=utf-8",
  });
  const post = handler(
    new Request("http://localhost/readyz", { method: "POST" }),
  );
  assert.equal(post.status, 405);
  assert.equal(post.headers.get("allow"), "GET, HEAD");
  assert.equal(await post.text(), "Method POST not allowed\n");
});

Deno.test("healthHandler: /readyz names each watcher not synced and why; ?verbose lists the others too", async () => {
  const states: Record<string, WatcherHealth> = {
    ingresses: health(),
    services: health({
      synced: false,
      lastError: { time: 0, error: new Error("services is forbidden\nmore") },
    }),
    secrets: health({ state: "idle", synced: false }),
    endpoints: health({
      synced: false,
      namespaces: {
        a: {
          synced: true,
          resourceVersion: "1",
          lastError: undefined,
          lastActivityTime: 0,
        },
        b: {
          synced: false,
          resourceVersion: undefined,
          lastError: undefined,
          lastActivityTime: undefined,
        },
      },
    }),
  };
  const watchers = Object.fromEntries(
    Object.keys(states).map((name) => [name, { health: () => states[name] }]),
  );
  const handler = healthHandler({ watchers, clock: new FakeClock() });
  const failing = [
    "[-]watcher/services failed: not synced; last error: services is forbidden",
    "[-]watcher/secrets failed: not started",
    "[-]watcher/endpoints failed: not synced (namespace b)",
    "readyz check failed",
  ];
  assert.deepEqual(await get(handler, "/readyz"), {
    status: 503,
    body: ["[+]watcher/ingresses ok", ...failing].join("\n") + "\n",
    type: "text/plain; charset=utf-8",
  });
  // HEAD: the status alone.
  assert.equal((await get(handler, "/readyz", "HEAD")).status, 503);
  states.services = health();
  states.secrets = health();
  states.endpoints = health();
  assert.equal((await get(handler, "/readyz")).body, "ok\n");
  assert.equal(
    (await get(handler, "/readyz?verbose")).body,
    "[+]watcher/ingresses ok\n[+]watcher/services ok\n[+]watcher/secrets ok\n[+]watcher/endpoints ok\nreadyz check passed\n",
  );
});

Deno.test("healthHandler: /healthz fails a running loop silent for more than twice its idle timeout, and names the namespace", async () => {
  const clock = new FakeClock({ now: 1_000_000 });
  let state = health({ lastActivityTime: 1_000_000, idleTimeoutMs: 60_000 });
  let split = health({
    lastActivityTime: undefined,
    namespaces: {
      a: {
        synced: true,
        resourceVersion: "1",
        lastError: undefined,
        lastActivityTime: 1_000_000,
      },
      b: {
        synced: true,
        resourceVersion: "1",
        lastError: { time: 1_000_000, error: new Error("503") },
        lastActivityTime: 900_000,
      },
    },
  });
  const handler = healthHandler({
    watchers: {
      short: { health: () => state },
      split: { health: () => split },
    },
    clock,
  });
  await clock.tick(120_000);
  assert.equal(
    (await get(handler, "/healthz")).status,
    200,
    "exactly 2 × idle",
  );
  await clock.tick(1);
  assert.deepEqual(await get(handler, "/healthz"), {
    status: 503,
    body:
      "[-]watcher/short failed: no progress for 120 s, more than twice its idle timeout (60 s)\n[+]watcher/split ok\nhealthz check failed\n",
    type: "text/plain; charset=utf-8",
  });
  // A stopped watcher is not wedged.
  state = { ...state, state: "stopped", synced: false };
  await clock.tick(240_000);
  assert.deepEqual(await get(handler, "/healthz"), {
    status: 503,
    body:
      "[+]watcher/short ok\n[-]watcher/split failed: namespace a: no progress for 360 s, more than twice its idle timeout (180 s); namespace b: no progress for 360 s, more than twice its idle timeout (180 s)\nhealthz check failed\n",
    type: "text/plain; charset=utf-8",
  });
  split = { ...split, state: "stopped" };
  assert.equal((await get(handler, "/healthz")).status, 200);
});

Deno.test("healthHandler: /readyz follows an IndexSynchronizationTracker resource by resource", async () => {
  const tracker = new IndexSynchronizationTracker(["ingresses", "services"], {
    logger: silentLogger,
  });
  const handler = healthHandler({ tracker });
  assert.equal(
    (await get(handler, "/readyz")).body,
    "[-]tracker/ingresses failed: not synced\n[-]tracker/services failed: not synced\nreadyz check failed\n",
  );
  tracker.markSynced("services", 2);
  assert.equal(
    (await get(handler, "/readyz")).body,
    "[-]tracker/ingresses failed: not synced\n[+]tracker/services ok\nreadyz check failed\n",
  );
  tracker.markSynced("ingresses", 0);
  assert.deepEqual(await get(handler, "/readyz"), {
    status: 200,
    body: "ok\n",
    type: "text/plain; charset=utf-8",
  });
  // The tracker has nothing to say about liveness.
  assert.equal(
    (await get(handler, "/healthz?verbose")).body,
    "healthz check passed\n",
  );
});

Deno.test("healthHandler: /readyz tracks real watchers as they sync, stop and fail", async () => {
  const clock = new FakeClock();
  await using server = new FakeApiServer({ clock });
  using _fetch = mockFetch(server);
  using client = new FetchClient({ server: server.url });
  server.create(CONFIGMAPS, { metadata: { namespace: "a", name: "x" } });
  // Namespace b's LIST is refused until the fault runs out.
  server.injectFault({ verb: "list", kind: "status", code: 403, times: 1 });
  const watcher = new Watcher(
    {
      gvr: CONFIGMAPS,
      indexBy: ["metadata.namespace", "metadata.name"],
      namespaces: ["b", "a"],
      onChange: () => {},
    },
    client,
    { clock, logger: silentLogger, random: () => 0.5 },
  );
  const tracker = new IndexSynchronizationTracker(["configmaps"], {
    logger: silentLogger,
  });
  const handler = healthHandler({
    watchers: { configmaps: watcher },
    tracker,
    clock,
  });
  void watcher.start();
  void tracker.track("configmaps", watcher);
  await waitFor(() => watcher.lastError() !== undefined);
  const { status, body } = await get(handler, "/readyz");
  assert.equal(status, 503);
  assert.match(
    body,
    /^\[-\]watcher\/configmaps failed: not synced \(namespace b\); last error: .*403.*\n\[-\]tracker\/configmaps failed: not synced\nreadyz check failed\n$/,
  );
  await clock.tick(1_000);
  await watcher.waitForSync();
  await waitFor(() => tracker.allSynced());
  assert.equal((await get(handler, "/readyz")).body, "ok\n");
  assert.equal((await get(handler, "/healthz")).body, "ok\n");
  await watcher.stop();
  // The tracker stays synced; the stopped watcher is not ready.
  assert.equal(
    (await get(handler, "/readyz")).body,
    "[-]watcher/configmaps failed: stopped\n[+]tracker/configmaps ok\nreadyz check failed\n",
  );
});

Deno.test("healthHandler: with an elector, a synced standby is ready unless readyOnlyWhenLeading; the leader is ready either way", async () => {
  const clock = new FakeClock();
  await using server = new FakeApiServer({ clock });
  using _fetch = mockFetch(server);
  using client = new FetchClient({ server: server.url });
  const lease = { namespace: "haptic", name: "haptic-controller" };
  const elector = (identity: string) =>
    new LeaderElector({ lease, identity, onStartedLeading: () => {} }, client, {
      clock,
      logger: silentLogger,
      random: () => 0.5,
    });
  const a = elector("replica-a");
  const b = elector("replica-b");
  const ready = (e: LeaderElector, readyOnlyWhenLeading?: boolean) =>
    get(healthHandler({ elector: e, readyOnlyWhenLeading }), "/readyz?verbose");
  // Before anything is read, nobody leads.
  assert.deepEqual(await ready(a, true), {
    status: 503,
    body:
      "[-]leader failed: not leading (no holder seen)\nreadyz check failed\n",
    type: "text/plain; charset=utf-8",
  });
  void a.start();
  await waitFor(() => a.isLeader());
  void b.start();
  await waitFor(() => b.leader() === "replica-a");
  for (const only of [undefined, false, true]) {
    assert.deepEqual(await ready(a, only), {
      status: 200,
      body: "[+]leader ok\nreadyz check passed\n",
      type: "text/plain; charset=utf-8",
    });
  }
  assert.equal((await ready(b)).status, 200, "warm standby by default");
  assert.equal((await ready(b, false)).status, 200);
  assert.deepEqual(await ready(b, true), {
    status: 503,
    body:
      "[-]leader failed: not leading (replica-a leads)\nreadyz check failed\n",
    type: "text/plain; charset=utf-8",
  });
  // The leader leaves; the standby takes over and becomes ready.
  await a.stop();
  for (let i = 0; i < 30 && !b.isLeader(); i++) await clock.tick(1_000);
  assert.ok(b.isLeader());
  assert.equal((await ready(b, true)).status, 200);
  assert.equal((await ready(a, true)).status, 503);
  await b.stop();
});

Deno.test("healthHandler: refuses options it does not take and sources without their method", () => {
  assert.throws(
    () => healthHandler({ watcher: {} } as never),
    (e) =>
      e instanceof TypeError &&
      /^Invalid health handler options: watcher: is not a HealthHandlerOptions option \(did you mean watchers\?\)$/
        .test(e.message),
  );
  assert.throws(
    () => healthHandler({ watchers: { ingresses: {} } } as never),
    (e) =>
      e instanceof TypeError &&
      e.message ===
        "Invalid health handler options: watchers.ingresses must have a health() method",
  );
  assert.throws(
    () => healthHandler({ metrics: "text" } as never),
    (e) =>
      e instanceof TypeError &&
      e.message ===
        "Invalid health handler options: metrics must have a render() method",
  );
});

Deno.test("healthHandler: a source that throws fails the probe, not the handler", async () => {
  const handler = healthHandler({
    watchers: {
      broken: {
        health: () => {
          throw new Error("no health today");
        },
      },
    },
  });
  assert.deepEqual(await get(handler, "/readyz"), {
    status: 503,
    body: "[-]checks failed: threw: no health today\nreadyz check failed\n",
    type: "text/plain; charset=utf-8",
  });
});

Deno.test("healthHandler: serves Deno.serve on 127.0.0.1 (port 0)", async () => {
  const tracker = new IndexSynchronizationTracker(["ingresses"], {
    logger: silentLogger,
  });
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    onListen: () => {},
  }, healthHandler({ tracker, metrics: { render: () => "up 1\n" } }));
  try {
    const base = `http://127.0.0.1:${server.addr.port}`;
    const readyz = async () => {
      const response = await fetch(`${base}/readyz`);
      return [response.status, await response.text()];
    };
    assert.deepEqual(await readyz(), [
      503,
      "[-]tracker/ingresses failed: not synced\nreadyz check failed\n",
    ]);
    tracker.markSynced("ingresses", 1);
    assert.deepEqual(await readyz(), [200, "ok\n"]);
    const metrics = await fetch(`${base}/metrics`);
    assert.equal(
      metrics.headers.get("content-type"),
      "text/plain; version=0.0.4; charset=utf-8",
    );
    assert.equal(await metrics.text(), "up 1\n");
  } finally {
    await server.shutdown();
  }
});
