import assert from "node:assert/strict";
import { concatBytes } from "./_concat_bytes.ts";

Deno.test("concatBytes joins chunks in order", () => {
  const joined = concatBytes([
    new Uint8Array([1, 2]),
    new Uint8Array([]),
    new Uint8Array([3]),
  ]);
  assert.deepEqual([...joined], [1, 2, 3]);
  assert.equal(concatBytes([]).byteLength, 0);
});

Deno.test("concatBytes hands back a single chunk without copying it", () => {
  const only = new Uint8Array([7, 8]);
  assert.equal(concatBytes([only]), only);
});
