import assert from "node:assert/strict";
import { FetchClient, Watcher } from "../mod.ts";
import { FakeApiServer, mockFetch } from "../testing/mod.ts";
import { FakeClock, settle, waitFor } from "../testing/fake_clock.ts";
import { RecordingLogger } from "../testing/recording_logger.ts";
import {
  IndexSynchronizationTracker,
  InvalidResourceCountError,
  ResourceNotSyncedError,
  SyncAbortedError,
  type SyncSource,
  TrackerConfigError,
  UnknownResourceError,
} from "./index_synchronization_tracker.ts";

function watchState<T>(promise: Promise<T>) {
  const state: { settled: boolean; value?: T; reason?: unknown } = {
    settled: false,
  };
  promise.then(
    (value) => Object.assign(state, { settled: true, value }),
    (reason) => Object.assign(state, { settled: true, reason }),
  );
  return state;
}

/** Records removed abort listeners, to check nothing is left attached. */
function spySignal(signal: AbortSignal) {
  let listeners = 0;
  const add = signal.addEventListener.bind(signal);
  const remove = signal.removeEventListener.bind(signal);
  signal.addEventListener = ((...args: Parameters<typeof add>) => {
    listeners++;
    add(...args);
  }) as typeof add;
  signal.removeEventListener = ((...args: Parameters<typeof remove>) => {
    listeners--;
    remove(...args);
  }) as typeof remove;
  return {
    get listeners() {
      return listeners;
    },
  };
}

Deno.test("IndexSynchronizationTracker resolves once when the last resource syncs", async () => {
  const logger = new RecordingLogger();
  const notified: ReadonlyMap<string, number>[] = [];
  const tracker = new IndexSynchronizationTracker(
    ["ingresses", "services", "haproxy-pods"],
    { logger, onSynchronized: (counts) => notified.push(counts) },
  );
  const state = watchState(tracker.synchronized);

  assert.equal(tracker.markSynced("services", 4), true);
  assert.equal(tracker.markSynced("haproxy-pods", 0), true);
  await settle();
  assert.equal(state.settled, false);
  assert.equal(tracker.allSynced(), false);
  assert.equal(notified.length, 0);

  assert.equal(tracker.markSynced("ingresses", 12), true);
  assert.equal(tracker.allSynced(), true);
  const counts = await tracker.synchronized;
  assert.deepEqual([...counts], [
    ["ingresses", 12],
    ["services", 4],
    ["haproxy-pods", 0],
  ], "constructor order, not sync order");
  assert.equal(notified.length, 1);
  assert.equal(notified[0], counts);

  tracker.markSynced("ingresses", 99);
  await settle();
  assert.equal(notified.length, 1, "fires once");
  assert.equal((await tracker.synchronized).get("ingresses"), 12);
  assert.equal(logger.at("info").at(-1)?.message, "All resources synced");
});

Deno.test("IndexSynchronizationTracker ignores a repeated sync and keeps the first count", () => {
  const logger = new RecordingLogger();
  const tracker = new IndexSynchronizationTracker(["a", "b"], { logger });
  assert.equal(tracker.markSynced("a", 3), true);
  assert.equal(tracker.markSynced("a", 7), false);
  assert.equal(tracker.getResourceCount("a"), 3);
  assert.equal(tracker.allSynced(), false);
  const debug = logger.at("debug");
  assert.equal(debug.length, 1);
  assert.deepEqual(debug[0].fields, { resource: "a", count: 7, kept: 3 });
});

Deno.test("IndexSynchronizationTracker.markSynced() throws for an untracked name, listing the tracked ones", async () => {
  const logger = new RecordingLogger();
  const tracker = new IndexSynchronizationTracker(["ingresses", "services"], {
    logger,
  });
  const state = watchState(tracker.synchronized);
  assert.throws(
    () => tracker.markSynced("ingress", 1),
    (e: unknown) =>
      e instanceof UnknownResourceError && e.resource === "ingress" &&
      e.name === "UnknownResourceError" &&
      e.message ===
        'Resource "ingress" is not tracked; tracked resources: "ingresses", "services"' &&
      e.tracked.join() === "ingresses,services",
  );
  // Checked before the count, so a bad count for a bad name names the name.
  assert.throws(() => tracker.markSynced("ingress", -1), UnknownResourceError);
  assert.equal(tracker.isResourceSynced("ingress"), false);
  assert.equal(tracker.allSynced(), false);
  tracker.markSynced("ingresses", 1);
  tracker.markSynced("services", 2);
  await settle();
  assert.equal(state.settled, true, "the typo did not disturb the real names");
  assert.equal(logger.at("warn").length, 0);
});

Deno.test("IndexSynchronizationTracker rejects counts that are not non-negative integers", () => {
  const tracker = new IndexSynchronizationTracker(["a"], {
    logger: new RecordingLogger(),
  });
  for (const bad of [-1, 1.5, NaN, Infinity]) {
    assert.throws(
      () => tracker.markSynced("a", bad),
      (e: unknown) =>
        e instanceof InvalidResourceCountError && e.resource === "a" &&
        Object.is(e.count, bad) && e.message.includes('"a"'),
    );
  }
  assert.throws(
    () => tracker.markSynced("a", "3" as unknown as number),
    InvalidResourceCountError,
  );
  assert.equal(tracker.isResourceSynced("a"), false);
  assert.equal(tracker.markSynced("a", 2), true, "nothing was stored before");
});

Deno.test("IndexSynchronizationTracker.getResourceCount() names what is wrong", () => {
  const tracker = new IndexSynchronizationTracker(["a", "b"], {
    logger: new RecordingLogger(),
  });
  tracker.markSynced("a", 5);
  assert.equal(tracker.getResourceCount("a"), 5);
  assert.equal(tracker.isResourceSynced("a"), true);
  assert.equal(tracker.isResourceSynced("b"), false);
  assert.throws(
    () => tracker.getResourceCount("b"),
    (e: unknown) =>
      e instanceof ResourceNotSyncedError && e.resource === "b" &&
      e.name === "ResourceNotSyncedError",
  );
  assert.throws(
    () => tracker.getResourceCount("zzz"),
    (e: unknown) =>
      e instanceof UnknownResourceError && e.resource === "zzz" &&
      e.message ===
        'Resource "zzz" is not tracked; tracked resources: "a", "b"',
  );
});

Deno.test("IndexSynchronizationTracker.getAllResourceCounts() returns a copy", async () => {
  const tracker = new IndexSynchronizationTracker(["a", "b"], {
    logger: new RecordingLogger(),
  });
  tracker.markSynced("b", 2);
  const partial = tracker.getAllResourceCounts();
  assert.deepEqual([...partial], [["b", 2]]);
  partial.set("b", 100);
  partial.set("a", 1);
  assert.equal(tracker.isResourceSynced("a"), false);
  assert.equal(tracker.getResourceCount("b"), 2);

  tracker.markSynced("a", 1);
  const resolved = await tracker.synchronized;
  const all = tracker.getAllResourceCounts();
  assert.notEqual(all, resolved);
  all.clear();
  assert.equal(resolved.size, 2);
  assert.equal(tracker.getAllResourceCounts().size, 2);
});

Deno.test("IndexSynchronizationTracker with an empty list is synced at once", async () => {
  let notified = 0;
  const controller = new AbortController();
  controller.abort(new Error("too late"));
  const tracker = new IndexSynchronizationTracker([], {
    logger: new RecordingLogger(),
    signal: controller.signal,
    onSynchronized: () => notified++,
  });
  assert.equal(tracker.allSynced(), true);
  assert.equal(notified, 1);
  assert.equal((await tracker.synchronized).size, 0);
});

Deno.test("IndexSynchronizationTracker collapses duplicate names with a warning", async () => {
  const logger = new RecordingLogger();
  const tracker = new IndexSynchronizationTracker(["a", "b", "a"], { logger });
  assert.deepEqual(tracker.resourceNames, ["a", "b"]);
  assert.equal(logger.at("warn").length, 1);
  assert.equal(logger.at("warn")[0].fields.resource, "a");
  tracker.markSynced("a", 1);
  tracker.markSynced("b", 1);
  assert.equal((await tracker.synchronized).size, 2);
});

Deno.test("IndexSynchronizationTracker refuses bad names and options with a TrackerConfigError naming them", () => {
  const refused = (make: () => unknown, field: string, message: string) =>
    assert.throws(make, (e: unknown) => {
      assert.ok(e instanceof TrackerConfigError, String(e));
      assert.ok(e instanceof TypeError, "a TypeError, as before");
      assert.equal(e.name, "TrackerConfigError");
      assert.equal(e.field, field);
      assert.equal(
        e.message,
        `Invalid IndexSynchronizationTracker config: ${field}: ${message}`,
      );
      return true;
    });
  refused(
    () => new IndexSynchronizationTracker([""]),
    "resourceNames",
    'must be non-empty strings, got ""',
  );
  refused(
    () => new IndexSynchronizationTracker([42 as unknown as string]),
    "resourceNames",
    "must be non-empty strings, got 42",
  );
  refused(
    () => new IndexSynchronizationTracker(["a"], { meter: 42 as never }),
    "meter",
    "must be a Meter (an object with createCounter, createUpDownCounter, createHistogram, createObservableGauge), got 42",
  );
  refused(
    () => new IndexSynchronizationTracker(["a"], { singal: 1 } as never),
    "singal",
    "is not an IndexSynchronizationTrackerOptions option (did you mean signal?)",
  );
});

/** Matches a SyncAbortedError for `unsynced` caused by `reason`. */
function abortedFor(unsynced: string[], reason: unknown) {
  return (e: unknown) => {
    assert.ok(e instanceof SyncAbortedError, String(e));
    assert.equal(e.name, "SyncAbortedError");
    assert.deepEqual(e.unsynced, unsynced);
    assert.equal(e.cause, reason);
    for (const name of unsynced) assert.ok(e.message.includes(`"${name}"`));
    return true;
  };
}

Deno.test("IndexSynchronizationTracker rejects at once when the signal is already aborted", async () => {
  const reason = new Error("shutting down");
  let notified = 0;
  const tracker = new IndexSynchronizationTracker(["a", "b"], {
    logger: new RecordingLogger(),
    signal: AbortSignal.abort(reason),
    onSynchronized: () => notified++,
  });
  await assert.rejects(tracker.synchronized, abortedFor(["a", "b"], reason));
  tracker.markSynced("a", 1); // still recorded, but the promise stays rejected
  tracker.markSynced("b", 1);
  assert.equal(tracker.allSynced(), true);
  assert.equal(notified, 0);
  await assert.rejects(tracker.synchronized, abortedFor(["a", "b"], reason));
});

Deno.test("IndexSynchronizationTracker rejects when the signal aborts first and detaches", async () => {
  const controller = new AbortController();
  const spy = spySignal(controller.signal);
  const tracker = new IndexSynchronizationTracker(["a", "b"], {
    logger: new RecordingLogger(),
    signal: controller.signal,
  });
  assert.equal(spy.listeners, 1);
  tracker.markSynced("a", 1);
  const reason = new Error("deadline");
  controller.abort(reason);
  assert.equal(spy.listeners, 0);
  await assert.rejects(tracker.synchronized, abortedFor(["b"], reason));
  await assert.rejects(
    tracker.synchronized,
    { message: 'Resources not synced when the wait was aborted: "b"' },
  );
});

Deno.test("IndexSynchronizationTracker does not report an un-awaited rejection", async () => {
  const controller = new AbortController();
  new IndexSynchronizationTracker(["a"], {
    logger: new RecordingLogger(),
    signal: controller.signal,
  });
  controller.abort();
  // An unhandled rejection would fail this test once the event loop turns.
  await settle();
});

Deno.test("IndexSynchronizationTracker ignores an abort after sync and detaches", async () => {
  const controller = new AbortController();
  const spy = spySignal(controller.signal);
  const tracker = new IndexSynchronizationTracker(["a"], {
    logger: new RecordingLogger(),
    signal: controller.signal,
  });
  tracker.markSynced("a", 3);
  assert.equal(spy.listeners, 0);
  controller.abort();
  assert.deepEqual([...await tracker.synchronized], [["a", 3]]);
});

Deno.test("IndexSynchronizationTracker logs a throwing onSynchronized", async () => {
  const logger = new RecordingLogger();
  const tracker = new IndexSynchronizationTracker(["a"], {
    logger,
    onSynchronized: () => {
      throw new Error("callback broke");
    },
  });
  tracker.markSynced("a", 1);
  assert.equal((await tracker.synchronized).get("a"), 1);
  const errors = logger.at("error");
  assert.equal(errors.length, 1);
  assert.equal((errors[0].fields.error as Error).message, "callback broke");
});

Deno.test("IndexSynchronizationTracker.track() marks a resource when its source syncs", async () => {
  const controller = new AbortController();
  const seenSignals: (AbortSignal | undefined)[] = [];
  const gate = Promise.withResolvers<number>();
  const source: SyncSource = {
    waitForSync: (signal) => {
      seenSignals.push(signal);
      return gate.promise;
    },
  };
  const tracker = new IndexSynchronizationTracker(["ingresses", "services"], {
    logger: new RecordingLogger(),
    signal: controller.signal,
  });
  const tracking = tracker.track("ingresses", source);
  const other = tracker.track("services", {
    waitForSync: () => Promise.resolve(2),
  });
  await other;
  assert.equal(tracker.getResourceCount("services"), 2);
  assert.equal(tracker.isResourceSynced("ingresses"), false);
  gate.resolve(7);
  await tracking;
  assert.deepEqual(seenSignals, [controller.signal]);
  assert.deepEqual([...await tracker.synchronized], [
    ["ingresses", 7],
    ["services", 2],
  ]);
});

Deno.test("IndexSynchronizationTracker.track() logs a failing source and leaves it unsynced", async () => {
  const logger = new RecordingLogger();
  const tracker = new IndexSynchronizationTracker(["a", "b"], { logger });
  const state = watchState(tracker.synchronized);
  await tracker.track("a", {
    waitForSync: () => Promise.reject(new Error("forbidden")),
  });
  await tracker.track("b", { waitForSync: () => Promise.resolve(-3) });
  assert.equal(tracker.isResourceSynced("a"), false);
  assert.equal(tracker.isResourceSynced("b"), false);
  const errors = logger.at("error");
  assert.deepEqual(errors.map((r) => r.fields.resource), ["a", "b"]);
  assert.equal((errors[0].fields.error as Error).message, "forbidden");
  assert.ok(errors[1].fields.error instanceof InvalidResourceCountError);
  await settle();
  assert.equal(state.settled, false);

  tracker.markSynced("a", 1); // marking by hand still completes the set
  tracker.markSynced("b", 1);
  assert.equal((await tracker.synchronized).size, 2);
});

Deno.test("IndexSynchronizationTracker.track() logs an abort at debug level", async () => {
  const controller = new AbortController();
  const logger = new RecordingLogger();
  const tracker = new IndexSynchronizationTracker(["a"], {
    logger,
    signal: controller.signal,
  });
  const tracking = tracker.track("a", {
    waitForSync: (signal) =>
      new Promise((_, reject) =>
        signal!.addEventListener("abort", () => reject(signal!.reason))
      ),
  });
  const reason = new Error("stop");
  controller.abort(reason);
  await tracking;
  await assert.rejects(tracker.synchronized, abortedFor(["a"], reason));
  assert.equal(logger.at("error").length, 0);
  assert.equal(logger.at("debug")[0].message, "Resource sync abandoned");
});

Deno.test("IndexSynchronizationTracker.track() throws for an untracked resource without waiting", () => {
  const logger = new RecordingLogger();
  const tracker = new IndexSynchronizationTracker(["ingresses"], { logger });
  let called = false;
  assert.throws(
    () =>
      tracker.track("ingress", {
        waitForSync: () => {
          called = true;
          return Promise.resolve(1);
        },
      }),
    (e: unknown) =>
      e instanceof UnknownResourceError && e.resource === "ingress" &&
      /tracked resources: "ingresses"$/.test(e.message),
  );
  assert.equal(called, false);
  assert.equal(logger.records.length, 0);
  assert.throws(
    () => tracker.track("ingresses", {} as SyncSource),
    (e: unknown) => e instanceof TypeError && e.message.includes('"ingresses"'),
  );
});

Deno.test("IndexSynchronizationTracker names each unsynced resource's last error when aborted", async () => {
  const controller = new AbortController();
  const tracker = new IndexSynchronizationTracker(
    ["ingresses", "services", "secrets", "pods", "nodes"],
    { logger: new RecordingLogger(), signal: controller.signal },
  );
  const never = () => new Promise<number>(() => {});
  let ingressFailure: unknown = undefined;
  // A source that reports its own last error, which changes over time.
  void tracker.track("ingresses", {
    waitForSync: never,
    lastError: () =>
      ingressFailure === undefined ? undefined : { error: ingressFailure },
  });
  // A source whose wait failed: that failure is what is known.
  await tracker.track("services", {
    waitForSync: () => Promise.reject(new Error("HTTP 404 Not Found")),
  });
  // A source with an accessor but no error yet, and one whose accessor throws.
  void tracker.track("secrets", {
    waitForSync: never,
    lastError: () => undefined,
  });
  void tracker.track("pods", {
    waitForSync: never,
    lastError: () => {
      throw new Error("broken accessor");
    },
  });
  tracker.markSynced("nodes", 3);
  ingressFailure = new Error("HTTP 403 Forbidden: RBAC missing?");

  const reason = new DOMException("Signal timed out.", "TimeoutError");
  controller.abort(reason);
  await assert.rejects(tracker.synchronized, (e: unknown) => {
    abortedFor(["ingresses", "services", "secrets", "pods"], reason)(e);
    const error = e as SyncAbortedError;
    assert.equal(
      error.message,
      "Resources not synced when the wait was aborted: " +
        '"ingresses" (last error: HTTP 403 Forbidden: RBAC missing?), ' +
        '"services" (last error: HTTP 404 Not Found), "secrets", "pods"',
    );
    assert.deepEqual([...error.lastErrors.keys()], ["ingresses", "services"]);
    assert.equal(error.lastErrors.get("ingresses"), ingressFailure);
    return true;
  });
});

Deno.test("IndexSynchronizationTracker prefers a source's current error over its failed wait", async () => {
  const controller = new AbortController();
  const tracker = new IndexSynchronizationTracker(["a"], {
    logger: new RecordingLogger(),
    signal: controller.signal,
  });
  await tracker.track("a", {
    waitForSync: () => Promise.reject(new Error("old")),
    lastError: () => ({ error: { code: 503 } }), // not an Error: shown as JSON
  });
  controller.abort();
  await assert.rejects(
    tracker.synchronized,
    {
      message:
        'Resources not synced when the wait was aborted: "a" (last error: {"code":503})',
    },
  );
});

Deno.test("IndexSynchronizationTracker names a real Watcher's 403 when the wait is aborted", async () => {
  const clock = new FakeClock();
  await using server = new FakeApiServer({ clock });
  using _fetch = mockFetch(server);
  server.create("configmaps", { metadata: { name: "a", namespace: "web" } });
  server.injectFault({
    verb: "list",
    resource: "secrets",
    kind: "status",
    code: 403,
    forMs: 3_600_000,
  });
  const client = new FetchClient({ server: server.url });
  const watcherOf = (resource: string) =>
    new Watcher(
      {
        gvr: { group: "", version: "v1", resource },
        indexBy: ["metadata.namespace", "metadata.name"],
        onChange: () => {},
      },
      client,
      { clock, logger: new RecordingLogger() },
    );
  const configmaps = watcherOf("configmaps");
  const secrets = watcherOf("secrets");
  const deadline = new AbortController();
  const tracker = new IndexSynchronizationTracker(["configmaps", "secrets"], {
    logger: new RecordingLogger(),
    signal: deadline.signal,
  });
  const running = [configmaps.start(), secrets.start()];
  const tracking = [
    tracker.track("configmaps", configmaps),
    tracker.track("secrets", secrets),
  ];
  await waitFor(
    () => tracker.isResourceSynced("configmaps") && !!secrets.lastError(),
    { description: "configmaps synced and secrets refused" },
  );

  deadline.abort(new Error("deadline"));
  await assert.rejects(tracker.synchronized, (e: unknown) => {
    assert.ok(e instanceof SyncAbortedError);
    assert.deepEqual(e.unsynced, ["secrets"]);
    assert.equal(e.lastErrors.get("secrets"), secrets.lastError()?.error);
    assert.match(
      e.message,
      /^Resources not synced when the wait was aborted: "secrets" \(last error: .*403/,
    );
    return true;
  });
  await Promise.all(tracking);
  await Promise.all([configmaps.stop(), secrets.stop()]);
  await Promise.all(running);
});

Deno.test("tracker_resources: an aborted tracker's resources leave the unsynced count; later trackers do not add on top", async () => {
  const { MetricsRegistry } = await import("../metrics/registry.ts");
  const registry = new MetricsRegistry();
  const unsynced = () => {
    const line = registry.render().split("\n").find((l) =>
      l.startsWith('k8s_watcher_tracker_resources{state="unsynced"}')
    );
    return line === undefined ? undefined : Number(line.split(" ").at(-1));
  };
  const aborted = new AbortController();
  const first = new IndexSynchronizationTracker(["a", "b"], {
    meter: registry,
    signal: aborted.signal,
    logger: new RecordingLogger(),
  });
  first.markSynced("a", 1);
  assert.equal(unsynced(), 1);
  aborted.abort();
  await first.synchronized.catch(() => {});
  assert.equal(unsynced(), 0, "nothing waits for b any more");
  // Marking it after the abort moves nothing below zero.
  first.markSynced("b", 2);
  assert.equal(unsynced(), 0);
  const second = new IndexSynchronizationTracker(["c"], {
    meter: registry,
    logger: new RecordingLogger(),
  });
  assert.equal(unsynced(), 1);
  second.markSynced("c", 3);
  assert.equal(unsynced(), 0);
});
