import assert from "node:assert/strict";
import {
  AlreadyOwnedError,
  controllerOf,
  OwnerReferenceError,
  setControllerReference,
} from "./object_helpers.ts";

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

const widget = (name: string, uid: string, namespace = "shop") => ({
  apiVersion: "example.com/v1",
  kind: "Widget",
  metadata: { name, uid, namespace },
});

Deno.test("setControllerReference() adds the controller reference to a copy, leaving other owners", () => {
  const child = {
    metadata: {
      name: "c",
      namespace: "shop",
      ownerReferences: [ref({ name: "other", uid: "u-9" })],
    },
    data: { x: "1" },
  };
  const owned = setControllerReference(widget("w", "u-1"), child);
  assert.deepEqual(owned.metadata.ownerReferences, [
    ref({ name: "other", uid: "u-9" }),
    ref({ controller: true, blockOwnerDeletion: true }),
  ]);
  assert.deepEqual(owned.data, { x: "1" });
  assert.equal(
    child.metadata.ownerReferences.length,
    1,
    "the input is unchanged",
  );
  assert.equal(controllerOf(owned)?.uid, "u-1");
  const unblocked = setControllerReference(widget("w", "u-1"), child, {
    blockOwnerDeletion: false,
  });
  assert.equal(controllerOf(unblocked)?.blockOwnerDeletion, false);
});

Deno.test("setControllerReference() replaces its own reference (another version, or a plain one) instead of adding a second", () => {
  const child = {
    metadata: {
      namespace: "shop",
      ownerReferences: [ref({ apiVersion: "example.com/v1beta1", uid: "u-1" })],
    },
  };
  const owned = setControllerReference(widget("w", "u-1"), child);
  assert.deepEqual(owned.metadata.ownerReferences, [
    ref({ controller: true, blockOwnerDeletion: true }),
  ]);
  // Setting it again is idempotent.
  assert.deepEqual(setControllerReference(widget("w", "u-1"), owned), owned);
});

Deno.test("setControllerReference() refuses when another owner controls the child", () => {
  const child = {
    metadata: {
      namespace: "shop",
      ownerReferences: [ref({ name: "a", uid: "u-a", controller: true })],
    },
  };
  assert.throws(
    () => setControllerReference(widget("b", "u-b"), child),
    (e: unknown) =>
      e instanceof AlreadyOwnedError && e.existing.uid === "u-a" &&
      e.message ===
        "Cannot make Widget/b the controller: Widget/a (uid u-a) already controls the object",
  );
});

Deno.test("setControllerReference() refuses an owner without kind, name or uid, or in another namespace", () => {
  const child = { metadata: { namespace: "shop" } };
  const field = (f: string) => (e: unknown) =>
    e instanceof OwnerReferenceError && e.field === f;
  assert.throws(
    () => setControllerReference({ ...widget("w", "u"), kind: "" }, child),
    field("kind"),
  );
  assert.throws(
    () => setControllerReference({ kind: "Widget", metadata: {} }, child),
    field("apiVersion"),
  );
  assert.throws(
    () =>
      setControllerReference(
        { ...widget("w", "u"), metadata: { uid: "u" } },
        child,
      ),
    field("metadata.name"),
  );
  assert.throws(
    () => setControllerReference(widget("w", "u", "other"), child),
    (e: unknown) =>
      field("metadata.namespace")(e) &&
      (e as Error).message ===
        "Invalid owner: metadata.namespace: the owner is in other, the object in shop",
  );
  assert.throws(
    () => setControllerReference(widget("w", "u"), { metadata: {} }),
    field("metadata.namespace"),
  );
  // A cluster-scoped owner may own a namespaced object.
  const node = {
    apiVersion: "v1",
    kind: "Node",
    metadata: { name: "n", uid: "n1" },
  };
  assert.equal(controllerOf(setControllerReference(node, child))?.kind, "Node");
});
