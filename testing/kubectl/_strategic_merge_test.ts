import assert from "node:assert/strict";
import {
  applyStrategicMergePatch,
  StrategicMergeError,
} from "./_strategic_merge.ts";

const deployment = () => ({
  metadata: { name: "web", finalizers: ["a", "b"] },
  spec: {
    strategy: { type: "RollingUpdate", rollingUpdate: { maxSurge: 1 } },
    template: {
      spec: {
        containers: [
          {
            name: "web",
            image: "nginx:1",
            ports: [{ containerPort: 80 }, { containerPort: 443 }],
            env: [{ name: "A", value: "1" }, { name: "B", value: "2" }],
          },
          { name: "sidecar", image: "envoy:1" },
        ],
        tolerations: [{ key: "x" }, { key: "y" }],
      },
    },
  },
});

Deno.test("strategic merge: kubectl's apply patch merges lists by key and honours directives", () => {
  // What kubectl 1.32 sent to move deploy1.yaml to deploy2.yaml.
  const patch = {
    spec: {
      strategy: {
        $retainKeys: ["type"],
        rollingUpdate: null,
        type: "Recreate",
      },
      template: {
        spec: {
          "$setElementOrder/containers": [{ name: "web" }],
          containers: [
            {
              "$setElementOrder/env": [{ name: "B" }, { name: "C" }],
              "$setElementOrder/ports": [{ containerPort: 80 }],
              env: [{ name: "C", value: "3" }, { $patch: "delete", name: "A" }],
              image: "nginx:2",
              name: "web",
              ports: [{ $patch: "delete", containerPort: 443 }],
            },
            { $patch: "delete", name: "sidecar" },
          ],
        },
      },
    },
  };
  const before = deployment();
  const after = applyStrategicMergePatch(before, patch, "Deployment");
  assert.deepEqual(after.spec, {
    strategy: { type: "Recreate" },
    template: {
      spec: {
        containers: [{
          name: "web",
          image: "nginx:2",
          ports: [{ containerPort: 80 }],
          env: [{ name: "B", value: "2" }, { name: "C", value: "3" }],
        }],
        tolerations: [{ key: "x" }, { key: "y" }],
      },
    },
  });
  assert.deepEqual(before, deployment(), "the target is not modified");
});

Deno.test("strategic merge: lists without a merge key are replaced, known keys merge without $setElementOrder", () => {
  const after = applyStrategicMergePatch(deployment(), {
    spec: {
      template: {
        spec: {
          tolerations: [{ key: "z" }],
          containers: [{ name: "sidecar", image: "envoy:2" }],
        },
      },
    },
  }, "Deployment");
  const spec = (after.spec as { template: { spec: Record<string, unknown> } })
    .template.spec;
  assert.deepEqual(spec.tolerations, [{ key: "z" }]);
  assert.deepEqual(
    (spec.containers as { name: string; image: string }[]).map((c) =>
      `${c.name}=${c.image}`
    ),
    ["web=nginx:1", "sidecar=envoy:2"],
  );
});

Deno.test("strategic merge: primitive lists merge as sets with $deleteFromPrimitiveList and order", () => {
  const after = applyStrategicMergePatch(deployment(), {
    metadata: {
      "$setElementOrder/finalizers": ["c", "b"],
      "$deleteFromPrimitiveList/finalizers": ["a"],
      finalizers: ["c"],
    },
  }, "Deployment");
  assert.deepEqual(
    (after.metadata as { finalizers: string[] }).finalizers,
    ["c", "b"],
  );
});

Deno.test("strategic merge: $patch replace and delete on maps and lists", () => {
  const target = {
    spec: { selector: { a: "1", b: "2" }, ports: [{ port: 80 }, { port: 81 }] },
  };
  const replaced = applyStrategicMergePatch(target, {
    spec: {
      selector: { $patch: "replace", c: "3" },
      ports: [{ $patch: "replace" }, { port: 90 }],
    },
  }, "Service");
  assert.deepEqual(replaced.spec, {
    selector: { c: "3" },
    ports: [{ port: 90 }],
  });
  const deleted = applyStrategicMergePatch(target, {
    spec: { selector: { $patch: "delete" } },
  }, "Service");
  assert.deepEqual(deleted.spec, { ports: [{ port: 80 }, { port: 81 }] });
  // Service ports merge on port.
  const merged = applyStrategicMergePatch(target, {
    spec: { ports: [{ port: 81, name: "alt" }] },
  }, "Service");
  assert.deepEqual((merged.spec as { ports: unknown }).ports, [
    { port: 80 },
    { port: 81, name: "alt" },
  ]);
});

Deno.test("strategic merge: unknown directives and non-object patches are errors", () => {
  assert.throws(
    () => applyStrategicMergePatch({}, { $foo: 1 }, "Pod"),
    StrategicMergeError,
  );
  assert.throws(
    () => applyStrategicMergePatch({}, { spec: { $patch: "nope" } }, "Pod"),
    /unknown \$patch directive "nope" at spec/,
  );
  assert.throws(
    () => applyStrategicMergePatch({}, [], "Pod"),
    /must be a JSON object/,
  );
  assert.throws(
    () => applyStrategicMergePatch({}, { $patch: "delete" }, "Pod"),
    /cannot delete the whole object/,
  );
  assert.throws(
    () =>
      applyStrategicMergePatch(
        { spec: { containers: [{ name: "a" }] } },
        { spec: { containers: [{ image: "x" }] } },
        "Pod",
      ),
    /spec\.containers merges on name, so each element must be an object with a name/,
  );
});

Deno.test("strategic merge: without $setElementOrder, the patch's elements lead, the stored ones keep their places", () => {
  const names = (patch: unknown[]) =>
    (applyStrategicMergePatch(
      { spec: { containers: [{ name: "a" }, { name: "b" }] } },
      { spec: { containers: patch } },
      "Pod",
    ).spec as { containers: { name: string }[] }).containers.map((c) => c.name);
  // kube-apiserver 1.37 answers these (tests/control_plane/conformance_test.ts).
  assert.deepEqual(names([{ name: "new" }]), ["new", "a", "b"]);
  assert.deepEqual(names([{ name: "b", image: "x" }, { name: "new" }]), [
    "a",
    "b",
    "new",
  ]);
  assert.deepEqual(names([{ name: "new" }, { name: "b" }]), ["new", "a", "b"]);
  // Both stored: the patch's order wins.
  assert.deepEqual(names([{ name: "b" }, { name: "a" }]), ["b", "a"]);
  assert.deepEqual(names([{ name: "a", $patch: "delete" }, { name: "c" }]), [
    "c",
    "b",
  ]);
});
