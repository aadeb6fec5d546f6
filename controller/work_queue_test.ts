// The WorkQueue's rules, each on a FakeClock: one worker per key, adds during
// processing, delayed adds, backoff that only failures grow, the shared retry
// budget, priority with aging, shutdown, and the workqueue_* metrics.
import assert from "node:assert/strict";
import { FakeClock } from "../testing/fake_clock.ts";
import { MetricsRegistry } from "../metrics/registry.ts";
import { samples } from "../tests/prometheus_text.ts";
import { WorkQueue } from "./work_queue.ts";
import { ControllerConfigError, WorkQueueShutDownError } from "./errors.ts";

/** Takes every key that waits now, in order, each done at once. */
async function takeAll<K>(queue: WorkQueue<K>): Promise<K[]> {
  const out: K[] = [];
  while (queue.length > 0) {
    const key = (await queue.next())!;
    out.push(key);
    queue.done(key);
  }
  return out;
}

/** Runs the clock to its timers until a key waits; how long that took. */
async function untilWaiting<K>(
  queue: WorkQueue<K>,
  clock: FakeClock,
): Promise<number> {
  const before = clock.now();
  while (queue.length === 0) await clock.tick(clock.nextDue! - clock.now());
  return clock.now() - before;
}

Deno.test("WorkQueue: a key waits once, and is never handed to two workers", async () => {
  await using queue = new WorkQueue<string>({ clock: new FakeClock() });
  queue.add("a");
  queue.add("a");
  queue.add("b");
  assert.equal(queue.length, 2);
  const first = await queue.next();
  assert.equal(first, "a");
  // Added again while a worker holds it: not handed out to a second one.
  queue.add("a");
  assert.equal(queue.length, 1);
  assert.equal(await queue.next(), "b");
  assert.equal(queue.length, 0);
  assert.deepEqual([...queue.processing].sort(), ["a", "b"]);
  queue.done("a");
  // Now it waits again, once.
  assert.equal(queue.length, 1);
  assert.equal(await queue.next(), "a");
  queue.done("a");
  queue.done("b");
  assert.equal(queue.length, 0);
  assert.equal(queue.processing.size, 0);
});

Deno.test("WorkQueue: a burst of adds during a key's processing costs one more", async () => {
  await using queue = new WorkQueue<string>({ clock: new FakeClock() });
  queue.add("a");
  const key = (await queue.next())!;
  for (let i = 0; i < 100; i++) queue.add("a");
  queue.done(key);
  assert.deepEqual(await takeAll(queue), ["a"]);
  queue.done("a");
  assert.equal(queue.length, 0);
});

Deno.test("WorkQueue: a waiting worker gets the next key added", async () => {
  await using queue = new WorkQueue<string>({ clock: new FakeClock() });
  const waiting = queue.next();
  queue.add("a");
  assert.equal(await waiting, "a");
  queue.done("a");
});

Deno.test("WorkQueue: next(signal) stops waiting with the signal's reason", async () => {
  await using queue = new WorkQueue<string>({ clock: new FakeClock() });
  const controller = new AbortController();
  const waiting = queue.next(controller.signal);
  controller.abort(new Error("worker stopped"));
  await assert.rejects(waiting, /worker stopped/);
  // The abandoned wait does not swallow the next key.
  queue.add("a");
  assert.equal(queue.length, 1);
  await assert.rejects(queue.next(AbortSignal.abort(new Error("no"))), /no/);
});

Deno.test("WorkQueue: of several delayed adds of a key, the earliest wins", async () => {
  const clock = new FakeClock();
  await using queue = new WorkQueue<string>({ clock });
  queue.addAfter("a", 300_000);
  queue.addAfter("a", 60_000);
  queue.addAfter("a", 120_000); // later than the pending one: no change
  assert.equal(clock.pendingTimers, 1);
  await clock.tick(59_999);
  assert.equal(queue.length, 0);
  await clock.tick(1);
  assert.equal(queue.length, 1);
  assert.equal(clock.pendingTimers, 0);
  // At once with 0, and a key already waiting is not added twice.
  queue.addAfter("a", 0);
  queue.addAfter("b", 0);
  assert.deepEqual(await takeAll(queue), ["a", "b"]);
});

Deno.test("WorkQueue: addAfter() adds at once for a past deadline, refuses a delay that is not a number", async () => {
  const clock = new FakeClock();
  await using queue = new WorkQueue<string>({ clock });
  for (const ms of [Number.NaN, Infinity, "5" as unknown as number]) {
    assert.throws(
      () => queue.addAfter("a", ms),
      (error: unknown) =>
        error instanceof RangeError &&
        /^addAfter\(\) delay must be a finite number of milliseconds/.test(
          error.message,
        ),
      String(ms),
    );
  }
  queue.addAfter("late", -3); // a deadline 3 ms past
  assert.equal(queue.length, 1);
  queue.addAfter("month", 30 * 24 * 3_600_000); // longer than one timer
  assert.equal(clock.pendingTimers, 1);
  assert.deepEqual(await takeAll(queue), ["late"]);
});

Deno.test("WorkQueue: a failing key backs off 5 ms doubling, capped, reset by forget()", async () => {
  const clock = new FakeClock();
  await using queue = new WorkQueue<string>({
    clock,
    backoff: { maxMs: 40 },
  });
  const delays: number[] = [];
  for (let failure = 0; failure < 6; failure++) {
    queue.addRateLimited("a");
    delays.push(await untilWaiting(queue, clock));
    queue.done((await queue.next())!);
  }
  assert.deepEqual(delays, [5, 10, 20, 40, 40, 40]);
  assert.equal(queue.retries("a"), 6);
  queue.forget("a");
  assert.equal(queue.retries("a"), 0);
  queue.addRateLimited("a");
  assert.equal(await untilWaiting(queue, clock), 5);
});

Deno.test("WorkQueue: adds that are not failures do not grow the backoff", async () => {
  const clock = new FakeClock();
  await using queue = new WorkQueue<string>({ clock });
  queue.addRateLimited("a");
  await clock.tick(5);
  queue.done((await queue.next())!);
  for (let i = 0; i < 10; i++) {
    queue.add("a");
    queue.addAfter("a", 1000);
    queue.done((await queue.next())!);
    await clock.tick(1000);
    queue.done((await queue.next())!);
  }
  assert.equal(queue.retries("a"), 1);
  queue.addRateLimited("a");
  assert.equal(
    await untilWaiting(queue, clock),
    10,
    "the second failure's delay",
  );
});

Deno.test("WorkQueue: retryRateLimit shares a budget between the keys' retries", async () => {
  const clock = new FakeClock();
  await using queue = new WorkQueue<string>({
    clock,
    retryRateLimit: { perSecond: 2, burst: 2 },
  });
  // Two go with their own backoff (the burst), the third waits for a token
  // (500 ms at two per second), the fourth for the one after it.
  for (const key of ["a", "b", "c", "d"]) queue.addRateLimited(key);
  await clock.tick(5);
  assert.deepEqual((await takeAll(queue)).sort(), ["a", "b"]);
  await clock.tick(494);
  assert.equal(queue.length, 0);
  await clock.tick(1);
  assert.deepEqual(await takeAll(queue), ["c"]);
  await clock.tick(500);
  assert.deepEqual(await takeAll(queue), ["d"]);
  for (const key of ["a", "b", "c", "d"]) queue.done(key);
});

Deno.test("WorkQueue: low-priority keys wait behind live ones until they age, then take turns", async () => {
  const clock = new FakeClock();
  await using queue = new WorkQueue<string>({ clock, agingMs: 1000 });
  for (const key of ["l1", "l2", "l3"]) queue.add(key, { priority: "low" });
  queue.add("e1");
  queue.add("e2");
  queue.done((await queue.next())!); // e1
  await clock.tick(1000);
  queue.add("e3");
  queue.add("e4");
  // l1..l3 have waited 1000 ms: they alternate with the live keys.
  assert.deepEqual(await takeAll(queue), [
    "l1",
    "e2",
    "l2",
    "e3",
    "l3",
    "e4",
  ]);
});

Deno.test("WorkQueue: a live add of a low-priority key moves it ahead, keeping its wait", async () => {
  const clock = new FakeClock();
  const registry = new MetricsRegistry();
  await using queue = new WorkQueue<string>({
    clock,
    meter: registry,
    name: "q",
  });
  queue.add("listed", { priority: "low" });
  queue.add("other", { priority: "low" });
  queue.add("live");
  await clock.tick(2000);
  queue.add("other"); // an event for it: live now
  queue.add("other", { priority: "low" }); // does not send it back
  assert.equal(queue.length, 3);
  assert.deepEqual(await takeAll(queue), ["live", "other", "listed"]);
  const text = samples(registry.render());
  // Three keys were added (the repeats were not), each waited 2 s.
  assert.equal(text.get('workqueue_adds_total{name="q"}'), 3);
  assert.equal(text.get('workqueue_queue_duration_seconds_count{name="q"}'), 3);
  assert.equal(text.get('workqueue_queue_duration_seconds_sum{name="q"}'), 6);
});

Deno.test("WorkQueue: shutDown() wakes the workers, drops waiting and delayed keys, refuses adds", async () => {
  const clock = new FakeClock();
  const queue = new WorkQueue<string>({ clock, name: "widgets" });
  const waiting = queue.next();
  queue.addAfter("later", 1000);
  queue.addRateLimited("failed");
  await queue.shutDown();
  assert.equal(await waiting, undefined);
  assert.equal(await queue.next(), undefined);
  assert.equal(clock.pendingTimers, 0);
  assert.equal(queue.isShutDown, true);
  for (
    const [call, add] of [
      ["add()", () => queue.add("a")],
      ["addAfter()", () => queue.addAfter("a", 5)],
      ["addRateLimited()", () => queue.addRateLimited("a")],
    ] as const
  ) {
    assert.throws(
      add,
      (error: unknown) =>
        error instanceof WorkQueueShutDownError && error.call === call &&
        error.message ===
          `${call} on work queue widgets after shutDown(): the key would never be processed`,
    );
  }
});

Deno.test("WorkQueue: shutDown({ drain: true }) resolves when the work in flight is done", async () => {
  const queue = new WorkQueue<string>({ clock: new FakeClock() });
  queue.add("a");
  queue.add("b");
  queue.add("c");
  const a = (await queue.next())!;
  const b = (await queue.next())!;
  queue.add("a"); // would run again after done, but the queue is stopping
  let drained = false;
  const stopped = queue.shutDown({ drain: true }).then(() => drained = true);
  queue.done(a);
  await Promise.resolve();
  assert.equal(drained, false);
  assert.equal(queue.length, 0, "neither c nor the rerun of a waits");
  queue.done(b);
  await stopped;
  assert.equal(drained, true);
  assert.equal(await queue.next(), undefined);
});

Deno.test("WorkQueue: its metrics are client-go's, by name", async () => {
  const clock = new FakeClock();
  const registry = new MetricsRegistry();
  const queue = new WorkQueue<string>({ clock, meter: registry, name: "w" });
  await using _other = new WorkQueue<string>({
    clock,
    meter: registry,
    name: "x",
  });
  queue.add("a");
  queue.add("a");
  queue.add("b");
  await clock.tick(2000);
  const a = (await queue.next())!;
  await clock.tick(500);
  const b = (await queue.next())!;
  await clock.tick(1500);
  let text = samples(registry.render());
  assert.equal(text.get('workqueue_depth{name="w"}'), 0);
  assert.equal(text.get('workqueue_depth{name="x"}'), 0);
  assert.equal(text.get('workqueue_adds_total{name="w"}'), 2);
  assert.equal(text.get('workqueue_adds_total{name="x"}'), 0);
  assert.equal(text.get('workqueue_queue_duration_seconds_sum{name="w"}'), 4.5);
  // a for 2 s, b for 1.5 s.
  assert.equal(text.get('workqueue_unfinished_work_seconds{name="w"}'), 3.5);
  assert.equal(
    text.get('workqueue_longest_running_processor_seconds{name="w"}'),
    2,
  );
  queue.done(a);
  queue.done(b);
  queue.addRateLimited("a");
  text = samples(registry.render());
  assert.equal(text.get('workqueue_work_duration_seconds_count{name="w"}'), 2);
  assert.equal(text.get('workqueue_work_duration_seconds_sum{name="w"}'), 3.5);
  assert.equal(text.get('workqueue_retries_total{name="w"}'), 1);
  assert.equal(text.get('workqueue_unfinished_work_seconds{name="w"}'), 0);
  assert.equal(
    text.get('workqueue_work_duration_seconds_bucket{name="w",le="10"}'),
    2,
  );
  await queue.shutDown({ drain: true });
  // A queue that is shut down no longer reports its gauges.
  text = samples(registry.render());
  assert.equal(text.has('workqueue_depth{name="w"}'), false);
  assert.equal(text.has('workqueue_depth{name="x"}'), true);
});

Deno.test("WorkQueue: a wrong option is a ControllerConfigError naming it", () => {
  const cases: [unknown, string, RegExp][] = [
    [{ backoff: { baseMs: 0 } }, "backoff.baseMs", /must be a positive number/],
    [
      { backoff: { baseMs: 10, maxMs: 5 } },
      "backoff.maxMs",
      /at least backoff\.baseMs \(10\), got 5/,
    ],
    [
      { retryRateLimit: { perSecond: 0, burst: 1 } },
      "retryRateLimit.perSecond",
      /positive number/,
    ],
    [
      { retryRateLimit: { perSecond: 1, burst: 0.5 } },
      "retryRateLimit.burst",
      /positive whole number/,
    ],
    [{ agingMs: -5 }, "agingMs", /positive number of milliseconds/],
    [{ meter: {} }, "meter", /must be a Meter/],
    [{ clock: { now: () => 0 } }, "clock", /must be a Clock/],
    [{ name: 7 }, "name", /must be a string/],
    [{ backof: {} }, "backof", /backoff/],
  ];
  for (const [options, field, message] of cases) {
    assert.throws(
      () => new WorkQueue(options as never),
      (error: unknown) =>
        error instanceof ControllerConfigError && error.field === field &&
        error.message.startsWith(`Invalid WorkQueue options: ${field}: `) &&
        message.test(error.message),
      JSON.stringify(options),
    );
  }
});

Deno.test("WorkQueue: a live event for an aged low-priority key does not make it wait longer", async () => {
  const clock = new FakeClock();
  await using queue = new WorkQueue<string>({ clock, agingMs: 1000 });
  queue.add("L", { priority: "low" });
  await clock.tick(999);
  for (let i = 0; i < 5; i++) queue.add(`e${i}`);
  queue.add("L"); // an event for it
  await clock.tick(1);
  assert.deepEqual(await takeAll(queue), ["L", "e0", "e1", "e2", "e3", "e4"]);
});

Deno.test("WorkQueue: a low-priority key served early by an event waits its new turn when added again", async () => {
  const clock = new FakeClock();
  await using queue = new WorkQueue<string>({ clock, agingMs: 1000 });
  queue.add("L", { priority: "low" });
  queue.add("x", { priority: "low" });
  queue.add("L"); // an event: L is served from the live line
  const l = (await queue.next())!;
  assert.equal(l, "L");
  queue.done(l);
  queue.add("e");
  queue.add("L"); // added again, behind e: its old low-priority turn is spent
  await clock.tick(1000);
  assert.deepEqual(await takeAll(queue), ["x", "e", "L"]);
});

Deno.test("WorkQueue: a rerun or a delayed add keeps the highest rank it was given", async () => {
  const clock = new FakeClock();
  await using queue = new WorkQueue<string>({ clock, agingMs: 60_000 });
  queue.add("r");
  const r = (await queue.next())!;
  queue.add("r", { priority: "low" });
  queue.add("r"); // live: the rerun is live
  queue.add("x", { priority: "low" });
  queue.done(r);
  queue.addAfter("d", 10, { priority: "low" });
  queue.addAfter("d", 20); // later: absorbed, but its rank counts
  await clock.tick(10);
  queue.addAfter("e", 20);
  queue.addAfter("e", 10, { priority: "low" }); // earlier: wins, rank kept
  await clock.tick(10);
  queue.add("y", { priority: "low" });
  assert.deepEqual(await takeAll(queue), ["r", "d", "e", "x", "y"]);
});

Deno.test("WorkQueue: a rerun's wait counts from its add, and depth counts it", async () => {
  const clock = new FakeClock();
  const registry = new MetricsRegistry();
  await using queue = new WorkQueue<string>({
    clock,
    meter: registry,
    name: "rerun",
  });
  queue.add("a");
  const a = (await queue.next())!;
  queue.add("a");
  let text = samples(registry.render());
  assert.equal(text.get('workqueue_depth{name="rerun"}'), 1);
  await clock.tick(3000);
  queue.done(a);
  queue.done((await queue.next())!);
  text = samples(registry.render());
  assert.equal(
    text.get('workqueue_queue_duration_seconds_sum{name="rerun"}'),
    3,
  );
  queue.addAfter("b", 5);
  queue.addRateLimited("c");
  text = samples(registry.render());
  assert.equal(text.get('workqueue_retries_total{name="rerun"}'), 2);
});

Deno.test("WorkQueue: a held key's retry during a drain is ignored; another key's add throws", async () => {
  const queue = new WorkQueue<string>({ clock: new FakeClock() });
  queue.add("a");
  const a = (await queue.next())!;
  const stopped = queue.shutDown({ drain: true });
  queue.addRateLimited(a); // the worker's usual catch: no throw
  queue.add(a);
  queue.addAfter(a, 10);
  assert.throws(() => queue.add("b"), WorkQueueShutDownError);
  queue.done(a);
  await stopped;
  assert.equal(await queue.next(), undefined);
  assert.throws(() => queue.add(a), WorkQueueShutDownError);
});

Deno.test("WorkQueue: two running queues of one name on a meter are refused", async () => {
  const registry = new MetricsRegistry();
  const first = new WorkQueue<string>({ meter: registry, name: "w" });
  assert.throws(
    () => new WorkQueue<string>({ meter: registry, name: "w" }),
    (error: unknown) =>
      error instanceof ControllerConfigError && error.field === "name" &&
      /another WorkQueue that is not shut down reports on this meter as "w"/
        .test(error.message),
  );
  await first.shutDown();
  await using _again = new WorkQueue<string>({ meter: registry, name: "w" });
});

Deno.test("WorkQueue: a key handed to a waiting next(signal) leaves no listener on the signal", async () => {
  await using queue = new WorkQueue<string>({ clock: new FakeClock() });
  const signal = new AbortController().signal;
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
  const waiting = queue.next(signal);
  assert.equal(listeners, 1);
  queue.add("a");
  queue.done((await waiting)!);
  assert.equal(listeners, 0);
});
