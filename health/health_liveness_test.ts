// /healthz and /readyz as loops wedge, recover, fail and sync, on a
// FakeClock against the FakeApiServer. What wedges a loop is what its own
// timers cannot cut: a callback it waits for that never returns, a client
// whose request ignores the abort. A quiet watch, a request the server holds
// open, a server that keeps failing: the loop's timers end or retry each,
// and none of them is a reason to restart the process.
import assert from "node:assert/strict";
import { FetchClient } from "../client/fetch_client.ts";
import type { RequestOptions, RestClient } from "../client/rest_client.ts";
import { FakeApiServer } from "../testing/fake_api_server.ts";
import { mockFetch } from "../testing/mock_fetch.ts";
import { FakeClock, waitFor } from "../testing/fake_clock.ts";
import { silentLogger } from "../logger.ts";
import { Watcher } from "../watcher/watcher.ts";
import { SingleWatcher } from "../watcher/single.ts";
import type { KubeObject } from "../types.ts";
import { healthHandler, type HealthHandlerOptions } from "./health_handler.ts";

const CONFIGMAPS = { group: "", version: "v1", resource: "configmaps" };
const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

function configMap(name: string, v = "0"): KubeObject {
  return { metadata: { namespace: "shop", name }, data: { v } };
}

/** A fake API server on a fake clock, with fetch mocked to it. */
class Cluster implements AsyncDisposable {
  readonly clock = new FakeClock();
  readonly server: FakeApiServer;
  readonly client: FetchClient;
  #fetch: Disposable;

  constructor() {
    // No bookmarks: a quiet watch then gets no bytes at all, and only the
    // idle timeout moves it on.
    this.server = new FakeApiServer({
      clock: this.clock,
      bookmarkIntervalMs: 2 ** 31 - 1,
    });
    this.#fetch = mockFetch(this.server);
    this.client = new FetchClient({ server: this.server.url });
  }

  watcher(client: RestClient = this.client, idleTimeoutMs?: number): Watcher {
    return new Watcher(
      {
        gvr: CONFIGMAPS,
        indexBy: ["metadata.namespace", "metadata.name"],
        onChange: () => {},
      },
      client,
      {
        clock: this.clock,
        logger: silentLogger,
        random: () => 0.5,
        idleTimeoutMs,
        firstByteTimeoutMs: idleTimeoutMs,
      },
    );
  }

  async [Symbol.asyncDispose](): Promise<void> {
    this.client.close();
    this.#fetch[Symbol.dispose]();
    await this.server.close();
  }
}

/** GETs `path` of the handler: its status and body. */
async function get(
  handler: (request: Request) => Response,
  path: string,
): Promise<[number, string]> {
  const response = handler(new Request(`http://localhost${path}`));
  return [response.status, await response.text()];
}

function endpoints(options: HealthHandlerOptions) {
  const handler = healthHandler(options);
  return {
    healthz: () => get(handler, "/healthz"),
    readyz: () => get(handler, "/readyz"),
  };
}

Deno.test("health: a quiet watch is alive for hours: the idle timeout resumes it every 3 minutes", async () => {
  await using c = new Cluster();
  c.server.create(CONFIGMAPS, configMap("a"));
  const watcher = c.watcher();
  const { healthz, readyz } = endpoints({
    watchers: { configmaps: watcher },
    clock: c.clock,
  });
  assert.deepEqual(await readyz(), [
    503,
    "[-]watcher/configmaps failed: not started\nreadyz check failed\n",
  ]);
  void watcher.start();
  await watcher.waitForSync();
  assert.deepEqual(await readyz(), [200, "ok\n"]);
  for (let minute = 1; minute <= 120; minute++) {
    await c.clock.tick(MINUTE);
    assert.deepEqual(await healthz(), [200, "ok\n"], `minute ${minute}`);
  }
  // No byte came in two hours, yet the loop kept turning.
  assert.ok(watcher.health().reconnects >= 30, "resumed by its idle timer");
  assert.equal(watcher.health().events, 0);
  assert.deepEqual(await readyz(), [200, "ok\n"]);
  await watcher.stop();
  assert.deepEqual(await healthz(), [200, "ok\n"], "stopped is not wedged");
  assert.deepEqual(await readyz(), [
    503,
    "[-]watcher/configmaps failed: stopped\nreadyz check failed\n",
  ]);
});

Deno.test("health: a watch the server holds open without a byte is not wedged, even with timeouts of days: the loop's idle timer ends it", async () => {
  await using c = new Cluster();
  const watcher = c.watcher(c.client, 10 * DAY);
  const { healthz } = endpoints({
    watchers: { configmaps: watcher },
    clock: c.clock,
  });
  const stall = c.server.injectFault({ verb: "watch", kind: "stall" });
  void watcher.start();
  await watcher.waitForSync();
  await waitFor(() => stall.hits === 1);
  // Nine days without a byte: the server holds the watch, and so does the
  // loop, as its idle timeout says it may.
  for (let day = 1; day <= 9; day++) {
    await c.clock.tick(DAY);
    assert.deepEqual(await healthz(), [200, "ok\n"], `day ${day}`);
    assert.equal(watcher.health().reconnects, 0, `day ${day}`);
  }
  // On day 10 its idle timer cuts the watch and opens the next one.
  await c.clock.tick(DAY);
  assert.ok(watcher.health().reconnects >= 1);
  assert.ok(watcher.health().lastActivityTime! >= 10 * DAY);
  assert.deepEqual(await healthz(), [200, "ok\n"]);
  await watcher.stop();
});

Deno.test("health: a loop waiting for a callback that never returns is wedged after twice its idle timeout, and alive again once it returns", async () => {
  await using c = new Cluster();
  c.server.create(CONFIGMAPS, configMap("config"));
  let release = () => {};
  let calls = 0;
  // A SingleWatcher's loop waits for each onChange (ordered delivery).
  const single = new SingleWatcher(
    {
      gvr: CONFIGMAPS,
      namespace: "shop",
      name: "config",
      onChange: () => {
        calls++;
        return new Promise<void>((resolve) => release = resolve);
      },
    },
    c.client,
    { clock: c.clock, logger: silentLogger, random: () => 0.5 },
  );
  const { healthz, readyz } = endpoints({
    watchers: { config: single },
    clock: c.clock,
  });
  void single.start();
  await single.waitForSync();
  c.server.update(CONFIGMAPS, configMap("config", "1"));
  await waitFor(() => calls === 1);
  const since = single.health().lastActivityTime!;
  await c.clock.tick(6 * MINUTE);
  assert.deepEqual(await healthz(), [200, "ok\n"], "exactly 2 × 180 s");
  await c.clock.tick(1_000);
  assert.equal(c.clock.now() - since, 361_000);
  assert.deepEqual(await healthz(), [
    503,
    "[-]watcher/config failed: no progress for 361 s, more than twice its idle timeout (180 s)\nhealthz check failed\n",
  ]);
  // Wedged, not unready: the object it holds is what it synced.
  assert.deepEqual(await readyz(), [200, "ok\n"]);
  release();
  // The loop goes on: its watch is idle until the timer resumes it.
  await c.clock.tick(3 * MINUTE);
  assert.deepEqual(await healthz(), [200, "ok\n"]);
  await single.stop();
});

Deno.test("health: a client whose request ignores the abort wedges the loop, first request included", async () => {
  await using c = new Cluster();
  const held: ((error: Error) => void)[] = [];
  let holding = true;
  const client = {
    performRequest(options: RequestOptions) {
      if (!holding) return c.client.performRequest(options as never);
      // Never answers, and does not listen to options.abortSignal.
      return new Promise((_, reject) => held.push(reject));
    },
  } as RestClient;
  const watcher = c.watcher(client);
  const { healthz, readyz } = endpoints({
    watchers: { configmaps: watcher },
    clock: c.clock,
  });
  void watcher.start();
  await waitFor(() => held.length === 1);
  // Nothing known yet: the silence counts from this first look.
  assert.deepEqual(await healthz(), [200, "ok\n"]);
  await c.clock.tick(6 * MINUTE + 1);
  assert.deepEqual(await healthz(), [
    503,
    "[-]watcher/configmaps failed: no progress for 360 s, more than twice its idle timeout (180 s)\nhealthz check failed\n",
  ]);
  assert.deepEqual(await readyz(), [
    503,
    "[-]watcher/configmaps failed: not synced\nreadyz check failed\n",
  ]);
  // The request finally fails: the loop retries (alive), lists (ready).
  holding = false;
  held[0](new Error("connection reset"));
  await waitFor(() => watcher.lastError() !== undefined);
  assert.deepEqual(await healthz(), [200, "ok\n"]);
  await c.clock.tick(1_000);
  await watcher.waitForSync();
  assert.deepEqual(await readyz(), [200, "ok\n"]);
  await watcher.stop();
});

Deno.test("health: a server failing for half an hour leaves the loop alive but not ready, naming the error; ready once it lists", async () => {
  await using c = new Cluster();
  c.server.create(CONFIGMAPS, configMap("a"));
  c.server.injectFault({
    verb: "list",
    kind: "status",
    code: 503,
    forMs: 30 * MINUTE,
  });
  const watcher = c.watcher();
  const { healthz, readyz } = endpoints({
    watchers: { configmaps: watcher },
    clock: c.clock,
  });
  void watcher.start();
  await waitFor(() => watcher.lastError() !== undefined);
  for (let minute = 1; minute < 30; minute++) {
    await c.clock.tick(MINUTE);
    assert.deepEqual(await healthz(), [200, "ok\n"], `minute ${minute}`);
    const [status, body] = await readyz();
    assert.equal(status, 503);
    assert.match(
      body,
      /^\[-\]watcher\/configmaps failed: not synced; last error: .*503.*\nreadyz check failed\n$/,
    );
  }
  await c.clock.tick(2 * MINUTE);
  await watcher.waitForSync();
  assert.deepEqual(await readyz(), [200, "ok\n"]);
  await watcher.stop();
});

Deno.test("health: a loop waiting out a server's Retry-After of 600 s is not wedged", async () => {
  await using c = new Cluster();
  c.server.injectFault({
    verb: "list",
    kind: "status",
    code: 429,
    retryAfterSeconds: 600,
    times: 1,
  });
  const watcher = c.watcher();
  const { healthz } = endpoints({
    watchers: { configmaps: watcher },
    clock: c.clock,
  });
  void watcher.start();
  await waitFor(() => watcher.lastError() !== undefined);
  for (let minute = 1; minute < 10; minute++) {
    await c.clock.tick(MINUTE);
    assert.deepEqual(await healthz(), [200, "ok\n"], `minute ${minute}`);
  }
  await c.clock.tick(MINUTE + 1_000);
  await watcher.waitForSync();
  assert.deepEqual(await healthz(), [200, "ok\n"]);
  await watcher.stop();
});

Deno.test("health: an ordinary outage with a short idle timeout is not wedged while the backoff (up to 30 s) waits", async () => {
  await using c = new Cluster();
  c.server.injectFault({
    verb: "list",
    kind: "status",
    code: 503,
    forMs: 10 * MINUTE,
  });
  const watcher = c.watcher(c.client, 10_000);
  const { healthz } = endpoints({
    watchers: { configmaps: watcher },
    clock: c.clock,
  });
  void watcher.start();
  await waitFor(() => watcher.lastError() !== undefined);
  for (let second = 5; second <= 10 * 60; second += 5) {
    await c.clock.tick(5_000);
    assert.deepEqual(await healthz(), [200, "ok\n"], `second ${second}`);
  }
  assert.ok(watcher.health().backoffs >= 20);
  await c.clock.tick(MINUTE);
  await watcher.waitForSync();
  await watcher.stop();
});

Deno.test("health: a LIST body still arriving after twice the idle timeout is progress, not a wedge", async () => {
  await using c = new Cluster();
  for (let i = 0; i < 4; i++) c.server.create(CONFIGMAPS, configMap(`cm${i}`));
  // The answer's body comes a sixth at a time, one sixth every 2 minutes:
  // each chunk is within the idle timeout, the whole takes 12 minutes.
  c.server.prependReactor({
    verb: "list",
    times: 1,
    react: async (call) => {
      const answer = await call.serve();
      const bytes = new Uint8Array(await answer.arrayBuffer());
      const sixth = Math.ceil(bytes.length / 6);
      let sent = 0;
      const body = new ReadableStream<Uint8Array>({
        pull: (controller) =>
          new Promise<void>((resolve) => {
            c.clock.setTimeout(() => {
              controller.enqueue(bytes.slice(sent, sent + sixth));
              sent += sixth;
              if (sent >= bytes.length) controller.close();
              resolve();
            }, 2 * MINUTE);
          }),
      });
      return new Response(body, { headers: answer.headers });
    },
  });
  const watcher = c.watcher();
  const { healthz } = endpoints({
    watchers: { configmaps: watcher },
    clock: c.clock,
  });
  void watcher.start();
  for (let minute = 1; minute <= 11; minute++) {
    await c.clock.tick(MINUTE);
    assert.deepEqual(await healthz(), [200, "ok\n"], `minute ${minute}`);
  }
  await c.clock.tick(MINUTE);
  await watcher.waitForSync();
  assert.equal(watcher.health().objects, 4);
  assert.equal(watcher.health().lists, 1);
  await watcher.stop();
});

Deno.test("health: a wall-clock step (NTP after a VM resumes) does not make a quiet watch wedged", async () => {
  // The system clocks, as a program has them: no clock is injected.
  await using server = new FakeApiServer();
  using _fetch = mockFetch(server);
  using client = new FetchClient({ server: server.url });
  server.create(CONFIGMAPS, configMap("a"));
  const watcher = new Watcher(
    {
      gvr: CONFIGMAPS,
      indexBy: ["metadata.namespace", "metadata.name"],
      onChange: () => {},
    },
    client,
    { logger: silentLogger },
  );
  const { healthz } = endpoints({ watchers: { configmaps: watcher } });
  void watcher.start();
  await watcher.waitForSync();
  assert.deepEqual(await healthz(), [200, "ok\n"]);
  const realNow = Date.now;
  const stepped = realNow() + 20 * MINUTE;
  Date.now = () => stepped;
  try {
    assert.deepEqual(await healthz(), [200, "ok\n"]);
  } finally {
    Date.now = realNow;
  }
  await watcher.stop();
});

Deno.test("health: a Watcher whose onChange hangs while changes wait fails /healthz after twice its idle timeout", async () => {
  await using c = new Cluster();
  c.server.create(CONFIGMAPS, configMap("seed"));
  let calls = 0;
  let release = () => {};
  const watcher = new Watcher(
    {
      gvr: CONFIGMAPS,
      indexBy: ["metadata.namespace", "metadata.name"],
      onChange: (_store, batch) => {
        calls++;
        if (batch.isInitialSync) return;
        return new Promise<void>((resolve) => release = resolve);
      },
    },
    c.client,
    { clock: c.clock, logger: silentLogger, random: () => 0.5 },
  );
  const { healthz } = endpoints({
    watchers: { configmaps: watcher },
    clock: c.clock,
  });
  void watcher.start();
  await watcher.waitForSync();
  c.server.create(CONFIGMAPS, configMap("a"));
  await waitFor(() => calls === 2);
  // A call that runs long with nothing waiting holds nothing up.
  await c.clock.tick(10 * MINUTE);
  assert.deepEqual(await healthz(), [200, "ok\n"]);
  for (let i = 0; i < 19; i++) c.server.create(CONFIGMAPS, configMap(`b${i}`));
  await waitFor(() => watcher.health().delivery?.undelivered === 19);
  assert.deepEqual(await healthz(), [
    503,
    "[-]watcher/configmaps failed: onChange running for 600 s with 19 changes waiting, more than twice its idle timeout (180 s)\nhealthz check failed\n",
  ]);
  release();
  await waitFor(() => calls === 3);
  assert.deepEqual(await healthz(), [200, "ok\n"]);
  release();
  await watcher.stop();
});
