import assert from "node:assert/strict";
import { ListWatch } from "./list_watch.ts";
import type {
  ListInfo,
  ListPage,
  ListWatchOptions,
  ListWatchSink,
  WatchEventType,
} from "./list_watch_types.ts";
import { WatcherConfigError } from "../watcher/watcher_config.ts";
import { ApiError } from "../client/api_error.ts";
import type { RequestOptions, RestClient } from "../client/rest_client.ts";
import { JsonLinesError } from "../client/json_lines.ts";
import { FakeClock, settle, waitFor } from "../testing/fake_clock.ts";
import { RecordingLogger } from "../testing/recording_logger.ts";
import type { KubeObject } from "../types.ts";

const GVR = { group: "", version: "v1", resource: "configmaps" };
const PATH = "/api/v1/namespaces/default/configmaps";
const encoder = new TextEncoder();

// --- A scripted client -----------------------------------------------------

/** A watch response body the test writes to, closes or breaks. */
class ScriptedStream {
  readonly readable: ReadableStream<Uint8Array>;
  state: "open" | "closed" | "cancelled" | "aborted" | "failed" = "open";
  #controller!: ReadableStreamDefaultController<Uint8Array>;

  constructor() {
    this.readable = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.#controller = controller;
      },
      cancel: () => {
        if (this.state === "open") this.state = "cancelled";
      },
    });
  }

  get open(): boolean {
    return this.state === "open";
  }

  /** What fetch does: an aborted request errors its body. */
  attach(signal: AbortSignal | undefined): void {
    signal?.addEventListener("abort", () => {
      if (this.state !== "open") return;
      this.state = "aborted";
      this.#controller.error(signal.reason);
    }, { once: true });
  }

  send(...events: unknown[]): void {
    this.raw(events.map((e) => JSON.stringify(e) + "\n").join(""));
  }

  raw(text: string): void {
    this.#controller.enqueue(encoder.encode(text));
  }

  end(): void {
    this.state = "closed";
    this.#controller.close();
  }

  fail(error: unknown): void {
    this.state = "failed";
    this.#controller.error(error);
  }
}

type Answer =
  | { kind: "json"; body: unknown }
  | { kind: "stream"; stream: ScriptedStream }
  | { kind: "error"; error: unknown }
  | { kind: "hang" };

interface Recorded {
  path: string;
  query: URLSearchParams;
  expectStream: boolean;
  expectJson: boolean;
}

interface Parked {
  opts: RequestOptions;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
  onAbort: () => void;
}

/** Answers requests, in order, from a queue the test pushes to. */
class ScriptedClient {
  readonly requests: Recorded[] = [];
  readonly streams: ScriptedStream[] = [];
  #answers: Answer[] = [];
  #parked: Parked[] = [];

  push(...answers: Answer[]): void {
    this.#answers.push(...answers);
    this.#drain();
  }

  get pendingRequests(): number {
    return this.#parked.length;
  }

  performRequest(opts: RequestOptions): Promise<unknown> {
    assert.ok(!opts.path.includes("?"), `query in path: ${opts.path}`);
    assert.equal(opts.method, "GET");
    this.requests.push({
      path: opts.path,
      query: new URLSearchParams(opts.querystring),
      expectStream: opts.expectStream === true,
      expectJson: opts.expectJson === true,
    });
    const signal = opts.abortSignal;
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      const parked: Parked = {
        opts,
        resolve,
        reject,
        onAbort: () => {
          this.#parked = this.#parked.filter((p) => p !== parked);
          reject(signal!.reason);
        },
      };
      signal?.addEventListener("abort", parked.onAbort, { once: true });
      this.#parked.push(parked);
      this.#drain();
    });
  }

  #drain(): void {
    while (this.#parked.length > 0 && this.#answers.length > 0) {
      const answer = this.#answers.shift()!;
      if (answer.kind === "hang") {
        // Stays parked until aborted.
        continue;
      }
      const parked = this.#parked.shift()!;
      parked.opts.abortSignal?.removeEventListener("abort", parked.onAbort);
      if (answer.kind === "error") {
        parked.reject(answer.error);
      } else if (answer.kind === "json") {
        assert.ok(
          parked.opts.expectStream && !parked.opts.expectJson,
          "a LIST reads its body as a byte stream",
        );
        assert.notEqual(parked.opts.querystring?.get("watch"), "1");
        parked.resolve(new Blob([JSON.stringify(answer.body)]).stream());
      } else {
        assert.ok(parked.opts.expectStream, "a WATCH should expect a stream");
        assert.equal(parked.opts.querystring?.get("watch"), "1");
        answer.stream.attach(parked.opts.abortSignal);
        this.streams.push(answer.stream);
        parked.resolve(answer.stream.readable);
      }
    }
  }
}

function list(rv: string, items: KubeObject[], cont?: string): Answer {
  return {
    kind: "json",
    body: {
      kind: "ConfigMapList",
      apiVersion: "v1",
      metadata: cont
        ? { resourceVersion: rv, continue: cont }
        : { resourceVersion: rv },
      items,
    },
  };
}

function stream(s: ScriptedStream = new ScriptedStream()): Answer {
  return { kind: "stream", stream: s };
}

function fail(error: unknown): Answer {
  return { kind: "error", error };
}

function cm(name: string, rv = "1"): KubeObject {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name, namespace: "default", resourceVersion: rv },
  };
}

function ev(type: string, object: unknown): unknown {
  return { type, object };
}

function bookmark(rv: string, end = false): unknown {
  return ev("BOOKMARK", {
    kind: "ConfigMap",
    metadata: {
      resourceVersion: rv,
      ...(end ? { annotations: { "k8s.io/initial-events-end": "true" } } : {}),
    },
  });
}

// --- A recording sink ------------------------------------------------------

class RecordingSink implements ListWatchSink {
  lists: { names: string[]; resourceVersion: string; initial: boolean }[] = [];
  /** Names on the pages of the list being received. */
  listing: string[] = [];
  events: string[] = [];
  progress: number[] = [];
  errors: { error: unknown; retryInMs: number }[] = [];
  calls = 0;
  eventHook?: (
    type: WatchEventType,
    object: KubeObject,
  ) => void | Promise<void>;
  pageHook?: (page: ListPage) => void;

  onListPage(page: ListPage): void {
    this.calls++;
    if (page.first) this.listing = [];
    this.listing.push(...page.items.map((o) => o.metadata.name!));
    this.progress.push(page.listedSoFar);
    this.pageHook?.(page);
  }

  onListEnd(info: ListInfo): void {
    this.calls++;
    this.lists.push({
      names: this.listing,
      resourceVersion: info.resourceVersion,
      initial: info.initial,
    });
    this.listing = [];
  }

  onEvent(type: WatchEventType, object: KubeObject): void | Promise<void> {
    this.calls++;
    this.events.push(
      `${type} ${object.metadata.name}@${object.metadata.resourceVersion}`,
    );
    return this.eventHook?.(type, object);
  }

  onError(error: unknown, retryInMs: number): void {
    this.calls++;
    this.errors.push({ error, retryInMs });
  }
}

function setup(options: Partial<ListWatchOptions> = {}) {
  const client = new ScriptedClient();
  const sink = new RecordingSink();
  const clock = new FakeClock({ now: 1_000_000 });
  const logger = new RecordingLogger();
  const loop = new ListWatch(client as unknown as RestClient, sink, {
    gvr: GVR,
    namespace: "default",
    clock,
    logger,
    random: () => 0,
    ...options,
  });
  const controller = new AbortController();
  let done: Promise<void> | undefined;
  return {
    client,
    sink,
    clock,
    logger,
    loop,
    start() {
      done = loop.run(controller.signal);
      return done;
    },
    /** Stops the loop and checks that nothing is left running. */
    async stop() {
      controller.abort();
      await done;
      assert.equal(clock.pendingTimers, 0, "a timer outlived run()");
      for (const s of client.streams) {
        assert.ok(!s.open, "a watch stream outlived run()");
      }
      assert.equal(client.pendingRequests, 0, "a request outlived run()");
      assert.equal(loop.phase, "stopped");
      const calls = sink.calls;
      await clock.tick(600_000);
      assert.equal(sink.calls, calls, "the sink was called after run()");
    },
  };
}

function isWatch(r: Recorded): boolean {
  return r.query.get("watch") === "1";
}

// --- Tests -----------------------------------------------------------------

Deno.test("ListWatch follows every LIST page, delivers the list once, then watches from its resourceVersion", async () => {
  const t = setup({ pageSize: 2, labelSelector: "app=web" });
  const watch = new ScriptedStream();
  t.client.push(
    list("100", [cm("a"), cm("b")], "c1"),
    list("100", [cm("c"), cm("d")], "c2"),
    list("100", [cm("e")]),
    stream(watch),
  );
  t.start();
  await waitFor(() =>
    t.loop.phase === "watching" && t.client.streams.length === 1
  );

  const [p1, p2, p3, w] = t.client.requests;
  for (const r of [p1, p2, p3, w]) {
    assert.equal(r.path, PATH);
    assert.equal(r.query.get("labelSelector"), "app=web");
  }
  assert.equal(p1.query.get("limit"), "2");
  assert.equal(p1.query.has("continue"), false);
  assert.ok(p1.expectStream && !p1.expectJson, "LIST bodies are streamed");
  assert.equal(p2.query.get("continue"), "c1");
  assert.equal(p3.query.get("continue"), "c2");
  assert.ok(w.expectStream);
  assert.equal(w.query.get("watch"), "1");
  assert.equal(w.query.get("resourceVersion"), "100");
  assert.equal(w.query.get("allowWatchBookmarks"), "true");
  assert.equal(w.query.get("timeoutSeconds"), "300");

  assert.deepEqual(t.sink.lists, [
    { names: ["a", "b", "c", "d", "e"], resourceVersion: "100", initial: true },
  ]);
  assert.deepEqual(t.sink.progress, [2, 4, 5]);
  assert.equal(t.loop.synced, true);
  assert.equal(t.loop.resourceVersion, "100");
  await t.stop();
  assert.equal(watch.state, "aborted");
});

Deno.test("ListWatch hands each page to the sink as it arrives, before the list is complete", async () => {
  const t = setup({ pageSize: 2 });
  const seen: string[][] = [];
  t.sink.pageHook = (page) => {
    seen.push(page.items.map((o) => o.metadata.name!));
    // Nothing is delivered as a list before its last page.
    assert.equal(t.sink.lists.length, 0);
    if (page.items.some((o) => o.metadata.name === "c")) {
      throw new Error("cannot take c");
    }
  };
  t.client.push(
    list("100", [cm("a"), cm("b")], "c1"),
    list("100", [cm("c"), cm("d")]),
    stream(),
  );
  t.start();
  await waitFor(() => t.sink.lists.length === 1);
  // Page by page, before the list was complete.
  assert.deepEqual(seen, [["a", "b"], ["c", "d"]]);
  assert.deepEqual(t.sink.progress, [2, 4]);
  assert.deepEqual(t.sink.lists[0].names, ["a", "b", "c", "d"]);
  // A throwing sink is logged; the list still completes.
  assert.match(t.logger.text(), /onListPage failed.*cannot take c/);
  await t.stop();
});

Deno.test("ListWatch starts a new list with a first page after a continue token expired", async () => {
  const t = setup({ pageSize: 2 });
  const firsts: boolean[] = [];
  t.sink.pageHook = (page) => firsts.push(page.first);
  t.client.push(
    list("100", [cm("a"), cm("b")], "c1"),
    fail(new ApiError({ code: 410, status: { reason: "Expired" } })),
    list("120", [cm("a"), cm("c")]),
    stream(),
  );
  t.start();
  await waitFor(() => t.sink.lists.length === 1);
  assert.deepEqual(firsts, [true, true], "the full list starts over");
  assert.deepEqual(t.sink.lists[0].names, ["a", "c"]);
  assert.equal(t.sink.lists[0].resourceVersion, "120");
  const [, expired, full] = t.client.requests;
  assert.equal(expired.query.get("continue"), "c1");
  assert.equal(full.query.has("continue"), false);
  assert.equal(full.query.has("limit"), false, "one request, not paged");
  assert.match(t.logger.at("info")[0].message, /Continue token expired/);
  await t.stop();
});

Deno.test("ListWatch resumes from the last resourceVersion after a clean end, without relisting", async () => {
  const t = setup();
  const first = new ScriptedStream();
  t.client.push(list("10", [cm("a")]), stream(first), stream());
  t.start();
  await waitFor(() => t.client.streams.length === 1);
  first.send(ev("ADDED", cm("b", "11")), ev("MODIFIED", cm("a", "12")));
  await waitFor(() => t.sink.events.length === 2);
  assert.equal(typeof t.loop.lastEventTime, "number");
  first.end();
  await waitFor(() => t.client.requests.length === 3);

  const resumed = t.client.requests[2];
  assert.ok(isWatch(resumed));
  assert.equal(resumed.query.get("resourceVersion"), "12");
  assert.deepEqual(t.sink.events, ["ADDED b@11", "MODIFIED a@12"]);
  assert.equal(t.sink.lists.length, 1);
  assert.equal(t.loop.relists, 0);
  assert.equal(t.loop.reconnects, 1);
  assert.equal(t.loop.events, 2);
  await t.stop();
});

Deno.test("ListWatch advances the resourceVersion on bookmarks", async () => {
  const t = setup();
  const first = new ScriptedStream();
  t.client.push(list("10", []), stream(first), stream());
  t.start();
  await waitFor(() => t.client.streams.length === 1);
  first.send(ev("ADDED", cm("a", "11")), bookmark("20"));
  await waitFor(() => t.loop.resourceVersion === "20");
  first.end();
  await waitFor(() => t.client.requests.length === 3);
  assert.equal(t.client.requests[2].query.get("resourceVersion"), "20");
  assert.deepEqual(
    t.sink.events,
    ["ADDED a@11"],
    "bookmarks are not delivered",
  );
  await t.stop();
});

Deno.test("ListWatch relists on 410 Gone as an HTTP status", async () => {
  const t = setup();
  const first = new ScriptedStream();
  t.client.push(
    list("10", [cm("a")]),
    stream(first),
    fail(
      new ApiError({
        code: 410,
        status: { reason: "Expired", message: "too old resource version" },
      }),
    ),
    list("30", [cm("b", "29")]),
    stream(),
  );
  t.start();
  await waitFor(() => t.client.streams.length === 1);
  first.send(ev("ADDED", cm("z", "11")));
  first.end();
  await waitFor(() => t.client.requests.length === 5);

  const [, , rewatch, relist, watch] = t.client.requests;
  assert.equal(rewatch.query.get("resourceVersion"), "11");
  assert.ok(!isWatch(relist));
  assert.equal(relist.query.has("resourceVersion"), false);
  assert.equal(watch.query.get("resourceVersion"), "30");
  assert.deepEqual(t.sink.lists.map((l) => [l.names, l.initial]), [[
    ["a"],
    true,
  ], [["b"], false]]);
  assert.equal(t.loop.relists, 1);
  assert.ok(t.logger.text().includes("expired"));
  await t.stop();
});

Deno.test("ListWatch relists on an ERROR event with code 410 and closes the old stream", async () => {
  const t = setup();
  const first = new ScriptedStream();
  t.client.push(
    list("10", [cm("a")]),
    stream(first),
    list("30", [cm("a", "25")]),
    stream(),
  );
  t.start();
  await waitFor(() => t.client.streams.length === 1);
  first.send(
    ev("ADDED", cm("b", "11")),
    ev("ERROR", {
      kind: "Status",
      status: "Failure",
      code: 410,
      reason: "Expired",
      message: "too old resource version: 11 (20)",
    }),
    ev("ADDED", cm("never", "12")),
  );
  await waitFor(() => t.client.requests.length === 4);
  assert.notEqual(first.state, "open");
  assert.ok(!isWatch(t.client.requests[2]));
  assert.equal(t.client.requests[3].query.get("resourceVersion"), "30");
  assert.deepEqual(t.sink.events, ["ADDED b@11"]);
  assert.equal(t.sink.lists.length, 2);
  await t.stop();
});

Deno.test("ListWatch relists without a resourceVersion on 'Too large resource version'", async () => {
  const t = setup();
  const first = new ScriptedStream();
  t.client.push(list("10", []), stream(first), list("12", []), stream());
  t.start();
  await waitFor(() => t.client.streams.length === 1);
  first.send(
    ev("ADDED", cm("b", "11")),
    ev("ERROR", {
      kind: "Status",
      code: 504,
      reason: "Timeout",
      message: "Timeout: Too large resource version: 99, current: 11",
      details: { causes: [{ reason: "ResourceVersionTooLarge" }] },
    }),
  );
  await waitFor(() => t.client.requests.length === 4);
  const relist = t.client.requests[2];
  assert.ok(!isWatch(relist));
  assert.equal(relist.query.has("resourceVersion"), false);
  assert.equal(t.logger.at("warn").length, 1);
  await t.stop();
});

Deno.test("ListWatch waits for Retry-After when it is longer than the backoff", async () => {
  const t = setup();
  const throttled = new ApiError({
    code: 429,
    status: { reason: "TooManyRequests" },
    retryAfterSeconds: 5,
  });
  t.client.push(fail(throttled), list("10", []), stream());
  t.start();
  await waitFor(() => t.sink.errors.length === 1);
  assert.deepEqual(t.sink.errors, [{ error: throttled, retryInMs: 5_000 }]);
  assert.equal(t.loop.lastError?.error, throttled);
  assert.equal(t.loop.lastError?.time, t.clock.now());
  assert.equal(t.loop.phase, "backingOff");
  await t.clock.tick(4_999);
  assert.equal(t.client.requests.length, 1);
  await t.clock.tick(1);
  await waitFor(() => t.client.requests.length === 3);
  assert.match(t.logger.at("warn")[0].message, /retrying in 5000 ms/);
  await t.stop();
});

Deno.test("ListWatch backs off longer after each 5xx", async () => {
  const t = setup();
  t.client.push(
    fail(new ApiError({ code: 500 })),
    fail(new ApiError({ code: 503 })),
    fail(new ApiError({ code: 500 })),
    list("10", []),
    stream(),
  );
  t.start();
  for (const [i, delayMs] of [800, 1_600, 3_200].entries()) {
    await waitFor(() => t.sink.errors.length === i + 1);
    assert.equal(t.sink.errors[i].retryInMs, delayMs);
    await t.clock.tick(delayMs - 1);
    assert.equal(t.client.requests.length, i + 1, `retry ${i + 1} too early`);
    await t.clock.tick(1);
    await waitFor(() => t.client.requests.length >= i + 2);
  }
  await waitFor(() => t.loop.phase === "watching");
  assert.equal(t.sink.lists.length, 1);
  await t.stop();
});

Deno.test("ListWatch starts the backoff over only after the watch was healthy for 2 minutes", async () => {
  const t = setup();
  const short = new ScriptedStream();
  const long = new ScriptedStream();
  t.client.push(
    fail(new ApiError({ code: 500 })),
    list("10", []),
    stream(short),
    stream(long),
    stream(),
  );
  t.start();
  await waitFor(() => t.sink.errors.length === 1);
  await t.clock.tick(800);
  await waitFor(() => t.client.streams.length === 1);
  await t.clock.tick(60_000);
  short.fail(new TypeError("connection reset"));
  await waitFor(() => t.sink.errors.length === 2);
  assert.equal(
    t.sink.errors[1].retryInMs,
    1_600,
    "one healthy minute is not enough",
  );

  await t.clock.tick(1_600);
  await waitFor(() => t.client.streams.length === 2);
  await t.clock.tick(120_000 - 1);
  long.send(bookmark("11")); // keeps the idle timer quiet
  await t.clock.tick(1);
  long.fail(new TypeError("connection reset"));
  await waitFor(() => t.sink.errors.length === 3);
  assert.equal(t.sink.errors[2].retryInMs, 800);
  await t.stop();
});

Deno.test("ListWatch jitters the backoff with the injected random source", async () => {
  const t = setup({ random: () => 0.5 });
  t.client.push(fail(new ApiError({ code: 500 })), list("10", []), stream());
  t.start();
  await waitFor(() => t.sink.errors.length === 1);
  assert.equal(t.sink.errors[0].retryInMs, 720); // 800 * (1 - 0.2 * 0.5)
  await t.stop();
});

Deno.test("ListWatch backs off and re-watches after a truncated line", async () => {
  const t = setup();
  const first = new ScriptedStream();
  t.client.push(list("10", []), stream(first), stream());
  t.start();
  await waitFor(() => t.client.streams.length === 1);
  first.raw(
    JSON.stringify(ev("ADDED", cm("a", "11"))) + '\n{"type":"MODIFIED","obj',
  );
  first.end();
  await waitFor(() => t.sink.errors.length === 1);
  assert.ok(t.sink.errors[0].error instanceof JsonLinesError);
  assert.match(t.logger.at("warn")[0].message, /could not be decoded/);
  await t.clock.tick(800);
  await waitFor(() => t.client.requests.length === 3);
  assert.equal(t.client.requests[2].query.get("resourceVersion"), "11");
  assert.equal(t.sink.lists.length, 1, "no relist");
  assert.deepEqual(t.sink.events, ["ADDED a@11"]);
  await t.stop();
});

Deno.test("ListWatch goes on when the logger throws", async () => {
  const throwing = () => {
    throw new Error("log sink broken");
  };
  const t = setup({
    logger: {
      debug: throwing,
      info: throwing,
      warn: throwing,
      error: throwing,
    },
  });
  const first = new ScriptedStream();
  t.client.push(list("10", []), stream(first), stream());
  t.start();
  await waitFor(() => t.client.streams.length === 1);
  first.raw('{"type":"MODIFIED","obj'); // logged at warn, which throws
  first.end();
  await waitFor(() => t.sink.errors.length === 1);
  await t.clock.tick(800);
  await waitFor(() => t.client.requests.length === 3, {
    description: "the watch was resumed",
  });
  await t.stop();
});

Deno.test("ListWatch backs off and re-watches after a line that is not JSON", async () => {
  const t = setup();
  const first = new ScriptedStream();
  t.client.push(list("10", []), stream(first), stream());
  t.start();
  await waitFor(() => t.client.streams.length === 1);
  first.raw("<html>502 Bad Gateway</html>\n");
  await waitFor(() => t.sink.errors.length === 1);
  assert.notEqual(first.state, "open");
  await t.clock.tick(800);
  await waitFor(() => t.client.requests.length === 3);
  assert.equal(t.client.requests[2].query.get("resourceVersion"), "10");
  await t.stop();
});

Deno.test("ListWatch aborts a watch that stays silent for the idle timeout and resumes it", async () => {
  const t = setup();
  const stalled = new ScriptedStream();
  t.client.push(list("10", []), stream(stalled), stream());
  t.start();
  await waitFor(() => t.client.streams.length === 1);
  await t.clock.tick(100_000);
  stalled.send(bookmark("12"));
  await t.clock.tick(100_000);
  assert.equal(stalled.state, "open", "bytes 100 s ago keep it alive");
  await t.clock.tick(79_999);
  assert.equal(stalled.state, "open");
  await t.clock.tick(1);
  await waitFor(() => t.client.requests.length === 3);
  assert.equal(stalled.state, "aborted");
  const resumed = t.client.requests[2];
  assert.ok(isWatch(resumed));
  assert.equal(resumed.query.get("resourceVersion"), "12");
  assert.equal(t.sink.lists.length, 1, "no relist");
  assert.equal(t.loop.reconnects, 1);
  assert.match(t.logger.at("warn")[0].message, /no bytes for 180000 ms/);
  await t.stop();
});

Deno.test("ListWatch idle timeout also covers a watch request that never answers", async () => {
  const t = setup({ idleTimeoutMs: 1_000 });
  t.client.push(list("10", []), { kind: "hang" }, stream());
  t.start();
  await waitFor(() => t.client.requests.length === 2);
  await t.clock.tick(1_000);
  await waitFor(() => t.client.requests.length === 3);
  assert.equal(t.client.requests[2].query.get("resourceVersion"), "10");
  await t.stop();
});

Deno.test("ListWatch logs 401/403/404 on LIST at error level with the URL and a hint, and keeps retrying", async () => {
  const cases = [
    [401, "Unauthorized", /credentials rejected/],
    [403, "Forbidden", /RBAC missing/],
    [404, "NotFound", /CRD not installed/],
  ] as const;
  for (const [code, reason, hint] of cases) {
    const t = setup();
    const error = new ApiError({
      code,
      status: { reason },
      method: "GET",
      path: PATH,
    });
    t.client.push(fail(error), fail(error));
    t.start();
    await waitFor(() => t.sink.errors.length === 1);
    const [record] = t.logger.at("error");
    assert.ok(record, `no error log for ${code}`);
    assert.ok(record.message.includes(`${PATH}?limit=500`), record.message);
    assert.match(record.message, hint);
    assert.equal(record.fields.url, `${PATH}?limit=500`);
    assert.equal(t.loop.lastError?.error, error);
    assert.equal(t.loop.synced, false);
    await t.clock.tick(800);
    await waitFor(() => t.sink.errors.length === 2);
    assert.equal(t.client.requests.length, 2);
    assert.equal(t.logger.at("error").length, 2);
    await t.stop();
  }
});

Deno.test("ListWatch backs off when a watch closes at once without events, instead of spinning", async () => {
  const t = setup();
  const first = new ScriptedStream();
  t.client.push(list("10", []), stream(first), stream());
  t.start();
  await waitFor(() => t.client.streams.length === 1);
  first.end();
  await waitFor(() => t.sink.errors.length === 1);
  await settle();
  assert.equal(t.client.requests.length, 2);
  await t.clock.tick(800);
  await waitFor(() => t.client.requests.length === 3);
  await t.stop();
});

Deno.test("ListWatch streams the initial list with sendInitialEvents and keeps watching on the same stream", async () => {
  const t = setup({ initialList: "stream" });
  const s = new ScriptedStream();
  t.client.push(stream(s));
  t.start();
  await waitFor(() => t.client.streams.length === 1);
  const [request] = t.client.requests;
  assert.ok(request.expectStream);
  assert.equal(request.query.get("sendInitialEvents"), "true");
  assert.equal(request.query.get("resourceVersionMatch"), "NotOlderThan");
  assert.equal(request.query.get("allowWatchBookmarks"), "true");
  assert.equal(request.query.has("resourceVersion"), false);

  s.send(ev("ADDED", cm("a", "5")), ev("ADDED", cm("b", "6")));
  await settle();
  assert.equal(t.loop.phase, "streamingInitial");
  assert.equal(t.sink.lists.length, 0);
  s.send(bookmark("7", true));
  await waitFor(() => t.sink.lists.length === 1);
  assert.deepEqual(t.sink.lists[0], {
    names: ["a", "b"],
    resourceVersion: "7",
    initial: true,
  });
  assert.equal(t.loop.synced, true);
  s.send(ev("MODIFIED", cm("a", "8")));
  await waitFor(() => t.sink.events.length === 1);
  assert.deepEqual(t.sink.events, ["MODIFIED a@8"]);

  await t.clock.tick(60_000);
  assert.equal(s.state, "open", "the deadline is over once the list is in");
  assert.equal(t.client.requests.length, 1, "no LIST request");
  await t.stop();
});

Deno.test("ListWatch falls back to LIST when streaming is rejected, and remembers it", async () => {
  const t = setup({ initialList: "stream" });
  const watch = new ScriptedStream();
  t.client.push(
    fail(
      new ApiError({
        code: 400,
        status: {
          reason: "BadRequest",
          message: "unknown parameter sendInitialEvents",
        },
      }),
    ),
    list("10", [cm("a")]),
    stream(watch),
    list("20", [cm("a")]),
    stream(),
  );
  t.start();
  await waitFor(() => t.client.streams.length === 1);
  assert.deepEqual(t.sink.lists.map((l) => l.names), [["a"]]);
  assert.match(t.logger.at("info")[0].message, /using LIST from now on/);
  assert.equal(t.sink.errors.length, 0, "a fallback is not a failure");

  watch.send(
    ev("ADDED", cm("b", "11")),
    ev("ERROR", { kind: "Status", code: 410, reason: "Expired" }),
  );
  await waitFor(() => t.client.requests.length === 5);
  const [streamed, listed, watched, relisted] = t.client.requests;
  assert.equal(streamed.query.get("sendInitialEvents"), "true");
  assert.ok(!isWatch(listed));
  assert.equal(watched.query.has("sendInitialEvents"), false);
  assert.ok(!isWatch(relisted), "the relist uses LIST, not a stream");
  await t.stop();
});

Deno.test("ListWatch falls back to LIST when the end bookmark misses the deadline", async () => {
  const t = setup({ initialList: "stream", initialStreamDeadlineMs: 5_000 });
  const slow = new ScriptedStream();
  t.client.push(stream(slow), list("10", [cm("listed")]), stream());
  t.start();
  await waitFor(() => t.client.streams.length === 1);
  slow.send(ev("ADDED", cm("streamed", "5")));
  await t.clock.tick(4_999);
  assert.equal(slow.state, "open");
  await t.clock.tick(1);
  await waitFor(() => t.client.requests.length === 3);
  assert.equal(slow.state, "aborted");
  assert.deepEqual(t.sink.lists.map((l) => l.names), [["listed"]]);
  assert.match(
    t.logger.at("info")[0].message,
    /no object and no initial-events-end bookmark came for 5000 ms/,
  );
  await t.stop();
});

Deno.test("ListWatch falls back to LIST when the server ends the initial stream early", async () => {
  const t = setup({ initialList: "stream" });
  const early = new ScriptedStream();
  t.client.push(stream(early), list("10", [cm("a")]), stream());
  t.start();
  await waitFor(() => t.client.streams.length === 1);
  early.send(ev("ADDED", cm("a", "5")));
  early.end();
  await waitFor(() => t.client.requests.length === 3);
  assert.ok(!isWatch(t.client.requests[1]));
  assert.deepEqual(t.sink.lists.map((l) => l.names), [["a"]]);
  await t.stop();
});

Deno.test("ListWatch waits for a sink's promise before the next event (back-pressure)", async () => {
  const t = setup();
  const s = new ScriptedStream();
  t.client.push(list("10", []), stream(s));
  let release!: () => void;
  t.sink.eventHook = (_type, object) =>
    object.metadata.name === "a"
      ? new Promise<void>((r) => release = r)
      : undefined;
  t.start();
  await waitFor(() => t.client.streams.length === 1);
  s.send(
    ev("ADDED", cm("a", "11")),
    ev("ADDED", cm("b", "12")),
    ev("ADDED", cm("c", "13")),
  );
  await waitFor(() => t.sink.events.length === 1);
  await settle();
  assert.deepEqual(t.sink.events, ["ADDED a@11"]);
  release();
  await waitFor(() => t.sink.events.length === 3);
  assert.deepEqual(t.sink.events, ["ADDED a@11", "ADDED b@12", "ADDED c@13"]);
  await t.stop();
});

Deno.test("ListWatch logs a throwing or rejecting sink and goes on", async () => {
  const t = setup();
  const s = new ScriptedStream();
  t.client.push(list("10", []), stream(s));
  t.sink.eventHook = (_type, object) => {
    if (object.metadata.name === "a") throw new Error("boom");
    if (object.metadata.name === "b") return Promise.reject(new Error("bang"));
  };
  t.start();
  await waitFor(() => t.client.streams.length === 1);
  s.send(
    ev("ADDED", cm("a", "11")),
    ev("ADDED", cm("b", "12")),
    ev("ADDED", cm("c", "13")),
  );
  await waitFor(() => t.sink.events.length === 3);
  const errors = t.logger.at("error").map((r) => r.message);
  assert.equal(errors.length, 2);
  assert.match(errors[0], /onEvent failed.*boom/);
  assert.match(errors[1], /onEvent failed.*bang/);
  assert.equal(t.loop.resourceVersion, "13");
  await t.stop();
});

Deno.test("ListWatch skips watch events without metadata with a warning", async () => {
  const t = setup();
  const s = new ScriptedStream();
  t.client.push(list("10", []), stream(s));
  t.start();
  await waitFor(() => t.client.streams.length === 1);
  s.send(ev("ADDED", { kind: "ConfigMap" }), ev("ADDED", cm("b", "12")));
  await waitFor(() => t.sink.events.length === 1);
  assert.match(t.logger.at("warn")[0].message, /without metadata; skipped/);
  await t.stop();
});

Deno.test("ListWatch refuses to run twice at once", async () => {
  const t = setup();
  t.client.push(list("10", []), stream());
  t.start();
  await assert.rejects(
    () => t.loop.run(new AbortController().signal),
    /already running/,
  );
  await t.stop();
});

Deno.test("ListWatch validates its options once, with WatcherConfigError naming the option", () => {
  const client = new ScriptedClient() as unknown as RestClient;
  const sink = new RecordingSink();
  const cases: [string, Partial<ListWatchOptions>, RegExp][] = [
    [
      "gvr.resource",
      { gvr: { group: "", version: "v1", resource: "" } },
      /gvr\.resource/,
    ],
    ["pageSize", { pageSize: 0 }, /pageSize: must be a positive/],
    ["pageSize", { pageSize: 1.5 }, /pageSize: must be a positive integer/],
    ["idleTimeoutMs", { idleTimeoutMs: -1 }, /idleTimeoutMs/],
    [
      "initialStreamDeadlineMs",
      { initialStreamDeadlineMs: 0 },
      /initialStreamDeadlineMs/,
    ],
    ["maxLineBytes", { maxLineBytes: Number.NaN }, /maxLineBytes/],
    [
      "initialList",
      { initialList: "watch" as "list" },
      /initialList: must be "list" or "stream"/,
    ],
    [
      "backoff",
      { backoff: { initialMs: -5 } },
      /Backoff initialMs must be positive/,
    ],
  ];
  for (const [field, options, message] of cases) {
    assert.throws(
      () => new ListWatch(client, sink, { gvr: GVR, ...options }),
      (e: unknown) => {
        // Still a TypeError, as it was for the gvr before.
        assert.ok(e instanceof TypeError, `${field}: ${e}`);
        assert.ok(e instanceof WatcherConfigError, `${field}: ${e}`);
        assert.equal(e.field, field);
        assert.match(e.message, message);
        return true;
      },
    );
  }
  assert.equal(new ListWatch(client, sink, { gvr: GVR }).phase, "idle");
});

Deno.test("ListWatch rejects a duration longer than a timer can wait (2³¹−1 ms)", () => {
  // Above 2³¹−1 ms, setTimeout fires after 1 ms on Deno, Node and Bun.
  const client = new ScriptedClient() as unknown as RestClient;
  const sink = new RecordingSink();
  const cases: [string, (ms: number) => Partial<ListWatchOptions>, RegExp][] = [
    [
      "idleTimeoutMs",
      (ms) => ({ idleTimeoutMs: ms }),
      /^Invalid watcher config: idleTimeoutMs: /,
    ],
    [
      "initialStreamDeadlineMs",
      (ms) => ({ initialStreamDeadlineMs: ms }),
      /^Invalid watcher config: initialStreamDeadlineMs: /,
    ],
    ["backoff", (ms) => ({ backoff: { maxMs: ms } }), /Backoff maxMs /],
  ];
  for (const [field, options, prefix] of cases) {
    assert.throws(
      () => new ListWatch(client, sink, { gvr: GVR, ...options(2 ** 31) }),
      (e: unknown) => {
        assert.ok(e instanceof WatcherConfigError, `${field}: ${e}`);
        assert.equal(e.field, field);
        assert.match(e.message, prefix);
        assert.match(
          e.message,
          /must be at most 2147483647 ms \(2³¹−1\), got 2147483648$/,
        );
        return true;
      },
    );
    new ListWatch(client, sink, { gvr: GVR, ...options(2 ** 31 - 1) });
  }
});

// --- Stopping in every phase -----------------------------------------------

Deno.test("ListWatch stops at once when the signal is already aborted", async () => {
  const t = setup();
  const controller = new AbortController();
  controller.abort();
  await t.loop.run(controller.signal);
  assert.equal(t.client.requests.length, 0);
  assert.equal(t.loop.phase, "stopped");
});

Deno.test("ListWatch stops during a LIST request", async () => {
  const t = setup();
  t.start();
  await waitFor(() => t.client.pendingRequests === 1);
  assert.equal(t.loop.phase, "listing");
  await t.stop();
  assert.equal(t.sink.calls, 0);
});

Deno.test("ListWatch stops while backing off", async () => {
  const t = setup();
  t.client.push(fail(new ApiError({ code: 503 })));
  t.start();
  await waitFor(() => t.loop.phase === "backingOff");
  assert.equal(t.clock.pendingTimers, 1);
  await t.stop();
});

Deno.test("ListWatch stops while a watch request is pending", async () => {
  const t = setup();
  t.client.push(list("10", []), { kind: "hang" });
  t.start();
  await waitFor(() => t.client.requests.length === 2);
  await t.stop();
});

Deno.test("ListWatch stops while watching", async () => {
  const t = setup();
  const s = new ScriptedStream();
  t.client.push(list("10", []), stream(s));
  t.start();
  await waitFor(() => t.client.streams.length === 1);
  s.send(ev("ADDED", cm("a", "11")));
  await waitFor(() => t.sink.events.length === 1);
  await t.stop();
  assert.equal(s.state, "aborted");
});

Deno.test("ListWatch stops while streaming the initial list", async () => {
  const t = setup({ initialList: "stream" });
  const s = new ScriptedStream();
  t.client.push(stream(s));
  t.start();
  await waitFor(() => t.client.streams.length === 1);
  s.send(ev("ADDED", cm("a", "5")));
  await settle();
  assert.equal(t.clock.pendingTimers, 2, "idle timer and deadline");
  await t.stop();
  assert.equal(s.state, "aborted");
  assert.equal(t.sink.lists.length, 0);
});

Deno.test("ListWatch stops while the sink applies back-pressure, and calls it no more", async () => {
  const t = setup();
  const s = new ScriptedStream();
  t.client.push(list("10", []), stream(s));
  let release!: () => void;
  t.sink.eventHook = () => new Promise<void>((r) => release = r);
  t.start();
  await waitFor(() => t.client.streams.length === 1);
  s.send(ev("ADDED", cm("a", "11")), ev("ADDED", cm("b", "12")));
  await waitFor(() => t.sink.events.length === 1);
  const stopped = t.stop();
  release();
  await stopped;
  assert.deepEqual(t.sink.events, ["ADDED a@11"]);
});

Deno.test("ListWatch can run again after a stop, with a fresh list", async () => {
  const t = setup();
  t.client.push(list("10", [cm("a")]), stream());
  t.start();
  await waitFor(() => t.client.streams.length === 1);
  await t.stop();

  const controller = new AbortController();
  t.client.push(list("20", [cm("b")]), stream());
  const again = t.loop.run(controller.signal);
  await waitFor(() => t.client.streams.length === 2);
  assert.deepEqual(t.sink.lists.map((l) => [l.names, l.initial]), [[
    ["a"],
    true,
  ], [["b"], false]]);
  controller.abort();
  await again;
  assert.equal(t.clock.pendingTimers, 0);
});

Deno.test("ListWatch keeps one record of lists, pages, watches, events, bookmarks, failures and backoffs", async () => {
  const t = setup();
  const first = new ScriptedStream();
  t.client.push(
    list("10", [cm("a")], "c1"),
    list("10", [cm("b")]),
    stream(first),
  );
  t.start();
  await waitFor(() => t.client.streams.length === 1);
  assert.equal(t.loop.stats.lastActivityTime, t.clock.now(), "watch opened");
  await t.clock.tick(5_000);
  first.send(ev("ADDED", cm("c", "11")), bookmark("12"));
  await waitFor(() => t.loop.stats.bookmarks === 1);
  assert.equal(t.loop.stats.lastActivityTime, t.clock.now());
  assert.equal(t.loop.stats.lastEventTime, t.clock.now());
  first.fail(
    new ApiError({ code: 503, status: { reason: "ServiceUnavailable" } }),
  );
  await waitFor(() => t.loop.stats.backoffs === 1);
  assert.deepEqual({ ...t.loop.stats, lastError: undefined }, {
    lists: 1,
    relists: 0,
    listPages: 2,
    watches: 1,
    reconnects: 0,
    events: 1,
    bookmarks: 1,
    requestErrors: 1,
    backoffs: 1,
    lastEventTime: t.clock.now(),
    lastActivityTime: t.clock.now(),
    // The first retry waits 800 ms (the backoff's start, no jitter here).
    retryAt: t.clock.now() + 800,
    lastError: undefined,
  });
  assert.match(String(t.loop.lastError?.error), /503/);
  assert.equal(t.loop.stats.lastError, t.loop.lastError);
  await t.stop();
});

Deno.test("ListWatch.relist() abandons the open watch and lists again, with the shardSelector read at each request", async () => {
  let selector =
    "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')";
  const t = setup({ shardSelector: () => selector });
  const first = new ScriptedStream();
  t.client.push(list("100", [cm("a")]), stream(first));
  t.start();
  await waitFor(() => t.loop.phase === "watching" && first.open);
  t.loop.relist();
  selector =
    "shardRange(object.metadata.uid, '0x8000000000000000', '0x10000000000000000')";
  const second = new ScriptedStream();
  t.client.push(list("120", [cm("b")]), stream(second));
  await waitFor(() => t.client.streams.length === 2 && second.open);
  assert.equal(first.state, "aborted");
  const [l1, w1, l2, w2] = t.client.requests;
  assert.equal(l1.query.get("shardSelector"), w1.query.get("shardSelector"));
  assert.notEqual(l2.query.get("shardSelector"), l1.query.get("shardSelector"));
  assert.equal(l2.query.get("shardSelector"), selector);
  assert.equal(w2.query.get("shardSelector"), selector);
  assert.equal(l2.query.has("continue"), false);
  assert.deepEqual(t.sink.lists.map((l) => [l.names, l.initial]), [
    [["a"], true],
    [["b"], false],
  ]);
  assert.equal(t.loop.relists, 1);
  assert.ok(
    t.logger.records.some((r) =>
      r.message.startsWith("Listing ") &&
      r.message.includes("again as asked")
    ),
  );
  await t.stop();
});

Deno.test("ListWatch.relist() during a list restarts it from the first page; before run() it does nothing", async () => {
  const t = setup({ pageSize: 1 });
  t.loop.relist();
  t.client.push(list("100", [cm("a")], "c1"), { kind: "hang" });
  t.start();
  await waitFor(() => t.client.requests.length === 2);
  t.loop.relist();
  t.client.push(list("110", [cm("a")], "c1"), list("110", [cm("b")]), stream());
  await waitFor(() => t.loop.phase === "watching");
  const lists = t.client.requests.filter((r) => !isWatch(r));
  assert.deepEqual(lists.map((r) => r.query.get("continue")), [
    null,
    "c1",
    null,
    "c1",
  ]);
  assert.deepEqual(t.sink.lists.map((l) => l.names), [["a", "b"]]);
  assert.equal(t.sink.lists[0].initial, true);
  await t.stop();
});
