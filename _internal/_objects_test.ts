import assert from "node:assert/strict";
import { asPartialObjectMetadata, fnv1a64 } from "./_objects.ts";

Deno.test("asPartialObjectMetadata keeps only the metadata, shared", () => {
  const metadata = { name: "a", namespace: "x", labels: { app: "web" } };
  const pod = {
    apiVersion: "v1",
    kind: "Pod",
    metadata,
    spec: { containers: [] },
    status: { phase: "Running" },
  };
  const partial = asPartialObjectMetadata(pod);
  assert.deepEqual(partial, {
    kind: "PartialObjectMetadata",
    apiVersion: "meta.k8s.io/v1",
    metadata,
  });
  assert.equal(partial.metadata, metadata);
  assert.equal(asPartialObjectMetadata(partial), partial);
  assert.equal(
    asPartialObjectMetadata(pod, "meta.k8s.io/v1beta1").apiVersion,
    "meta.k8s.io/v1beta1",
  );
});

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
