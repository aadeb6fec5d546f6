/**
 * The settle rule (`DebounceSettle`) on the `Debouncer` and the
 * `DebounceGroup`, on a fake clock: when calls fire, and how bad options
 * are refused. The watchers' side is in `bulk_settle_test.ts`.
 */
import assert from "node:assert/strict";
import { FakeClock, settle as turns } from "../testing/fake_clock.ts";
import { RecordingLogger } from "../testing/recording_logger.ts";
import { Debouncer, type DebouncerOptions } from "./debouncer.ts";
import { DebounceGroup } from "./debounce_group.ts";
import type { DebounceSettle } from "./debounce_settle.ts";
import { Watcher } from "./watcher.ts";
import { WatcherConfigError } from "../config_error.ts";

const SETTLE: DebounceSettle = { quietMs: 100, maxWaitMs: 500 };

/** A settling debouncer recording each call's time and total. */
function setup(options: Partial<DebouncerOptions> = {}) {
  const clock = new FakeClock();
  const calls: { at: number; total: number; initial: boolean }[] = [];
  const debouncer = new Debouncer({
    settle: SETTLE,
    clock,
    logger: new RecordingLogger(),
    onChange: (stats) => {
      calls.push({
        at: clock.now(),
        total: stats.total,
        initial: stats.isInitialSync,
      });
    },
    ...options,
  });
  return { clock, calls, debouncer };
}

Deno.test("settle: a call fires quietMs after the latest change, each change starting the quiet again", async () => {
  const { clock, calls, debouncer } = setup();
  debouncer.recordCreate();
  await clock.tick(0);
  assert.deepEqual(calls, [], "no leading edge");
  await clock.tick(60);
  debouncer.recordCreate(); // t = 60: quiet starts again
  await clock.tick(60);
  debouncer.recordUpdate(); // t = 120
  await clock.tick(99); // t = 219
  assert.deepEqual(calls, []);
  await clock.tick(1); // t = 220: 100 ms without a change
  assert.deepEqual(calls, [{ at: 220, total: 3, initial: false }]);

  // The next burst waits for its own quiet; nothing carries over.
  await clock.tick(1_000);
  debouncer.recordDelete(); // t = 1220
  await clock.tick(100);
  assert.deepEqual(calls[1], { at: 1_320, total: 1, initial: false });
  await clock.tick(10_000);
  assert.equal(calls.length, 2);
  await debouncer.stop();
  assert.equal(clock.pendingTimers, 0);
});

Deno.test("settle: steady churn fires maxWaitMs after the first change of each batch", async () => {
  const { clock, calls, debouncer } = setup();
  // A change every 50 ms never leaves 100 ms of quiet.
  for (let t = 0; t < 1_200; t += 50) {
    debouncer.recordUpdate();
    await clock.tick(50);
  }
  // The first batch: the changes at 0 … 450, cut at 0 + 500. The second
  // starts with the change at 500 and is cut at 1000.
  assert.deepEqual(calls, [
    { at: 500, total: 10, initial: false },
    { at: 1_000, total: 10, initial: false },
  ]);
  await clock.tick(100); // t = 1300: the last change (1150) has settled
  assert.deepEqual(calls[2], { at: 1_250, total: 4, initial: false });
  await debouncer.stop();
});

Deno.test("settle: quietMs equal to maxWaitMs fires a fixed time after the first change", async () => {
  const { clock, calls, debouncer } = setup({
    settle: { quietMs: 200, maxWaitMs: 200 },
  });
  debouncer.recordCreate();
  await clock.tick(150);
  debouncer.recordCreate();
  await clock.tick(50);
  assert.deepEqual(calls, [{ at: 200, total: 2, initial: false }]);
  await debouncer.stop();
});

Deno.test("settle: calls never overlap; changes made during a call are timed from when they came", async () => {
  const clock = new FakeClock();
  const calls: { at: number; total: number }[] = [];
  let finish = () => {};
  const debouncer = new Debouncer({
    settle: SETTLE,
    clock,
    onChange: (stats) => {
      calls.push({ at: clock.now(), total: stats.total });
      return new Promise<void>((resolve) => finish = resolve);
    },
  });
  debouncer.recordCreate();
  await clock.tick(100); // t = 100: the first call starts, and runs on
  assert.deepEqual(calls, [{ at: 100, total: 1 }]);
  debouncer.recordCreate(2); // t = 100
  await clock.tick(300); // t = 400: due at 200, but the call still runs
  assert.equal(calls.length, 1, "no overlapping call");
  finish();
  await turns();
  assert.deepEqual(calls[1], { at: 400, total: 2 }, "due: at once");

  // A change 10 ms before the call ends waits for its own quiet period.
  await clock.tick(50);
  debouncer.recordUpdate(); // t = 450
  await clock.tick(10);
  finish(); // t = 460
  await turns();
  await clock.tick(89); // t = 549
  assert.equal(calls.length, 2);
  await clock.tick(1); // t = 550: 100 ms after the change
  assert.deepEqual(calls[2], { at: 550, total: 1 });
  finish();
  await debouncer.idle();
  await debouncer.stop();
});

Deno.test("settle: the initial-sync batch is delivered at once, the first change after it settles", async () => {
  const { clock, calls, debouncer } = setup();
  debouncer.setSyncMode(true);
  debouncer.recordCreate(50);
  await clock.tick(10_000);
  assert.deepEqual(calls, [], "held back in sync mode");
  debouncer.setSyncMode(false);
  await clock.tick(0);
  assert.deepEqual(calls, [{ at: 10_000, total: 50, initial: true }]);
  debouncer.recordUpdate();
  await clock.tick(0);
  assert.equal(calls.length, 1, "no leading edge after the initial sync");
  await clock.tick(100);
  assert.deepEqual(calls[1], { at: 10_100, total: 1, initial: false });
  await debouncer.stop();
});

Deno.test("settle: with suppressDuringSync false, batches in sync mode settle too", async () => {
  // Delivered during sync (suppressDuringSync: false), a batch settles too.
  const { clock, calls, debouncer } = setup({ suppressDuringSync: false });
  debouncer.setSyncMode(true);
  debouncer.recordCreate(3);
  await clock.tick(100);
  assert.deepEqual(calls, [{ at: 100, total: 3, initial: true }]);
  await debouncer.stop();
});

Deno.test("settle: flush() fires at once; flushPending() then stop() delivers what is pending", async () => {
  const { clock, calls, debouncer } = setup();
  debouncer.recordCreate();
  await debouncer.flush();
  assert.deepEqual(calls, [{ at: 0, total: 1, initial: false }]);
  await clock.tick(1_000);
  assert.equal(calls.length, 1, "the flush took the batch");
  debouncer.recordCreate(4);
  await clock.tick(30);
  await debouncer.flushPending();
  await debouncer.stop();
  assert.deepEqual(calls[1], { at: 1_030, total: 4, initial: false });
  debouncer.recordCreate(); // ignored once stopped
  await clock.tick(1_000);
  assert.equal(calls.length, 2);
  assert.equal(clock.pendingTimers, 0);
});

Deno.test("settle: DebounceGroup waits for quiet across all members, then one call", async () => {
  const clock = new FakeClock();
  const calls: { at: number; batches: Record<string, string[]> }[] = [];
  const group = new DebounceGroup<string[]>({
    settle: { quietMs: 200, maxWaitMs: 1_000 },
    clock,
    merge: (pending, next) => [...pending, ...next],
    onChange: (batches) => {
      calls.push({ at: clock.now(), batches: Object.fromEntries(batches) });
    },
  });
  const ingresses = group.member("ingresses");
  const services = group.member("services");
  ingresses.add(["blog/blog"]);
  await clock.tick(150);
  services.add(["blog/blog"]); // another member: the quiet starts again
  await clock.tick(199); // t = 349
  assert.equal(calls.length, 0);
  await clock.tick(1); // t = 350
  assert.deepEqual(calls, [{
    at: 350,
    batches: { ingresses: ["blog/blog"], services: ["blog/blog"] },
  }]);

  // Churn on one member is cut at maxWaitMs; stop() delivers the rest.
  for (let i = 0; i < 8; i++) {
    services.add([`blog/s${i}`]);
    await clock.tick(150);
  }
  // Added at 350 … 1400; cut at 350 + 1000 = 1350 (seven of them).
  assert.deepEqual(calls.map((c) => c.at), [350, 1_350]);
  assert.deepEqual(calls.map((c) => c.batches.services?.length), [1, 7]);
  await group.stop(); // t = 1550: the last one was pending
  assert.deepEqual(calls[2], {
    at: 1_550,
    batches: { services: ["blog/s7"] },
  });
  assert.equal(clock.pendingTimers, 0);
});

Deno.test("settle: Debouncer, DebounceGroup and Watcher refuse a bad settle with one class, in one wording", async () => {
  const onChange = () => {};
  const merge = (a: number, b: number) => a + b;
  const cases: [settle: unknown, field: string, message: string][] = [
    [
      { quietMs: 0, maxWaitMs: 500 },
      "settle.quietMs",
      "must be a positive number of milliseconds, got 0",
    ],
    [
      { quietMs: 100 },
      "settle.maxWaitMs",
      "must be a positive number of milliseconds, got undefined",
    ],
    [
      { quietMs: 100, maxWaitMs: 2 ** 31 },
      "settle.maxWaitMs",
      "must be at most 2147483647 ms (2³¹−1), got 2147483648",
    ],
    [
      { quietMs: 500, maxWaitMs: 200 },
      "settle.maxWaitMs",
      "must be at least settle.quietMs (500 ms), got 200",
    ],
    [
      300,
      "settle",
      "must be an object { quietMs, maxWaitMs }, got 300",
    ],
    [
      { quietMS: 100, maxWaitMs: 500 },
      "settle.quietMS",
      "is not a DebounceSettle option (did you mean quietMs?)",
    ],
  ];
  const client = { performRequest: () => Promise.reject(new Error("unused")) };
  const gvr = { group: "", version: "v1", resource: "configmaps" };
  for (const [settle, field, message] of cases) {
    const makers = {
      Debouncer: () =>
        new Debouncer({ settle: settle as DebounceSettle, onChange }),
      DebounceGroup: () =>
        new DebounceGroup({
          settle: settle as DebounceSettle,
          merge,
          onChange,
        }),
      Watcher: () =>
        new Watcher({
          gvr,
          indexBy: ["metadata.name"],
          settle: settle as DebounceSettle,
          onChange,
        }, client),
    };
    for (const [what, make] of Object.entries(makers)) {
      assert.throws(
        make,
        (e: unknown) => {
          assert.ok(e instanceof WatcherConfigError, `${what}: ${e}`);
          assert.equal(e.field, field);
          assert.equal(
            e.message,
            `Invalid watcher config: ${field}: ${message}`,
          );
          return true;
        },
        `${what} ${JSON.stringify(settle)}`,
      );
    }
  }
  for (
    const make of [
      () => new Debouncer({ interval: 1_000, settle: SETTLE, onChange }),
      () =>
        new DebounceGroup({ interval: 1_000, settle: SETTLE, merge, onChange }),
    ]
  ) {
    assert.throws(
      make,
      (e: unknown) =>
        e instanceof WatcherConfigError && e.field === "interval" &&
        e.message ===
          "Invalid watcher config: interval: is not allowed with settle: settle's quietMs and maxWaitMs time the calls",
    );
  }
  assert.throws(
    () => new Debouncer({ onChange }),
    (e: unknown) =>
      e instanceof WatcherConfigError && e.field === "interval" &&
      e.message ===
        "Invalid watcher config: interval: must be a positive number of milliseconds, got undefined",
  );
  await new Debouncer({ settle: SETTLE, onChange }).stop();
  await new DebounceGroup({ settle: SETTLE, merge, onChange }).stop();
});
