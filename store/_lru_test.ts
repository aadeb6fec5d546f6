import assert from "node:assert/strict";
import { LruCache } from "./_lru.ts";
import { FakeClock } from "../testing/fake_clock.ts";

function cache(maxEntries = 3, ttl = 100) {
  const clock = new FakeClock();
  return {
    clock,
    lru: new LruCache<string, number>({ maxEntries, ttl, clock }),
  };
}

Deno.test("LruCache evicts the least recently used entry past capacity", () => {
  const { lru } = cache(2);
  lru.set("a", 1);
  lru.set("b", 2);
  assert.equal(lru.get("a"), 1); // "b" is now the least recently used
  lru.set("c", 3);
  assert.equal(lru.get("b"), undefined);
  assert.equal(lru.get("a"), 1);
  assert.equal(lru.get("c"), 3);
  assert.equal(lru.size, 2);
});

Deno.test("LruCache expires entries ttl after their last access", async () => {
  const { clock, lru } = cache(3, 100);
  lru.set("a", 1);
  await clock.tick(60);
  assert.equal(lru.get("a"), 1); // refreshed: now lives until 160
  await clock.tick(99);
  assert.equal(lru.get("a"), 1); // refreshed again: until 259
  await clock.tick(100);
  assert.equal(lru.get("a"), undefined);
  assert.equal(lru.size, 0);
});

Deno.test("LruCache drops expired entries when inserting", async () => {
  const { clock, lru } = cache(10, 100);
  lru.set("a", 1);
  lru.set("b", 2);
  await clock.tick(100);
  lru.set("c", 3);
  assert.equal(lru.size, 1);
});

Deno.test("LruCache delete and clear", () => {
  const { lru } = cache();
  lru.set("a", 1);
  lru.set("b", 2);
  assert.equal(lru.delete("a"), true);
  assert.equal(lru.delete("a"), false);
  lru.clear();
  assert.equal(lru.get("b"), undefined);
});

Deno.test("LruCache with no capacity keeps nothing", () => {
  const { lru } = cache(0);
  lru.set("a", 1);
  assert.equal(lru.get("a"), undefined);
});

Deno.test("LruCache rejects bad options", () => {
  const clock = new FakeClock();
  assert.throws(
    () => new LruCache({ maxEntries: -1, ttl: 1, clock }),
    /maxEntries must be a non-negative integer but got -1/,
  );
  assert.throws(
    () => new LruCache({ maxEntries: 1, ttl: NaN, clock }),
    /ttl must be a finite number/,
  );
});
