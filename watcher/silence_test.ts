// Silence is reported: a request nobody answers, and a wait for a sync
// that cannot come.
import assert from "node:assert/strict";
import { FetchClient } from "../client/fetch_client.ts";
import type { RequestOptions, RestClient } from "../client/rest_client.ts";
import { FirstByteTimeoutError } from "../listwatch/list_watch_types.ts";
import { FakeClock, waitFor } from "../testing/fake_clock.ts";
import { RecordingLogger } from "../testing/recording_logger.ts";
import { Watcher } from "./watcher.ts";
import { SingleWatcher } from "./single.ts";
import { configMap, CONFIGMAPS, Harness } from "./_bulk_harness_test.ts";

/** A client that forwards, except that requests `silent` picks are never answered. */
function silentFor(
  inner: RestClient,
  silent: (options: RequestOptions) => boolean,
): RestClient & { readonly unanswered: number } {
  let unanswered = 0;
  return {
    server: inner.server,
    get unanswered() {
      return unanswered;
    },
    performRequest(options: RequestOptions) {
      if (!silent(options)) return inner.performRequest(options as never);
      unanswered++;
      return new Promise((_, reject) => {
        const signal = options.abortSignal!;
        signal.addEventListener("abort", () => reject(signal.reason), {
          once: true,
        });
      });
    },
  } as RestClient & { readonly unanswered: number };
}

const noAnswerLines = (logger: RecordingLogger) =>
  logger.records.filter((r) => /No answer from/.test(r.message));

Deno.test("A LIST nobody answers is logged with its URL after firstByteTimeoutMs (30 s), and is lastError()", async () => {
  await using h = new Harness({
    start: false,
    seed: (server) => server.create(CONFIGMAPS, configMap("shop", "a")),
  });
  let silent = true;
  const client = silentFor(h.client, () => silent);
  const watcher = new Watcher(
    {
      gvr: CONFIGMAPS,
      indexBy: ["metadata.name"],
      onChange: () => {},
    },
    client,
    { clock: h.clock, logger: h.logger },
  );
  const running = watcher.start();
  await waitFor(() => client.unanswered === 1);
  await h.clock.tick(29_999);
  assert.deepEqual(noAnswerLines(h.logger), [], "nothing before the deadline");
  assert.equal(watcher.lastError(), undefined);
  await h.clock.tick(1);
  await waitFor(() => noAnswerLines(h.logger).length === 1);
  const [line] = noAnswerLines(h.logger);
  assert.equal(line.level, "warn");
  assert.match(
    line.message,
    /^List of \/api\/v1\/configmaps\?limit=500 failed: No answer from http:\/\/k8s\.fake\/api\/v1\/configmaps within 30000 ms \(firstByteTimeoutMs\) \(retrying in \d+ ms\)$/,
  );
  const error = watcher.lastError()?.error;
  assert.ok(error instanceof FirstByteTimeoutError);
  assert.equal(error.timeoutMs, 30_000);
  assert.equal(error.server, "http://k8s.fake");
  assert.equal(error.path, "/api/v1/configmaps");
  // Answered again: it syncs.
  silent = false;
  await h.clock.tick(2_000);
  assert.equal(await watcher.waitForSync(), 1);
  await watcher.stop();
  await running;
});

Deno.test("A watch nobody answers is retried after firstByteTimeoutMs, which is an option", async () => {
  await using h = new Harness({ start: false });
  const client = silentFor(
    h.client,
    (o) => o.querystring?.get("watch") === "1",
  );
  const watcher = new Watcher(
    {
      gvr: CONFIGMAPS,
      indexBy: ["metadata.name"],
      onChange: () => {},
    },
    client,
    { clock: h.clock, logger: h.logger, firstByteTimeoutMs: 5_000 },
  );
  const running = watcher.start();
  assert.equal(await watcher.waitForSync(), 0);
  await waitFor(() => client.unanswered === 1);
  await h.clock.tick(5_000);
  await waitFor(() => noAnswerLines(h.logger).length === 1);
  assert.match(
    noAnswerLines(h.logger)[0].message,
    /^Watch of \/api\/v1\/configmaps failed: No answer from http:\/\/k8s\.fake\/api\/v1\/configmaps within 5000 ms \(firstByteTimeoutMs\); re-watching from resourceVersion \d+/,
  );
  assert.ok(watcher.lastError()?.error instanceof FirstByteTimeoutError);
  await watcher.stop();
  await running;
});

Deno.test("A server that accepts the connection and never answers is reported after 30 s, not 180 s", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const accepted: Deno.Conn[] = [];
  const accepting = (async () => {
    for await (const conn of listener) accepted.push(conn);
  })();
  const clock = new FakeClock();
  const logger = new RecordingLogger();
  using client = new FetchClient({
    server: `http://127.0.0.1:${listener.addr.port}`,
  });
  const watcher = new SingleWatcher(
    {
      gvr: CONFIGMAPS,
      namespace: "shop",
      name: "a",
      onChange: () => {},
    },
    client,
    { clock, logger },
  );
  const running = watcher.start();
  try {
    await waitFor(() => accepted.length === 1, { maxTurns: 100_000 });
    await clock.tick(30_000);
    await waitFor(() => noAnswerLines(logger).length === 1, {
      maxTurns: 100_000,
    });
    assert.match(
      noAnswerLines(logger)[0].message,
      new RegExp(
        `^List of /api/v1/namespaces/shop/configmaps\\?limit=500&fieldSelector=metadata.name%3Da failed: No answer from http://127\\.0\\.0\\.1:${listener.addr.port}/api/v1/namespaces/shop/configmaps within 30000 ms`,
      ),
    );
    assert.ok(watcher.lastError()?.error instanceof FirstByteTimeoutError);
  } finally {
    await watcher.stop();
    await running;
    listener.close();
    await accepting;
    for (const conn of accepted) conn.close();
  }
});

Deno.test("waitForSync() on a watcher never started says so after 10 s, and goes on waiting", async () => {
  await using h = new Harness({
    start: false,
    config: { name: "ingress-cache" },
    seed: (server) => server.create(CONFIGMAPS, configMap("shop", "a")),
  });
  const waiting = h.watcher.waitForSync();
  await h.clock.tick(9_999);
  assert.deepEqual(h.logger.at("warn"), []);
  await h.clock.tick(1);
  const warnings = h.logger.at("warn");
  assert.deepEqual(warnings.map((r) => r.message), [
    "waitForSync() has waited 10000 ms for configmaps, which was never started: call start()",
  ]);
  assert.equal(warnings[0].fields.watcher, "ingress-cache");
  // Starting later is legitimate: the wait resolves.
  h.running = h.watcher.start();
  assert.equal(await waiting, 1);
  // A wait on a started watcher says nothing, however long.
  await h.clock.tick(60_000);
  assert.equal(h.logger.at("warn").length, 1);
});

Deno.test("waitForSync() that ends before the warning leaves no timer", async () => {
  await using h = new Harness({ start: false });
  const stop = new AbortController();
  const waiting = h.watcher.waitForSync(stop.signal);
  stop.abort();
  await assert.rejects(waiting);
  await h.clock.tick(0);
  assert.equal(h.clock.pendingTimers, 0);
});
