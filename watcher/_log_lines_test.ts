import assert from "node:assert/strict";
import { changeCallbackFailedLine, writerLine } from "./_log_lines.ts";
import { changeStats } from "./change_batch.ts";

Deno.test("writerLine says once per list which configured path objects lacked", () => {
  const all = writerLine(
    { kind: "keyPathMissing", path: "spec.x", skipped: 4, listed: 4 },
    "ingresses.networking.k8s.io",
  );
  assert.equal(all.level, "warn");
  assert.equal(
    all.message,
    "indexBy path spec.x is absent on all 4 listed objects of ingresses.networking.k8s.io; none could be indexed (is the path right?)",
  );
  const some = writerLine(
    { kind: "keyPathMissing", path: "spec.x", skipped: 1, listed: 4 },
    "ingresses.networking.k8s.io",
  );
  assert.match(some.message, /absent on 1 of 4 listed objects .* skipped$/);
  const selector = writerLine(
    { kind: "selectorPathAbsent", path: "spec.ingresClassName", listed: 9 },
    "ingresses.networking.k8s.io",
  );
  assert.equal(selector.level, "warn");
  assert.match(
    selector.message,
    /^fieldSelector path spec\.ingresClassName is absent on all 9 listed objects/,
  );
});

Deno.test("writerLine names the object transform threw for, at error level", () => {
  const error = new Error("boom");
  const namespaced = writerLine(
    { kind: "transformFailed", namespace: "shop", name: "web", error },
    "configmaps",
  );
  assert.equal(namespaced.level, "error");
  assert.equal(
    namespaced.message,
    "transform threw for shop/web; object skipped, the stored version (if any) is kept",
  );
  assert.equal(namespaced.fields.error, error);
  const clusterScoped = writerLine(
    { kind: "transformFailed", namespace: undefined, name: "node-1", error },
    "nodes",
  );
  assert.match(clusterScoped.message, /^transform threw for node-1;/);
});

Deno.test("changeCallbackFailedLine logs the counts, not the objects", () => {
  const error = new Error("boom");
  const batch = {
    ...changeStats({ created: 2 }),
    objects: { created: [{}, {}] },
  };
  const line = changeCallbackFailedLine(error, batch);
  assert.equal(line.level, "error");
  assert.equal(line.message, "Change callback failed");
  assert.deepEqual(line.fields, {
    error,
    stats: { created: 2, modified: 0, deleted: 0, isInitialSync: false },
  });
});
