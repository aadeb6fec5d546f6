import assert from "node:assert/strict";
import { isStatusOnlyChange } from "./single.ts";
import type { KubeObject } from "../types.ts";

/** A Deployment-like object at generation 3, written at resourceVersion 10. */
function deployment(): KubeObject {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: {
      name: "web",
      namespace: "shop",
      uid: "u-1",
      generation: 3,
      resourceVersion: "10",
      labels: { app: "web", tier: "front" },
      annotations: { "example.com/note": "x" },
      finalizers: ["example.com/a", "example.com/b"],
      ownerReferences: [{ kind: "Shop", name: "main", uid: "o-1" }],
      managedFields: [{ manager: "kubectl", operation: "Update" }],
    },
    spec: {
      replicas: 2,
      template: {
        spec: {
          containers: [{ name: "web", ports: [{ containerPort: 80 }] }],
        },
      },
    },
    status: { replicas: 2, readyReplicas: 1 },
  };
}

/** `deployment()` with `change` applied to a fresh copy. */
function changed(change: (obj: KubeObject) => void): KubeObject {
  const obj = deployment();
  change(obj);
  return obj;
}

/** The container list of a `deployment()`. */
function containers(obj: KubeObject): Record<string, unknown>[] {
  // deno-lint-ignore no-explicit-any
  return (obj.spec as any).template.spec.containers;
}

Deno.test("isStatusOnlyChange is true for status, resourceVersion and managedFields changes", () => {
  const before = deployment();
  const cases: [string, (obj: KubeObject) => void][] = [
    ["nothing", () => {}],
    [
      "a status field",
      (o) => void ((o.status as { readyReplicas: number }).readyReplicas = 2),
    ],
    ["the status removed", (o) => void delete o.status],
    ["resourceVersion", (o) => void (o.metadata.resourceVersion = "11")],
    ["managedFields", (o) => void (o.metadata.managedFields = [])],
    ["managedFields removed", (o) => void delete o.metadata.managedFields],
    [
      "all three",
      (o) => {
        o.status = { conditions: [{ type: "Available" }] };
        o.metadata.resourceVersion = "12";
        o.metadata.managedFields = [{ manager: "controller" }];
      },
    ],
  ];
  for (const [what, change] of cases) {
    assert.equal(isStatusOnlyChange(before, changed(change)), true, what);
  }
  // A status appearing where there was none is status-only as well.
  const noStatus = changed((o) => void delete o.status);
  assert.equal(isStatusOnlyChange(noStatus, before), true);
  assert.equal(isStatusOnlyChange(before, before), true, "same reference");
});

Deno.test("isStatusOnlyChange is false for metadata a controller must see", () => {
  const before = deployment();
  const cases: [string, (obj: KubeObject) => void][] = [
    ["a label value", (o) => void (o.metadata.labels!.tier = "back")],
    ["a label added", (o) => void (o.metadata.labels!.new = "1")],
    ["a label removed", (o) => void delete o.metadata.labels!.tier],
    ["all labels removed", (o) => void delete o.metadata.labels],
    [
      "an annotation",
      (o) => void (o.metadata.annotations!["example.com/note"] = "y"),
    ],
    [
      "a finalizer removed",
      (o) => void (o.metadata.finalizers = ["example.com/a"]),
    ],
    [
      "finalizers reordered",
      (o) => void (o.metadata.finalizers = ["example.com/b", "example.com/a"]),
    ],
    ["finalizers emptied", (o) => void (o.metadata.finalizers = [])],
    ["an owner reference", (o) => void (o.metadata.ownerReferences = [])],
    [
      "deletionTimestamp set",
      (o) => void (o.metadata.deletionTimestamp = "2026-01-01T00:00:00Z"),
    ],
    ["the spec", (o) => void ((o.spec as { replicas: number }).replicas = 3)],
    ["a top-level field added", (o) => void (o.extra = { a: 1 })],
    ["kind", (o) => void (o.kind = "StatefulSet")],
  ];
  for (const [what, change] of cases) {
    assert.equal(isStatusOnlyChange(before, changed(change)), false, what);
    assert.equal(
      isStatusOnlyChange(changed(change), before),
      false,
      `${what}, reversed`,
    );
  }
});

Deno.test("isStatusOnlyChange is false across uids and generations", () => {
  const before = deployment();
  assert.equal(
    isStatusOnlyChange(before, changed((o) => void (o.metadata.uid = "u-2"))),
    false,
    "a recreated object",
  );
  assert.equal(
    isStatusOnlyChange(
      before,
      changed((o) => void (o.metadata.generation = 4)),
    ),
    false,
    "a new generation",
  );
});

Deno.test("isStatusOnlyChange counts every change of an object without a generation", () => {
  const cases: [string, number | undefined][] = [
    ["absent", undefined],
    ["zero", 0],
    ["negative", -1],
  ];
  for (const [what, generation] of cases) {
    const before = changed((o) => void (o.metadata.generation = generation));
    if (generation === undefined) delete before.metadata.generation;
    const statusOnly = structuredClone(before);
    statusOnly.status = { replicas: 5 };
    statusOnly.metadata.resourceVersion = "11";
    assert.equal(isStatusOnlyChange(before, statusOnly), false, what);
    assert.equal(
      isStatusOnlyChange(before, structuredClone(before)),
      false,
      `${what}: even an identical copy`,
    );
  }
  const configMap: KubeObject = {
    metadata: { name: "c", uid: "u", resourceVersion: "1" },
    data: { a: "1" },
  };
  assert.equal(
    isStatusOnlyChange(configMap, {
      ...configMap,
      metadata: { ...configMap.metadata, resourceVersion: "2" },
    }),
    false,
  );
  assert.equal(
    isStatusOnlyChange(
      changed((o) => void (o.metadata.generation = "3" as never)),
      changed((o) => void (o.metadata.generation = "3" as never)),
    ),
    false,
    "a generation that is not a number",
  );
});

Deno.test("isStatusOnlyChange compares nested arrays element by element", () => {
  const before = deployment();
  const after = changed((o) =>
    void (containers(o)[0].ports = [{ containerPort: 8080 }])
  );
  assert.equal(isStatusOnlyChange(before, after), false, "a nested value");
  const longer = changed((o) => void containers(o).push({ name: "sidecar" }));
  assert.equal(isStatusOnlyChange(before, longer), false, "a longer array");
  assert.equal(isStatusOnlyChange(longer, before), false, "a shorter array");
  const same = changed((o) =>
    void (containers(o)[0].ports = [{ containerPort: 80 }])
  );
  assert.equal(isStatusOnlyChange(before, same), true, "an equal copy");
  // An array and an object with the same keys are different JSON.
  const asObject = changed((o) =>
    void (o.metadata.finalizers = { 0: "example.com/a", 1: "example.com/b" })
  );
  assert.equal(isStatusOnlyChange(before, asObject), false, "array vs object");
  assert.equal(isStatusOnlyChange(asObject, before), false, "object vs array");
  const withNull = changed((o) =>
    void (o.metadata.annotations = null as never)
  );
  assert.equal(isStatusOnlyChange(before, withNull), false, "object vs null");
  assert.equal(isStatusOnlyChange(withNull, before), false, "null vs object");
  const deep = changed((o) => void (o.spec = { a: [[1, [2, { b: [3] }]]] }));
  const deeper = changed((o) => void (o.spec = { a: [[1, [2, { b: [4] }]]] }));
  assert.equal(isStatusOnlyChange(deep, deeper), false, "deep in arrays");
  assert.equal(
    isStatusOnlyChange(
      deep,
      changed((o) => void (o.spec = { a: [[1, [2, { b: [3] }]]] })),
    ),
    true,
  );
});

Deno.test("isStatusOnlyChange ignores key order and treats undefined as missing", () => {
  const before = deployment();
  const reordered: KubeObject = {
    status: { readyReplicas: 1, replicas: 2 },
    spec: {
      template: {
        spec: {
          containers: [{ ports: [{ containerPort: 80 }], name: "web" }],
        },
      },
      replicas: 2,
    },
    metadata: {
      managedFields: before.metadata.managedFields,
      ownerReferences: [{ uid: "o-1", name: "main", kind: "Shop" }],
      finalizers: ["example.com/a", "example.com/b"],
      annotations: { "example.com/note": "x" },
      labels: { tier: "front", app: "web" },
      resourceVersion: "10",
      generation: 3,
      uid: "u-1",
      namespace: "shop",
      name: "web",
    },
    kind: "Deployment",
    apiVersion: "apps/v1",
  };
  assert.equal(isStatusOnlyChange(before, reordered), true, "key order");
  assert.equal(isStatusOnlyChange(reordered, before), true, "reversed");

  const withUndefined = changed((o) => {
    o.metadata.labels!.gone = undefined as never;
    o.spec = { ...(o.spec as object), paused: undefined };
    o.extra = undefined;
  });
  assert.equal(isStatusOnlyChange(before, withUndefined), true, "undefined");
  assert.equal(isStatusOnlyChange(withUndefined, before), true, "reversed");
  // But null is a value, as in JSON.
  const withNull = changed((o) =>
    void (o.spec = { ...(o.spec as object), paused: null })
  );
  assert.equal(isStatusOnlyChange(before, withNull), false, "null");
  assert.equal(isStatusOnlyChange(withNull, before), false, "null, reversed");
});

Deno.test("isStatusOnlyChange ignores status and resourceVersion only where Kubernetes puts them", () => {
  const before = deployment();
  const nestedStatus = changed((o) =>
    void (o.spec = { ...(o.spec as object), status: "x" })
  );
  const nestedStatus2 = changed((o) =>
    void (o.spec = { ...(o.spec as object), status: "y" })
  );
  assert.equal(
    isStatusOnlyChange(nestedStatus, nestedStatus2),
    false,
    "spec.status",
  );
  const inOwner = changed((o) =>
    void (o.metadata.ownerReferences = [{ resourceVersion: "1" }])
  );
  const inOwner2 = changed((o) =>
    void (o.metadata.ownerReferences = [{ resourceVersion: "2" }])
  );
  assert.equal(
    isStatusOnlyChange(inOwner, inOwner2),
    false,
    "a nested resourceVersion",
  );
  const topLevelRv = changed((o) => void (o.resourceVersion = "1"));
  assert.equal(
    isStatusOnlyChange(before, topLevelRv),
    false,
    "a top-level resourceVersion",
  );
  const metaStatus = changed((o) => void (o.metadata.status = "x"));
  assert.equal(
    isStatusOnlyChange(before, metaStatus),
    false,
    "metadata.status",
  );
});

Deno.test("a listed object, which kube-apiserver sends without apiVersion and kind, and its next watch event differ only in status", () => {
  // Items of a LIST of a built-in type have no apiVersion and kind; watch
  // events' objects do.
  const listed = changed((o) => {
    delete o.apiVersion;
    delete o.kind;
  });
  const event = changed((o) => {
    o.metadata.resourceVersion = "11";
    o.status = { replicas: 2, readyReplicas: 2 };
  });
  assert.equal(isStatusOnlyChange(listed, event), true);
  assert.equal(isStatusOnlyChange(event, listed), true);
  // Both present and different is still a difference.
  assert.equal(
    isStatusOnlyChange(deployment(), changed((o) => o.apiVersion = "apps/v2")),
    false,
  );
});
