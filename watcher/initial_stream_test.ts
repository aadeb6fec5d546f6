// The streamed initial list (`initialList: "stream"`) against the
// FakeApiServer: sendInitialEvents on the first list and on a relist after
// 410 only, never on a resume; synced at the initial-events-end bookmark;
// a server without the feature costs one refused request and one log line,
// for good. The same against a real kube-apiserver:
// tests/control_plane/streaming_list_test.ts and
// streaming_list_fallback_test.ts.
import assert from "node:assert/strict";
import { waitFor } from "../testing/fake_clock.ts";
import type { FakeWatchStream } from "../testing/reactor.ts";
import { configMap, Harness } from "./_bulk_harness_test.ts";

const OBJECTS = 5;

function seed(server: Harness["server"]): void {
  for (let i = 0; i < OBJECTS; i++) {
    server.create("configmaps", configMap("shop", `cm-${i}`));
  }
}

/** Watch requests that asked for the initial events. */
function streamed(h: Harness): number {
  return h.requests("watch").filter((r) => r.query.sendInitialEvents === "true")
    .length;
}

/** Objects the watcher's batches say were created, over all batches. */
function created(h: Harness): number {
  return h.recorded.batches.reduce((n, b) => n + b.created, 0);
}

function unsupportedLines(h: Harness): number {
  return h.logger.records.filter((r) => /not supported/.test(r.message))
    .length;
}

Deno.test("initial stream: resumes after timeouts, bookmarks and a dropped connection never ask for the initial events again", async () => {
  await using h = new Harness({
    config: { initialList: "stream" },
    server: { bookmarkIntervalMs: 60_000 },
    seed,
  });
  assert.equal(await h.watcher.waitForSync(), OBJECTS);
  await h.waitForWatches(1);

  // Past several server-side watch timeouts (300 to 600 s each) and the
  // bookmarks in between: about half an hour.
  for (let i = 0; i < 40; i++) {
    await h.clock.tick(60_000);
    await h.waitForWatches(1);
  }
  const afterTimeouts = h.requests("watch").length;
  assert.ok(afterTimeouts >= 4, `${afterTimeouts} watches`);

  // A dropped connection, then one more change.
  h.server.injectFault({ verb: "watch", kind: "drop" });
  h.server.closeAllWatches();
  // The re-opened watch is dropped at once: a backoff, then a resume.
  for (let i = 0; i < 10 && h.server.openWatchCount === 0; i++) {
    await h.clock.tick(1_000);
  }
  await h.waitForWatches(1);
  assert.ok(h.requests("watch").length >= afterTimeouts + 2);
  h.server.create("configmaps", configMap("shop", "late"));
  await waitFor(() => h.watcher.store.size === OBJECTS + 1, {
    description: "the late object",
  });

  assert.equal(streamed(h), 1, "only the first list streams");
  const resumes = h.requests("watch").slice(1);
  for (const r of resumes) {
    assert.equal(r.query.sendInitialEvents, undefined);
    assert.equal(r.query.resourceVersionMatch, undefined);
    assert.ok(r.query.resourceVersion, "a resume names its version");
  }
  assert.equal(h.requests("list").length, 0);
  // Every object arrived as created once: no resume re-sent them.
  assert.equal(created(h), OBJECTS + 1);
  assert.equal(h.watcher.health().relists, 0);
  assert.deepEqual(h.recorded.syncs, [OBJECTS]);
});

Deno.test("initial stream: a relist after 410 streams again (no LIST), and only that one", async () => {
  await using h = new Harness({ config: { initialList: "stream" }, seed });
  assert.equal(await h.watcher.waitForSync(), OBJECTS);
  await h.waitForWatches(1);
  h.server.create("configmaps", configMap("shop", "x"));
  await waitFor(() => h.watcher.store.size === OBJECTS + 1, {
    description: "x",
  });
  await h.clock.tick(5_000);
  h.server.closeAllWatches();
  h.server.delete("configmaps", "shop", "cm-0");
  h.server.compactHistory();
  await waitFor(() => h.watcher.health().relists === 1, {
    description: "a relist",
  });
  await h.waitForWatches(1);
  // And an ordinary timeout after the relist: a resume again.
  await h.clock.tick(700_000);
  await h.waitForWatches(1);

  const watches = h.requests("watch");
  assert.deepEqual(
    watches.map((r) => r.query.sendInitialEvents === "true"),
    // The first stream, the resume that met 410, the relist's stream, and
    // the resume after its timeout.
    [true, false, true, false],
  );
  assert.equal(h.requests("list").length, 0);
  assert.equal(h.watcher.store.size, OBJECTS);
  assert.deepEqual(h.recorded.syncs, [OBJECTS]);
});

Deno.test("initial stream: the watcher is synced at the initial-events-end bookmark, not before", async () => {
  let held: { text: string; stream: FakeWatchStream } | undefined;
  await using h = new Harness({
    config: { initialList: "stream" },
    seed,
    start: false,
  });
  h.server.addReactor({
    verb: "watch",
    times: 1,
    react: (call) =>
      call.serve({
        watch: {
          line: (text, stream) => {
            if (!text.includes("k8s.io/initial-events-end")) return undefined;
            held = { text, stream };
            return "";
          },
        },
      }),
  });
  h.running = h.watcher.start();
  let synced = false;
  void h.watcher.waitForSync().then(() => synced = true);
  await waitFor(() => held !== undefined, { description: "the end bookmark" });
  // Every ADDED event is in, and a few seconds pass: still not synced.
  assert.ok(held!.stream.lines >= OBJECTS);
  await h.clock.tick(5_000);
  assert.equal(synced, false);
  assert.equal(h.watcher.health().synced, false);
  assert.equal(h.recorded.syncs.length, 0);
  assert.equal(h.requests("list").length, 0);

  held!.stream.write(held!.text);
  await waitFor(() => synced, { description: "synced by the bookmark" });
  assert.deepEqual(h.recorded.syncs, [OBJECTS]);
  assert.equal(h.requests("list").length, 0);
  assert.equal(h.requests("watch").length, 1, "the same stream carries on");
});

Deno.test("initial stream: a server without it gets one refused stream, one log line, and LIST from then on", async () => {
  await using h = new Harness({
    config: { initialList: "stream" },
    server: { supportsWatchList: false },
    seed,
  });
  assert.equal(await h.watcher.waitForSync(), OBJECTS);
  await h.waitForWatches(1);
  // Timeouts, a drop, then a 410 that needs a relist.
  await h.clock.tick(700_000);
  await h.waitForWatches(1);
  h.server.create("configmaps", configMap("shop", "x"));
  await waitFor(() => h.watcher.store.size === OBJECTS + 1, {
    description: "x",
  });
  await h.clock.tick(5_000);
  h.server.closeAllWatches();
  h.server.delete("configmaps", "shop", "cm-0");
  h.server.compactHistory();
  await waitFor(() => h.watcher.health().relists === 1, {
    description: "a relist",
  });
  await h.waitForWatches(1);

  assert.equal(streamed(h), 1, "one streaming attempt in all");
  assert.equal(h.requests("list").length, 2, "the first list and the relist");
  assert.equal(unsupportedLines(h), 1);
  const [line] = h.logger.records.filter((r) =>
    /not supported/.test(r.message)
  );
  assert.match(line.message, /422/);
  assert.deepEqual(h.recorded.syncs, [OBJECTS]);
});

Deno.test("initial stream: one that keeps bringing objects past the deadline (60 s) is not taken for a server without the feature", async () => {
  // A large collection on a busy server: the initial events arrive over
  // 100 s, one every 20 s, then the end bookmark.
  const held: string[] = [];
  let stream: FakeWatchStream | undefined;
  await using h = new Harness({
    config: { initialList: "stream" },
    seed,
    start: false,
  });
  h.server.addReactor({
    verb: "watch",
    times: 1,
    react: (call) =>
      call.serve({
        watch: {
          line: (text, s) => {
            stream = s;
            if (s.lines === 0) return undefined;
            held.push(text);
            return "";
          },
        },
      }),
  });
  h.running = h.watcher.start();
  await waitFor(() => held.length === OBJECTS, {
    description: "the stream's lines",
  });
  for (const line of held) {
    await h.clock.tick(20_000);
    stream!.write(line);
  }
  assert.equal(await h.watcher.waitForSync(), OBJECTS);
  assert.equal(h.requests("list").length, 0);
  assert.equal(streamed(h), 1);
  assert.equal(unsupportedLines(h), 0);
});

Deno.test("initial stream: a server that sends the objects but no end bookmark (one that ignores sendInitialEvents) falls back after the deadline", async () => {
  await using h = new Harness({
    config: { initialList: "stream" },
    server: { bookmarkIntervalMs: 10_000 },
    seed,
    start: false,
  });
  h.server.addReactor({
    verb: "watch",
    times: 1,
    react: (call) =>
      call.serve({
        watch: {
          line: (text) =>
            text.includes("k8s.io/initial-events-end") ? "" : undefined,
        },
      }),
  });
  h.running = h.watcher.start();
  // Bookmarks keep coming; objects do not.
  for (let i = 0; i < 7; i++) await h.clock.tick(10_000);
  assert.equal(await h.watcher.waitForSync(), OBJECTS);
  assert.equal(h.requests("list").length, 1);
  assert.equal(unsupportedLines(h), 1);
  assert.match(
    h.logger.records.find((r) => /not supported/.test(r.message))!.message,
    /no object and no initial-events-end bookmark came for 60000 ms/,
  );
});
