import assert from "node:assert/strict";
import { FakeClock } from "./fake_clock.ts";

Deno.test("FakeClock.tick refuses to move time backwards or by a non-number", async () => {
  const clock = new FakeClock({ now: 1_000 });
  let fired = 0;
  clock.setTimeout(() => fired++, 5_000);
  for (const ms of [-1, NaN, Infinity]) {
    await assert.rejects(clock.tick(ms), RangeError);
  }
  assert.equal(fired, 0, "no timer fired early");
  assert.equal(clock.now(), 1_000);
  await clock.tick(5_000);
  assert.equal(fired, 1);
});

Deno.test("FakeClock.setTimeout treats a NaN delay as zero, like setTimeout", async () => {
  const clock = new FakeClock({ now: 1_000 });
  let firedAt: number | undefined;
  clock.setTimeout(() => firedAt = clock.now(), NaN);
  await clock.tick(0);
  assert.equal(firedAt, 1_000);
  assert.equal(clock.now(), 1_000);
});
