import assert from "node:assert/strict";
import { fnv1a64 } from "./_fnv1a64.ts";

const hex = (h: { hi: number; lo: number }) =>
  "0x" + h.hi.toString(16).padStart(8, "0") +
  h.lo.toString(16).padStart(8, "0");

// Expected values from an independent FNV-1a 64 (Python, arbitrary-precision
// integers); the uid's hash is the one kube-apiserver 1.37.2 placed in
// ['0x0000000000000000', '0x8000000000000000').
const VECTORS: [string, string][] = [
  ["", "0xcbf29ce484222325"],
  ["a", "0xaf63dc4c8601ec8c"],
  ["foobar", "0x85944171f73967e8"],
  ["66951add-fd8d-4697-8505-edb434dfde37", "0x0577e1f9dae6033e"],
  ["kube-system", "0xdf65c7bc1d82b35e"],
  ["ünïcødé-名前", "0xe7e02dcccc2412aa"],
  ["x".repeat(300), "0xe78ddf9f1ba85555"],
];

Deno.test("fnv1a64() is FNV-1a 64 over the UTF-8 bytes", () => {
  for (const [text, expected] of VECTORS) {
    assert.equal(hex(fnv1a64(text)), expected, JSON.stringify(text));
  }
});
