import assert from "node:assert/strict";
import { systemClock } from "./clock.ts";

/**
 * Replaces the global timers with ones that only record what they were
 * asked, so a delay of weeks can be checked without waiting for it.
 */
function recordingTimers(): Disposable & {
  armed: Map<number, { fn: () => void; ms: number }>;
  fire(): void;
} {
  const original = { setTimeout, clearTimeout };
  const armed = new Map<number, { fn: () => void; ms: number }>();
  let next = 0;
  globalThis.setTimeout = ((fn: () => void, ms: number) => {
    armed.set(++next, { fn, ms });
    return next;
  }) as unknown as typeof setTimeout;
  globalThis.clearTimeout = ((id: number) => {
    armed.delete(id);
  }) as unknown as typeof clearTimeout;
  return {
    armed,
    /** Runs the one armed timer, as the runtime would when it is due. */
    fire() {
      assert.equal(armed.size, 1);
      const [[id, { fn }]] = armed;
      armed.delete(id);
      fn();
    },
    [Symbol.dispose]() {
      Object.assign(globalThis, original);
    },
  };
}

Deno.test("systemClock waits the whole of a delay longer than 2³¹−1 ms, in steps a timer can wait", () => {
  // setTimeout fires after 1 ms when asked for more than 2³¹−1 ms.
  using timers = recordingTimers();
  let fired = 0;
  systemClock.setTimeout(() => fired++, 5_000_000_000);
  const steps: number[] = [];
  while (fired === 0) {
    steps.push([...timers.armed.values()][0].ms);
    timers.fire();
  }
  assert.deepEqual(steps, [
    2 ** 31 - 1,
    2 ** 31 - 1,
    5_000_000_000 - 2 * (2 ** 31 - 1),
  ]);
  assert.equal(fired, 1);
  assert.equal(timers.armed.size, 0);
});

Deno.test("systemClock cancels a long delay at any of its steps", () => {
  using timers = recordingTimers();
  const first = systemClock.setTimeout(() => assert.fail("cancelled"), 3e9);
  systemClock.clearTimeout(first);
  assert.equal(timers.armed.size, 0);
  const second = systemClock.setTimeout(() => assert.fail("cancelled"), 3e9);
  timers.fire(); // the first step: the rest is armed
  assert.equal(timers.armed.size, 1);
  systemClock.clearTimeout(second);
  assert.equal(timers.armed.size, 0);
});

Deno.test("systemClock hands a delay up to 2³¹−1 ms to setTimeout as it is", () => {
  using timers = recordingTimers();
  let fired = false;
  const handle = systemClock.setTimeout(() => fired = true, 2 ** 31 - 1);
  assert.deepEqual([...timers.armed.values()].map((t) => t.ms), [2 ** 31 - 1]);
  timers.fire();
  assert.equal(fired, true);
  systemClock.clearTimeout(handle); // a fired handle is ignored
});
