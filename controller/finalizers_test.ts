import assert from "node:assert/strict";
import {
  hasFinalizer,
  withFinalizer,
  withoutFinalizer,
} from "./object_helpers.ts";

const F = "example.com/cleanup";

Deno.test("withFinalizer() adds once to a copy; hasFinalizer() sees it", () => {
  const obj = {
    metadata: { name: "w", finalizers: ["a.io/x"] },
    spec: { n: 1 },
  };
  assert.equal(hasFinalizer(obj, F), false);
  const held = withFinalizer(obj, F);
  assert.deepEqual(held.metadata.finalizers, ["a.io/x", F]);
  assert.equal(hasFinalizer(held, F), true);
  assert.deepEqual(held.spec, { n: 1 });
  assert.deepEqual(
    obj.metadata.finalizers,
    ["a.io/x"],
    "the input is unchanged",
  );
  const again = withFinalizer(held, F);
  assert.deepEqual(again, held);
  assert.notEqual(again.metadata.finalizers, held.metadata.finalizers);
  assert.deepEqual(withFinalizer({}, F).metadata.finalizers, [F]);
});

Deno.test("withoutFinalizer() removes every occurrence from a copy, keeping the others", () => {
  const obj = { metadata: { finalizers: [F, "a.io/x", F] } };
  const released = withoutFinalizer(obj, F);
  assert.deepEqual(released.metadata.finalizers, ["a.io/x"]);
  assert.equal(hasFinalizer(released, F), false);
  assert.deepEqual(obj.metadata.finalizers, [F, "a.io/x", F]);
  assert.deepEqual(
    withoutFinalizer({ metadata: {} }, F).metadata.finalizers,
    [],
  );
  assert.equal(hasFinalizer({}, F), false);
});

Deno.test("the finalizer helpers refuse an empty or non-string name", () => {
  const bad = (e: unknown) =>
    e instanceof TypeError &&
    e.message === 'Invalid finalizer: must be a non-empty string, got ""';
  assert.throws(() => hasFinalizer({}, ""), bad);
  assert.throws(() => withFinalizer({}, ""), bad);
  assert.throws(() => withoutFinalizer({}, ""), bad);
  assert.throws(
    () => withFinalizer({}, 3 as unknown as string),
    /got 3$/,
  );
});
