// A Watcher's `ignoreFields` reach its loops, which cut them out of the text
// before the parse; but never a path the source's selector reads as sent.
import assert from "node:assert/strict";
import { Watcher } from "./watcher.ts";
import { FetchClient } from "../client/fetch_client.ts";
import { FakeApiServer } from "../testing/fake_api_server.ts";
import { mockFetch } from "../testing/mock_fetch.ts";
import { FakeClock, waitFor } from "../testing/fake_clock.ts";
import type { KubeObject } from "../types.ts";

const CONFIGMAPS = { group: "", version: "v1", resource: "configmaps" };

function configMap(name: string, manager: string): KubeObject {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: {
      name,
      namespace: "shop",
      managedFields: [{ manager, operation: "Update", fieldsType: "FieldsV1" }],
    },
    data: { a: "1" },
  } as KubeObject;
}

/** Runs `body` with a watcher of `config` over two objects; the texts parsed. */
async function withWatcher(
  config: { fieldSelector?: string },
  body: (watcher: Watcher) => Promise<void>,
): Promise<string[]> {
  const clock = new FakeClock();
  const server = new FakeApiServer({ clock });
  using _fetch = mockFetch(server);
  server.create("configmaps", configMap("a", "kubectl"));
  server.create("configmaps", configMap("b", "helm"));
  const watcher = new Watcher(
    {
      gvr: CONFIGMAPS,
      indexBy: ["metadata.namespace", "metadata.name"],
      ignoreFields: ["metadata.managedFields"],
      onChange: () => {},
      ...config,
    },
    new FetchClient({ server: server.url }),
    { clock },
  );
  const texts: string[] = [];
  const parse = JSON.parse;
  JSON.parse = ((text: string, reviver?: never) => {
    texts.push(text);
    return parse(text, reviver);
  }) as typeof JSON.parse;
  try {
    watcher.start();
    await watcher.waitForSync(AbortSignal.timeout(5_000));
    server.create("configmaps", configMap("c", "kubectl"));
    await waitFor(() => watcher.store.size === (config.fieldSelector ? 2 : 3));
    await body(watcher);
  } finally {
    JSON.parse = parse;
    await watcher.stop();
    await server.close();
  }
  return texts.filter((t) =>
    t.includes('"name":"a"') || t.includes('"name":"c"')
  );
}

Deno.test("Watcher ignoreFields: its loop parses list and events without managedFields", async () => {
  const texts = await withWatcher({}, async (watcher) => {
    const stored = await watcher.store.get("shop");
    assert.deepEqual(stored.map((o) => o.metadata.name).sort(), [
      "a",
      "b",
      "c",
    ]);
    for (const o of stored) assert.equal(o.metadata.managedFields, undefined);
  });
  assert.ok(texts.length >= 2, `${texts.length} texts`);
  for (const text of texts) assert.ok(!text.includes("managedFields"), text);
});

Deno.test("Watcher ignoreFields: a field selector on an ignored path still selects on the object as sent", async () => {
  const texts = await withWatcher(
    { fieldSelector: "metadata.managedFields[0].manager=kubectl" },
    async (watcher) => {
      const stored = await watcher.store.get("shop");
      assert.deepEqual(stored.map((o) => o.metadata.name).sort(), ["a", "c"]);
      for (const o of stored) assert.equal(o.metadata.managedFields, undefined);
    },
  );
  // Not cut: the selector reads it.
  assert.ok(texts.some((text) => text.includes("managedFields")));
});
