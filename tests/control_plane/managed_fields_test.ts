// managedFields against a real kube-apiserver (1.37.2). The server sends
// them on every object and offers no way to leave them out: no feature gate
// of 1.37.2 names such a drop, and a `drop=` parameter of `Accept` is one
// its content negotiation does not know (it answers as if it were absent).
// So the client cuts them (`ignoreFields`, `_json.ts`): out of the
// server's own LIST bodies and watch lines, before the parse. When a
// release honours a drop parameter, the first test fails: ask for it then.
import assert from "node:assert/strict";
import { Watcher } from "../../watcher/watcher.ts";
import type { KubeObject } from "../../types.ts";
import {
  collection,
  CONFIGMAPS,
  create,
  createNamespace,
  eventually,
  patch,
  planeTest,
  sharedControlPlane,
} from "./_harness.ts";

const plane = sharedControlPlane();
const NAMESPACE = "managed-fields";

let seeded: Promise<void> | undefined;
function seed(): Promise<void> {
  return seeded ??= (async () => {
    const p = await plane();
    using admin = p.client();
    await createNamespace(admin, NAMESPACE);
    for (let i = 0; i < 20; i++) {
      await create(admin, CONFIGMAPS, NAMESPACE, {
        metadata: { name: `cm-${i}`, labels: { app: "web" } },
        data: { i: String(i) },
      });
    }
  })();
}

planeTest(
  "kube-apiserver 1.37.2 sends managedFields even when Accept asks to drop them",
  async () => {
    await seed();
    const p = await plane();
    using admin = p.client();
    for (
      const accept of [
        "application/json",
        "application/json;drop=metadata.managedFields",
        "application/json; drop=metadata.managedFields",
      ]
    ) {
      const list = await admin.performRequest({
        method: "GET",
        path: collection(CONFIGMAPS, NAMESPACE),
        accept,
        expectJson: true,
      }) as unknown as { items: KubeObject[] };
      assert.equal(list.items.length, 20, accept);
      for (const item of list.items) {
        assert.ok(
          Array.isArray(item.metadata.managedFields) &&
            item.metadata.managedFields.length > 0,
          `${accept}: ${item.metadata.name} has managedFields`,
        );
      }
    }
  },
);

planeTest(
  "a Watcher ignoring managedFields syncs and follows the real server's objects without them, cut before the parse",
  async () => {
    await seed();
    const p = await plane();
    using admin = p.client();
    using client = p.client();
    const texts: string[] = [];
    const parse = JSON.parse;
    JSON.parse = ((text: string, reviver?: never) => {
      if (text.includes(`"namespace":"${NAMESPACE}"`)) texts.push(text);
      return parse(text, reviver);
    }) as typeof JSON.parse;
    const watcher = new Watcher({
      gvr: CONFIGMAPS,
      namespace: NAMESPACE,
      indexBy: ["metadata.namespace", "metadata.name"],
      ignoreFields: ["metadata.managedFields"],
      onChange: () => {},
    }, client);
    try {
      watcher.start();
      assert.equal(await watcher.waitForSync(AbortSignal.timeout(30_000)), 20);
      await patch(admin, CONFIGMAPS, NAMESPACE, "cm-3", { data: { i: "x" } });
      await eventually(async () => {
        const [cm] = await watcher.store.get(NAMESPACE, "cm-3");
        return (cm as { data?: { i?: string } } | undefined)?.data?.i === "x";
      }, "the patch reaches the store");
    } finally {
      JSON.parse = parse;
      await watcher.stop();
    }
    for (
      const [object] of await Promise.all(
        Array.from(
          { length: 20 },
          (_, i) => watcher.store.get(NAMESPACE, `cm-${i}`),
        ),
      )
    ) {
      assert.equal(object.metadata.managedFields, undefined);
    }
    // The LIST body and the watch line came to the parse without them.
    // (The admin client's answers, single objects, are parsed whole.)
    const bodies = texts.filter((t) =>
      t.includes('"cm-3"') &&
      (t.startsWith('{"type":') || t.includes('"kind":"ConfigMapList"'))
    );
    assert.ok(bodies.length >= 2, `${bodies.length} texts`);
    for (const text of bodies) {
      assert.ok(!text.includes("managedFields"), text.slice(0, 300));
    }
  },
);
