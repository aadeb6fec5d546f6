import assert from "node:assert/strict";
import { changeStats } from "./change_batch.ts";

Deno.test("changeStats() defaults every count to zero", () => {
  assert.deepEqual(changeStats(), {
    created: 0,
    modified: 0,
    deleted: 0,
    isInitialSync: false,
    total: 0,
    isEmpty: true,
  });
});

Deno.test("changeStats() derives total and isEmpty", () => {
  const stats = changeStats({
    created: 1,
    modified: 2,
    deleted: 3,
    isInitialSync: true,
  });
  assert.equal(stats.total, 6);
  assert.equal(stats.isEmpty, false);
  assert.equal(stats.isInitialSync, true);
  assert.equal(changeStats({ deleted: 1 }).isEmpty, false);
});

Deno.test("changeStats() returns a frozen object", () => {
  const stats = changeStats({ created: 1 });
  assert.ok(Object.isFrozen(stats));
  assert.throws(() => {
    (stats as { created: number }).created = 5;
  }, TypeError);
});

Deno.test("changeStats() rejects counts that are not non-negative integers", () => {
  for (const bad of [-1, 1.5, NaN, Infinity]) {
    assert.throws(
      () => changeStats({ modified: bad }),
      (e: unknown) =>
        e instanceof RangeError && e.message.includes('"modified"') &&
        e.message.includes(String(bad)),
    );
  }
});
