import assert from "node:assert/strict";
import { Backoff, type BackoffOptions } from "./backoff.ts";
import { FakeClock } from "../testing/fake_clock.ts";

Deno.test("Backoff doubles from 800 ms and caps at 30 s", () => {
  const backoff = new Backoff({ clock: new FakeClock(), jitter: 0 });
  const delays = Array.from({ length: 9 }, () => backoff.next());
  assert.deepEqual(delays, [
    800,
    1_600,
    3_200,
    6_400,
    12_800,
    25_600,
    30_000,
    30_000,
    30_000,
  ]);
  assert.equal(backoff.attempt, 9);
});

Deno.test("Backoff stays at the cap after a very long outage", () => {
  const backoff = new Backoff({ clock: new FakeClock(), jitter: 0 });
  for (let i = 0; i < 5_000; i++) backoff.next();
  assert.equal(backoff.next(), 30_000);
});

Deno.test("Backoff jitter only shortens a delay, by at most the jitter share", () => {
  const low = new Backoff({ clock: new FakeClock(), random: () => 0.999999 });
  const high = new Backoff({ clock: new FakeClock(), random: () => 0 });
  const lows = Array.from({ length: 8 }, () => low.next());
  const highs = Array.from({ length: 8 }, () => high.next());
  assert.deepEqual(highs, [
    800,
    1_600,
    3_200,
    6_400,
    12_800,
    25_600,
    30_000,
    30_000,
  ]);
  assert.deepEqual(lows, [
    640,
    1_280,
    2_560,
    5_120,
    10_240,
    20_480,
    24_000,
    24_000,
  ]);
});

Deno.test("Backoff delays spread over the jitter range with Math.random", () => {
  const backoff = new Backoff({ clock: new FakeClock() });
  const seen = new Set<number>();
  for (let i = 0; i < 200; i++) {
    backoff.reset();
    const delay = backoff.next();
    assert.ok(delay >= 640 && delay <= 800, `delay ${delay} out of range`);
    seen.add(delay);
  }
  assert.ok(seen.size > 20, "jitter should vary the delay");
});

Deno.test("Backoff starts over only after 2 healthy minutes", async () => {
  const clock = new FakeClock();
  const backoff = new Backoff({ clock, jitter: 0 });
  backoff.next();
  backoff.next();
  backoff.markHealthy();
  await clock.tick(119_999);
  assert.equal(backoff.next(), 3_200, "not healthy long enough");

  backoff.markHealthy();
  await clock.tick(60_000);
  backoff.markHealthy(); // later calls do not move the start of healthy time
  await clock.tick(60_000);
  assert.equal(backoff.next(), 800);
  assert.equal(backoff.next(), 1_600);
});

Deno.test("Backoff does not reset on time alone, without a healthy mark", async () => {
  const clock = new FakeClock();
  const backoff = new Backoff({ clock, jitter: 0 });
  backoff.next();
  await clock.tick(600_000);
  assert.equal(backoff.next(), 1_600);
});

Deno.test("Backoff failure clears the healthy mark", async () => {
  const clock = new FakeClock();
  const backoff = new Backoff({ clock, jitter: 0 });
  backoff.markHealthy();
  await clock.tick(100_000);
  assert.equal(backoff.next(), 800);
  await clock.tick(100_000);
  assert.equal(backoff.next(), 1_600, "healthy time ended at the failure");
});

Deno.test("Backoff reset() starts over at once", () => {
  const backoff = new Backoff({ clock: new FakeClock(), jitter: 0 });
  backoff.next();
  backoff.next();
  backoff.reset();
  assert.equal(backoff.attempt, 0);
  assert.equal(backoff.next(), 800);
});

Deno.test("Backoff honours custom options", () => {
  const backoff = new Backoff({
    clock: new FakeClock(),
    initialMs: 10,
    factor: 3,
    maxMs: 100,
    jitter: 0,
  });
  assert.deepEqual([backoff.next(), backoff.next(), backoff.next()], [
    10,
    30,
    90,
  ]);
  assert.equal(backoff.next(), 100);
});

Deno.test("Backoff rejects invalid options with a RangeError naming them", () => {
  assert.throws(
    () => new Backoff({ initialMs: 0 }),
    /initialMs must be positive/,
  );
  assert.throws(() => new Backoff({ initialMs: NaN }), RangeError);
  assert.throws(
    () => new Backoff({ initialMs: 100, maxMs: 50 }),
    /maxMs must be at least initialMs/,
  );
  assert.throws(
    () => new Backoff({ factor: 0.5 }),
    /factor must be at least 1/,
  );
  assert.throws(
    () => new Backoff({ jitter: 1.5 }),
    /jitter must be between 0 and 1/,
  );
  assert.throws(() => new Backoff({ resetAfterMs: -1 }), /resetAfterMs/);
});

Deno.test("Backoff rejects a delay longer than a timer can wait (2³¹−1 ms)", () => {
  // Above 2³¹−1 ms, setTimeout fires after 1 ms on Deno, Node and Bun.
  const limit = 2 ** 31 - 1;
  const cases: [string, BackoffOptions][] = [
    ["maxMs", { maxMs: 2 ** 31 }],
    ["initialMs", { initialMs: 2 ** 31, maxMs: 2 ** 31 }],
  ];
  for (const [field, options] of cases) {
    assert.throws(
      () => new Backoff(options),
      (e: unknown) =>
        e instanceof RangeError &&
        e.message ===
          `Backoff ${field} must be at most 2147483647 ms (2³¹−1), got 2147483648`,
      field,
    );
  }
  const longest = new Backoff({ initialMs: limit, maxMs: limit, jitter: 0 });
  assert.equal(longest.next(), limit);
  assert.equal(longest.next(), limit);
});
