import assert from "node:assert/strict";
import type { ChangeStats } from "../types.ts";
import { FakeClock, settle } from "../testing/fake_clock.ts";
import { RecordingLogger } from "../testing/recording_logger.ts";
import { Debouncer, type DebouncerOptions } from "./debouncer.ts";
import { WatcherConfigError } from "../config_error.ts";

const INTERVAL = 1_000;

type Counts = Pick<
  ChangeStats,
  "created" | "modified" | "deleted" | "isInitialSync"
>;

function setup(
  options: Partial<DebouncerOptions> = {},
) {
  const clock = new FakeClock();
  const logger = new RecordingLogger();
  const calls: ChangeStats[] = [];
  const debouncer = new Debouncer({
    interval: INTERVAL,
    clock,
    logger,
    onChange: (stats) => {
      calls.push(stats);
    },
    ...options,
  });
  return { clock, logger, calls, debouncer };
}

function counts(stats: ChangeStats[]): Counts[] {
  return stats.map(({ created, modified, deleted, isInitialSync }) => ({
    created,
    modified,
    deleted,
    isInitialSync,
  }));
}

function batch(init: Partial<Counts>): Counts {
  return {
    created: 0,
    modified: 0,
    deleted: 0,
    isInitialSync: false,
    ...init,
  };
}

Deno.test("Debouncer fires the first change after a quiet period at once", async () => {
  const { clock, calls, debouncer } = setup();
  debouncer.recordCreate();
  debouncer.recordUpdate(); // same synchronous run: same batch
  assert.equal(clock.pendingTimers, 0, "leading edge needs no timer");
  await clock.tick(0);
  assert.deepEqual(counts(calls), [batch({ created: 1, modified: 1 })]);
  assert.equal(calls[0].total, 2);
  assert.equal(clock.now(), 0);
  await debouncer.stop();
});

Deno.test("Debouncer batches changes inside the interval into one call", async () => {
  const { clock, calls, debouncer } = setup();
  debouncer.recordCreate();
  await clock.tick(100);
  debouncer.recordUpdate();
  await clock.tick(100);
  debouncer.recordDelete(2);
  await clock.tick(100);
  debouncer.recordCreate(3);
  await clock.tick(699); // t = 999
  assert.equal(calls.length, 1);
  await clock.tick(1); // t = 1000: the interval since the first call ends
  assert.deepEqual(counts(calls), [
    batch({ created: 1 }),
    batch({ created: 3, modified: 1, deleted: 2 }),
  ]);
  assert.equal(calls[1].total, 6);
  await clock.tick(5_000);
  assert.equal(calls.length, 2, "nothing more to deliver");
  await debouncer.stop();
});

Deno.test("Debouncer fires at once again after a quiet interval", async () => {
  const { clock, calls, debouncer } = setup();
  debouncer.recordCreate();
  await clock.tick(INTERVAL); // exactly one interval later
  debouncer.recordDelete();
  assert.equal(clock.pendingTimers, 0, "no timer: fires at once");
  await clock.tick(0);
  assert.deepEqual(counts(calls), [
    batch({ created: 1 }),
    batch({ deleted: 1 }),
  ]);
  await clock.tick(5_000);
  debouncer.recordUpdate();
  await clock.tick(0);
  assert.equal(calls.length, 3);
  assert.deepEqual(counts(calls)[2], batch({ modified: 1 }));
  await debouncer.stop();
});

Deno.test("Debouncer keeps at most one timer pending", async () => {
  const { clock, calls, debouncer } = setup();
  for (let t = 0; t < 3_000; t += 50) {
    debouncer.recordUpdate();
    debouncer.recordCreate();
    assert.ok(clock.pendingTimers <= 1, `at t=${t}: ${clock.pendingTimers}`);
    await clock.tick(50);
  }
  await clock.runAll();
  assert.equal(calls.length, 4); // t = 0, 1000, 2000, 3000
  const total = calls.reduce((sum, s) => sum + s.total, 0);
  assert.equal(total, 120);
  await debouncer.stop();
});

Deno.test("Debouncer suppresses calls in sync mode and flushes on leaving it", async () => {
  const { clock, calls, debouncer } = setup();
  debouncer.setSyncMode(true);
  assert.equal(debouncer.isSyncing, true);
  debouncer.recordCreate(4);
  debouncer.recordCreate();
  debouncer.recordUpdate();
  await clock.tick(10_000);
  assert.equal(calls.length, 0);
  assert.equal(clock.pendingTimers, 0);
  assert.equal(debouncer.initialCount, 5);

  debouncer.setSyncMode(false);
  assert.equal(debouncer.isSyncing, false);
  await clock.tick(0);
  assert.deepEqual(counts(calls), [
    batch({ created: 5, modified: 1, isInitialSync: true }),
  ]);
  assert.equal(debouncer.initialCount, 5, "still readable after sync");

  // The initial-sync batch opens no interval: the first change after it
  // fires at once, not when an interval since the flush ends.
  debouncer.recordDelete();
  await clock.tick(0);
  assert.deepEqual(counts(calls)[1], batch({ deleted: 1 }));
  // That one did open an interval.
  debouncer.recordUpdate();
  await clock.tick(INTERVAL - 1);
  assert.equal(calls.length, 2);
  await clock.tick(1);
  assert.deepEqual(counts(calls)[2], batch({ modified: 1 }));
  await debouncer.stop();
});

Deno.test("Debouncer holds a pending batch back when sync mode starts", async () => {
  const { clock, calls, debouncer } = setup();
  debouncer.recordCreate();
  await clock.tick(0);
  debouncer.recordUpdate();
  assert.equal(clock.pendingTimers, 1);
  debouncer.setSyncMode(true);
  assert.equal(clock.pendingTimers, 0);
  debouncer.recordCreate();
  await clock.tick(10_000);
  assert.equal(calls.length, 1);
  debouncer.setSyncMode(false);
  await clock.tick(0);
  assert.deepEqual(counts(calls)[1], {
    created: 1,
    modified: 1,
    deleted: 0,
    isInitialSync: true,
  });
  await debouncer.stop();
});

Deno.test("Debouncer sends nothing on leaving an empty sync", async () => {
  const { clock, calls, debouncer } = setup();
  debouncer.setSyncMode(true);
  debouncer.setSyncMode(false);
  await clock.runAll();
  await settle();
  assert.equal(calls.length, 0);
  await debouncer.stop();
});

Deno.test("Debouncer resets initialCount when sync mode is entered again", async () => {
  const { debouncer } = setup();
  debouncer.setSyncMode(true);
  debouncer.recordCreate(3);
  debouncer.setSyncMode(false);
  debouncer.recordCreate(); // not in sync mode: not initial
  assert.equal(debouncer.initialCount, 3);
  debouncer.setSyncMode(true);
  assert.equal(debouncer.initialCount, 0);
  await debouncer.stop();
});

Deno.test("Debouncer with suppressDuringSync false marks sync batches initial", async () => {
  const { clock, calls, debouncer } = setup({ suppressDuringSync: false });
  debouncer.setSyncMode(true);
  debouncer.recordCreate();
  await clock.tick(0);
  debouncer.recordCreate(2);
  await clock.tick(INTERVAL);
  debouncer.recordCreate(3); // pending when sync ends: flushed at once
  await clock.tick(10);
  debouncer.setSyncMode(false);
  await clock.tick(0);
  assert.equal(clock.now(), INTERVAL + 10);
  assert.deepEqual(counts(calls), [
    batch({ created: 1, isInitialSync: true }),
    batch({ created: 2, isInitialSync: true }),
    batch({ created: 3, isInitialSync: true }),
  ]);
  assert.equal(debouncer.initialCount, 6);
  await clock.tick(INTERVAL);
  debouncer.recordUpdate();
  await clock.tick(0);
  assert.deepEqual(counts(calls)[3], batch({ modified: 1 }));
  await debouncer.stop();
});

Deno.test("Debouncer.flush() fires even when nothing accumulated", async () => {
  const { calls, debouncer } = setup();
  const flushing = debouncer.flush();
  assert.equal(calls.length, 1, "starts before flush() returns");
  await flushing;
  assert.equal(calls[0].isEmpty, true);
  assert.equal(calls[0].isInitialSync, false);
  await debouncer.stop();
});

Deno.test("Debouncer.flush() fires in sync mode and cancels the pending timer", async () => {
  const { clock, calls, debouncer } = setup();
  debouncer.setSyncMode(true);
  debouncer.recordCreate(2);
  await debouncer.flush();
  assert.deepEqual(counts(calls), [batch({ created: 2, isInitialSync: true })]);
  debouncer.setSyncMode(false);

  debouncer.recordUpdate(); // inside the interval since the flush: timer
  assert.equal(clock.pendingTimers, 1);
  await debouncer.flush();
  assert.equal(clock.pendingTimers, 0);
  assert.deepEqual(counts(calls)[1], batch({ modified: 1 }));
  await clock.runAll();
  assert.equal(calls.length, 2);
  await debouncer.stop();
});

Deno.test("Debouncer.stop() cancels what is pending and ignores later records", async () => {
  const { clock, calls, debouncer } = setup();
  debouncer.recordCreate();
  await clock.tick(0);
  debouncer.recordUpdate();
  assert.equal(clock.pendingTimers, 1);
  await debouncer.stop();
  assert.equal(clock.pendingTimers, 0);
  debouncer.recordCreate();
  debouncer.setSyncMode(true);
  debouncer.recordCreate();
  debouncer.setSyncMode(false);
  await debouncer.flush();
  await clock.tick(10_000);
  assert.equal(calls.length, 1);
  await debouncer.stop(); // idempotent
});

Deno.test("Debouncer.stop() drops a leading-edge call not yet started", async () => {
  const { clock, calls, debouncer } = setup();
  debouncer.recordCreate();
  await debouncer.stop();
  await clock.tick(10_000);
  assert.equal(calls.length, 0);
});

Deno.test("Debouncer never overlaps a slow async onChange", async () => {
  const clock = new FakeClock();
  const gates: PromiseWithResolvers<void>[] = [];
  const calls: ChangeStats[] = [];
  let active = 0;
  let maxActive = 0;
  const debouncer = new Debouncer({
    interval: INTERVAL,
    clock,
    logger: new RecordingLogger(),
    onChange: async (stats) => {
      calls.push(stats);
      active++;
      maxActive = Math.max(maxActive, active);
      const gate = Promise.withResolvers<void>();
      gates.push(gate);
      await gate.promise;
      active--;
    },
  });

  debouncer.recordCreate();
  await clock.tick(100);
  assert.equal(calls.length, 1);
  debouncer.recordUpdate();
  await clock.tick(5_000); // well past the interval: still running
  debouncer.recordDelete();
  assert.equal(calls.length, 1, "the batch waits for the running call");
  assert.equal(clock.pendingTimers, 0);

  gates[0].resolve();
  await settle();
  assert.equal(calls.length, 2, "fires right after the call ends");
  assert.deepEqual(
    counts(calls)[1],
    batch({ modified: 1, deleted: 1 }),
  );
  gates[1].resolve();
  await settle();
  assert.equal(maxActive, 1);
  await debouncer.stop();
});

Deno.test("Debouncer measures the interval from the start of the previous call", async () => {
  const clock = new FakeClock();
  const calls: number[] = [];
  let gate = Promise.withResolvers<void>();
  const debouncer = new Debouncer({
    interval: INTERVAL,
    clock,
    onChange: async () => {
      calls.push(clock.now());
      await gate.promise;
    },
  });
  debouncer.recordCreate();
  await clock.tick(100);
  debouncer.recordUpdate();
  await clock.tick(200);
  gate.resolve(); // the call ends at t = 300, inside the interval
  gate = Promise.withResolvers<void>();
  await clock.tick(0);
  assert.deepEqual(calls, [0]);
  await clock.tick(699);
  assert.deepEqual(calls, [0]);
  await clock.tick(1); // t = 1000
  assert.deepEqual(calls, [0, 1_000]);
  gate.resolve();
  await debouncer.stop();
});

Deno.test("Debouncer.flush() waits for a running call before firing", async () => {
  const clock = new FakeClock();
  const gate = Promise.withResolvers<void>();
  const calls: ChangeStats[] = [];
  const debouncer = new Debouncer({
    interval: INTERVAL,
    clock,
    onChange: async (stats) => {
      calls.push(stats);
      if (calls.length === 1) await gate.promise;
    },
  });
  debouncer.recordCreate();
  await clock.tick(0);
  let flushed = false;
  const flushing = debouncer.flush().then(() => flushed = true);
  debouncer.recordDelete();
  await settle();
  assert.equal(calls.length, 1);
  assert.equal(flushed, false);
  gate.resolve();
  await flushing;
  assert.deepEqual(counts(calls), [
    batch({ created: 1 }),
    batch({ deleted: 1 }),
  ]);
  await clock.runAll();
  assert.equal(calls.length, 2);
  await debouncer.stop();
});

Deno.test("Debouncer.flushPending() fires only what waits, never an empty batch", async () => {
  const { clock, calls, debouncer } = setup();
  await debouncer.flushPending();
  assert.equal(calls.length, 0, "nothing waiting: no call");

  debouncer.recordCreate(); // leading edge
  await clock.tick(0);
  debouncer.recordUpdate(); // held in the refractory window
  await debouncer.flushPending();
  assert.deepEqual(counts(calls), [
    batch({ created: 1 }),
    batch({ modified: 1 }),
  ]);
  await debouncer.flushPending();
  assert.equal(calls.length, 2, "taken already: no empty call");
  await debouncer.stop();
});

Deno.test("Debouncer.flushPending() waits for a running call, which may take what waits", async () => {
  const clock = new FakeClock();
  const gate = Promise.withResolvers<void>();
  const calls: ChangeStats[] = [];
  const debouncer = new Debouncer({
    interval: INTERVAL,
    clock,
    onChange: async (stats) => {
      calls.push(stats);
      if (calls.length === 1) await gate.promise;
    },
  });
  debouncer.recordCreate();
  await clock.tick(0);
  debouncer.recordDelete(); // queued behind the running call
  const flushing = debouncer.flushPending();
  await clock.tick(INTERVAL); // the queued batch falls due meanwhile
  gate.resolve();
  await flushing;
  await clock.runAll();
  assert.deepEqual(counts(calls), [
    batch({ created: 1 }),
    batch({ deleted: 1 }),
  ]);
  await debouncer.stop();
});

Deno.test("Debouncer.stop() waits for a running call and fires nothing after", async () => {
  const clock = new FakeClock();
  const gate = Promise.withResolvers<void>();
  let calls = 0;
  const debouncer = new Debouncer({
    interval: INTERVAL,
    clock,
    onChange: () => {
      calls++;
      return gate.promise;
    },
  });
  debouncer.recordCreate();
  await clock.tick(0);
  debouncer.recordCreate();
  let stopped = false;
  const stopping = debouncer.stop().then(() => stopped = true);
  await settle();
  assert.equal(stopped, false);
  gate.resolve();
  await stopping;
  await clock.runAll();
  assert.equal(calls, 1);
  assert.equal(clock.pendingTimers, 0);
});

Deno.test("Debouncer logs a throwing onChange and goes on", async () => {
  const clock = new FakeClock();
  const logger = new RecordingLogger();
  const seen: number[] = [];
  const debouncer = new Debouncer({
    interval: INTERVAL,
    clock,
    logger,
    onChange: (stats) => {
      seen.push(stats.total);
      if (seen.length === 1) throw new Error("boom");
    },
  });
  debouncer.recordCreate();
  await clock.tick(0);
  debouncer.recordCreate(2);
  await clock.tick(INTERVAL);
  assert.deepEqual(seen, [1, 2]);
  const errors = logger.at("error");
  assert.equal(errors.length, 1);
  assert.equal((errors[0].fields.error as Error).message, "boom");
  assert.equal((errors[0].fields.stats as ChangeStats).total, 1);
  await debouncer.stop();
});

Deno.test("Debouncer logs a rejecting onChange and goes on", async () => {
  const clock = new FakeClock();
  const logger = new RecordingLogger();
  const seen: number[] = [];
  const debouncer = new Debouncer({
    interval: INTERVAL,
    clock,
    logger,
    onChange: async (stats) => {
      seen.push(stats.total);
      await Promise.resolve();
      throw new Error(`rejected ${seen.length}`);
    },
  });
  debouncer.recordUpdate();
  await clock.tick(0);
  debouncer.recordUpdate(3);
  await clock.tick(INTERVAL);
  await debouncer.flush();
  assert.deepEqual(seen, [1, 3, 0]);
  assert.deepEqual(
    logger.at("error").map((r) => (r.fields.error as Error).message),
    ["rejected 1", "rejected 2", "rejected 3"],
  );
  await debouncer.stop();
});

Deno.test("Debouncer delivers changes recorded from inside onChange", async () => {
  const clock = new FakeClock();
  const seen: ChangeStats[] = [];
  const debouncer = new Debouncer({
    interval: INTERVAL,
    clock,
    onChange: (stats) => {
      seen.push(stats);
      if (seen.length === 1) debouncer.recordUpdate();
    },
  });
  debouncer.recordCreate();
  await clock.tick(0);
  assert.equal(seen.length, 1);
  assert.equal(clock.pendingTimers, 1);
  await clock.tick(INTERVAL);
  assert.deepEqual(counts(seen)[1], batch({ modified: 1 }));
  await debouncer.stop();
});

Deno.test("Debouncer.idle() resolves once nothing runs or is scheduled", async () => {
  const clock = new FakeClock();
  const gate = Promise.withResolvers<void>();
  const debouncer = new Debouncer({
    interval: INTERVAL,
    clock,
    onChange: () => gate.promise,
  });
  await debouncer.idle(); // idle from the start
  debouncer.recordCreate();
  let idle = false;
  const waiting = debouncer.idle().then(() => idle = true);
  await clock.tick(0);
  debouncer.recordCreate();
  await clock.tick(5_000);
  assert.equal(idle, false, "a call is running");
  gate.resolve();
  await settle();
  assert.equal(idle, true);
  await waiting;
  await debouncer.stop();
});

Deno.test("Debouncer.idle() waits for a pending timer", async () => {
  const { clock, calls, debouncer } = setup();
  debouncer.recordCreate();
  await clock.tick(0);
  debouncer.recordCreate();
  let idle = false;
  const waiting = debouncer.idle().then(() => idle = true);
  await clock.tick(INTERVAL - 1);
  assert.equal(idle, false);
  await clock.tick(1);
  await waiting;
  assert.equal(calls.length, 2);
  await debouncer.stop();
});

Deno.test("Debouncer rejects bad options and counts", () => {
  const onChange = () => {};
  for (const interval of [0, -5, NaN, Infinity]) {
    assert.throws(
      () => new Debouncer({ interval, onChange }),
      (e: unknown) =>
        e instanceof WatcherConfigError && e.field === "interval" &&
        e.message ===
          `Invalid watcher config: interval: must be a positive number of milliseconds, got ${interval}`,
    );
  }
  assert.throws(
    () =>
      new Debouncer({
        interval: 10,
        onChange: undefined as unknown as () => void,
      }),
    (e: unknown) =>
      e instanceof WatcherConfigError &&
      e.message === "Invalid watcher config: onChange: must be a function",
  );
  const debouncer = new Debouncer({ interval: 10, onChange });
  assert.throws(() => debouncer.recordCreate(-1), RangeError);
  assert.throws(() => debouncer.recordUpdate(1.5), RangeError);
  assert.throws(() => debouncer.recordDelete(NaN), RangeError);
});

Deno.test("Debouncer rejects an interval longer than a timer can wait (2³¹−1 ms)", async () => {
  // Above 2³¹−1 ms, setTimeout fires after 1 ms on Deno, Node and Bun.
  const onChange = () => {};
  assert.throws(
    () => new Debouncer({ interval: 2 ** 31, onChange }),
    (e: unknown) =>
      e instanceof WatcherConfigError &&
      e.message ===
        "Invalid watcher config: interval: must be at most 2147483647 ms (2³¹−1), got 2147483648",
  );
  await new Debouncer({ interval: 2 ** 31 - 1, onChange }).stop();
});

Deno.test("Debouncer ignores zero counts", async () => {
  const { clock, calls, debouncer } = setup();
  debouncer.recordCreate(0);
  debouncer.recordDelete(0);
  await clock.runAll();
  await settle();
  assert.equal(calls.length, 0);
  await debouncer.stop();
});
