import assert from "node:assert/strict";
import { RequestTimers } from "./_request_timers.ts";
import { FakeClock } from "../testing/fake_clock.ts";

Deno.test("RequestTimers aborts after idleMs without bytes, with the silence it measured", async () => {
  const clock = new FakeClock();
  const timers = new RequestTimers(clock, new AbortController().signal, {
    idleMs: 1_000,
  });
  await clock.tick(999);
  assert.equal(timers.signal.aborted, false);
  await clock.tick(1);
  assert.equal(timers.signal.aborted, true);
  assert.deepEqual(timers.interrupt, { type: "idleTimeout", idleMs: 1_000 });
  assert.equal((timers.signal.reason as DOMException).name, "TimeoutError");
  timers.close();
  assert.equal(clock.pendingTimers, 0);
});

Deno.test("RequestTimers counts the silence from the last bytes, with one timer at a time", async () => {
  const clock = new FakeClock();
  const timers = new RequestTimers(clock, new AbortController().signal, {
    idleMs: 1_000,
  });
  for (let i = 0; i < 10; i++) {
    await clock.tick(600);
    timers.bytes();
    assert.equal(clock.pendingTimers, 1, "no timer per chunk");
  }
  assert.equal(timers.signal.aborted, false, "6 s of steady bytes");
  await clock.tick(999);
  assert.equal(timers.signal.aborted, false);
  await clock.tick(1);
  assert.equal(timers.signal.aborted, true);
  assert.deepEqual(timers.interrupt, { type: "idleTimeout", idleMs: 1_000 });
  timers.close();
});

Deno.test("RequestTimers does not count silence while the consumer is busy", async () => {
  const clock = new FakeClock();
  const timers = new RequestTimers(clock, new AbortController().signal, {
    idleMs: 1_000,
  });
  timers.pause();
  await clock.tick(5_000);
  assert.equal(timers.signal.aborted, false);
  timers.resume();
  await clock.tick(999);
  assert.equal(timers.signal.aborted, false, "the period starts at resume");
  await clock.tick(1);
  assert.equal(timers.signal.aborted, true);
  timers.close();
});

Deno.test("RequestTimers aborts at the deadline unless it was ended", async () => {
  const clock = new FakeClock();
  const outer = new AbortController().signal;
  const late = new RequestTimers(clock, outer, {
    idleMs: 10_000,
    deadlineMs: 3_000,
  });
  assert.equal(late.hasDeadline, true);
  for (let i = 0; i < 3; i++) {
    await clock.tick(1_000);
    late.bytes();
  }
  assert.equal(late.signal.aborted, true);
  assert.deepEqual(late.interrupt, {
    type: "initialStreamDeadline",
    afterMs: 3_000,
  });
  assert.equal(late.hasDeadline, false);
  late.close();

  const ended = new RequestTimers(clock, outer, {
    idleMs: 10_000,
    deadlineMs: 3_000,
  });
  ended.endDeadline();
  assert.equal(ended.hasDeadline, false);
  await clock.tick(5_000);
  assert.equal(ended.signal.aborted, false);
  ended.close();
  assert.equal(clock.pendingTimers, 0);
});

Deno.test("RequestTimers follows the loop's signal, and close() releases everything", async () => {
  const clock = new FakeClock();
  const loop = new AbortController();
  const timers = new RequestTimers(clock, loop.signal, {
    idleMs: 1_000,
    deadlineMs: 5_000,
  });
  assert.equal(clock.pendingTimers, 2);
  loop.abort(new Error("stopped"));
  assert.equal(timers.signal.aborted, true);
  assert.equal((timers.signal.reason as Error).message, "stopped");
  assert.equal(timers.interrupt, undefined, "no timer interrupted it");
  timers.close();
  assert.equal(clock.pendingTimers, 0);
  await clock.tick(10_000);
  assert.equal(timers.interrupt, undefined);

  // Closing aborts a request nobody stopped, releasing what a client holds.
  const closed = new RequestTimers(clock, new AbortController().signal, {
    idleMs: 1_000,
  });
  closed.close();
  assert.equal(closed.signal.aborted, true);
  assert.equal(clock.pendingTimers, 0);

  // Built on a stopped loop: aborted at once.
  const early = new RequestTimers(clock, AbortSignal.abort("gone"), {
    idleMs: 1_000,
  });
  assert.equal(early.signal.aborted, true);
  early.close();
});

Deno.test("RequestTimers counts the deadline from the last progress", async () => {
  const clock = new FakeClock();
  const timers = new RequestTimers(clock, new AbortController().signal, {
    idleMs: 100_000,
    deadlineMs: 3_000,
  });
  for (let i = 0; i < 5; i++) {
    await clock.tick(2_000);
    timers.progress(clock.now());
  }
  assert.equal(timers.interrupt, undefined, "10 s, progress every 2 s");
  await clock.tick(2_999);
  assert.equal(timers.interrupt, undefined);
  await clock.tick(1);
  assert.deepEqual(timers.interrupt, {
    type: "initialStreamDeadline",
    afterMs: 3_000,
  });
  timers.close();
});
