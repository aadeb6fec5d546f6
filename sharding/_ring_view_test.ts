import assert from "node:assert/strict";
import {
  compileRanges,
  inRanges,
  intersect,
  permittedRanges,
  rangeOf,
  subtract,
  viewOf,
} from "./_ring_view.ts";
import { HASH_SPACE_END, shardSelector } from "./shard_ring_config.ts";

const h = (value: bigint) => ({
  hi: Number(value >> 32n),
  lo: Number(value & 0xffffffffn),
});

Deno.test("rangeOf() cuts the space into contiguous parts, in identity order, covering it once", () => {
  for (const n of [1, 2, 3, 7, 10]) {
    const view = viewOf(Array.from({ length: n }, (_, i) => `m${(i * 7) % n}`));
    let at = 0n;
    for (const id of view) {
      const [range] = rangeOf(view, id);
      assert.equal(range.start, at);
      assert.ok(range.end > range.start);
      at = range.end;
    }
    assert.equal(at, HASH_SPACE_END);
  }
  assert.deepEqual(rangeOf(["a", "b"], "c"), []);
});

Deno.test("inRanges(): the start is in, the end is out, and a range may end at 2^64", () => {
  const ranges = compileRanges([{ start: 1n << 63n, end: HASH_SPACE_END }]);
  assert.equal(inRanges(ranges, h((1n << 63n) - 1n)), false);
  assert.equal(inRanges(ranges, h(1n << 63n)), true);
  assert.equal(inRanges(ranges, h(HASH_SPACE_END - 1n)), true);
  const lower = compileRanges([{ start: 0n, end: 1n << 63n }]);
  assert.equal(inRanges(lower, h(0n)), true);
  assert.equal(inRanges(lower, h(1n << 63n)), false);
});

Deno.test("subtract() and intersect() over ranges", () => {
  const r = (start: bigint, end: bigint) => ({ start, end });
  assert.deepEqual(subtract([r(0n, 10n)], [r(2n, 4n), r(6n, 20n)]), [
    r(0n, 2n),
    r(4n, 6n),
  ]);
  assert.deepEqual(subtract([r(0n, 10n)], [r(0n, 10n)]), []);
  assert.deepEqual(intersect([r(0n, 5n), r(8n, 12n)], [r(3n, 9n)]), [
    r(3n, 5n),
    r(8n, 9n),
  ]);
});

Deno.test("permittedRanges(): a member's range without what another's acknowledged view gives that one", () => {
  // b acknowledged [a, b] (the upper half); a still has [a] (everything).
  const half = 1n << 63n;
  assert.deepEqual(
    permittedRanges("a", ["a"], [{ identity: "b", acked: ["a", "b"] }]),
    [{ start: 0n, end: half }],
  );
  assert.deepEqual(
    permittedRanges("b", ["a", "b"], [{ identity: "a", acked: ["a"] }]),
    [],
  );
  assert.deepEqual(permittedRanges("a", undefined, []), []);
});

Deno.test("shardSelector() writes the bounds as kube-apiserver 1.37.2 takes them", () => {
  assert.equal(
    shardSelector([{ start: 0n, end: 1n << 62n }, {
      start: 3n << 62n,
      end: HASH_SPACE_END,
    }], "uid"),
    "shardRange(object.metadata.uid, '0x0000000000000000', '0x4000000000000000') || shardRange(object.metadata.uid, '0xc000000000000000', '0x10000000000000000')",
  );
  assert.equal(shardSelector([], "namespace"), "");
});
