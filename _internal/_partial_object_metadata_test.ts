import assert from "node:assert/strict";
import { asPartialObjectMetadata } from "./_partial_object_metadata.ts";

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
