import assert from "node:assert/strict";
import { controllerOf } from "./owner_references.ts";

const ref = (extra: Record<string, unknown>) => ({
  apiVersion: "example.com/v1",
  kind: "Widget",
  name: "w",
  uid: "u-1",
  ...extra,
});

Deno.test("controllerOf() finds the one reference with controller: true", () => {
  const child = {
    metadata: {
      ownerReferences: [ref({ name: "other" }), ref({ controller: true })],
    },
  };
  assert.equal(controllerOf(child)?.name, "w");
});

Deno.test("controllerOf() is undefined without a well-formed controller reference", () => {
  assert.equal(controllerOf({ metadata: {} }), undefined);
  assert.equal(controllerOf({}), undefined);
  assert.equal(
    controllerOf({ metadata: { ownerReferences: [ref({})] } }),
    undefined,
  );
  assert.equal(
    controllerOf({
      metadata: { ownerReferences: [ref({ controller: true, uid: 7 })] },
    }),
    undefined,
  );
  assert.equal(
    controllerOf({ metadata: { ownerReferences: "not a list" } }),
    undefined,
  );
});
