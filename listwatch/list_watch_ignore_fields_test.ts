// `ignoreFields` of the loop: no listed object and no event's object reaches
// the sink with them, the paths of field names are cut out of the text
// before it is parsed, and bookmarks keep what the loop reads.
import assert from "node:assert/strict";
import { ListWatch } from "./list_watch.ts";
import type { WatchEventType } from "./list_watch_types.ts";
import { WatcherConfigError } from "../config_error.ts";
import { FetchClient } from "../client/fetch_client.ts";
import { FakeApiServer } from "../testing/fake_api_server.ts";
import { mockFetch } from "../testing/mock_fetch.ts";
import { FakeClock, waitFor } from "../testing/fake_clock.ts";
import type { KubeObject } from "../types.ts";

const GVR = { group: "", version: "v1", resource: "configmaps" };
const MANAGED = [{
  manager: "kubectl",
  operation: "Update",
  fieldsType: "FieldsV1",
  fieldsV1: { "f:data": { "f:a": {} }, 'k:{"name":"x"}': {} },
}];

function configMap(name: string, version: string): KubeObject {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: {
      name,
      namespace: "shop",
      labels: { app: "web" },
      managedFields: MANAGED,
    },
    data: { a: version, secret: "s" },
  } as KubeObject;
}

/** Records every text `JSON.parse` is given while `run` runs. */
async function parsedTexts(run: () => Promise<void>): Promise<string[]> {
  const texts: string[] = [];
  const original = JSON.parse;
  JSON.parse = ((text: string, reviver?: never) => {
    texts.push(text);
    return original(text, reviver);
  }) as typeof JSON.parse;
  try {
    await run();
  } finally {
    JSON.parse = original;
  }
  return texts;
}

Deno.test("ListWatch ignoreFields: listed objects and events come without them, cut before the parse", async () => {
  const clock = new FakeClock();
  const server = new FakeApiServer({ clock });
  using _fetch = mockFetch(server);
  server.create("configmaps", configMap("a", "1"));
  const seen: { what: string; object: KubeObject }[] = [];
  const loop = new ListWatch(new FetchClient({ server: server.url }), {
    onListPage: (page) => {
      for (const object of page.items) seen.push({ what: "listed", object });
    },
    onListEnd: () => {},
    onEvent: (type: WatchEventType, object) => {
      seen.push({ what: type, object });
    },
  }, {
    gvr: GVR,
    namespace: "shop",
    clock,
    // One path of names (cut), one with a wildcard (removed after the parse).
    ignoreFields: ["metadata.managedFields", "metadata.labels[*]"],
  });
  const controller = new AbortController();
  let done: Promise<void> | undefined;
  const texts = await parsedTexts(async () => {
    done = loop.run(controller.signal);
    await waitFor(() => loop.phase === "watching");
    server.create("configmaps", configMap("b", "2"));
    server.update("configmaps", configMap("a", "3"));
    await waitFor(() => seen.length === 3);
  });
  controller.abort();
  await done;
  await server.close();
  assert.deepEqual(
    seen.map(({ what, object }) => [what, object.metadata.name]),
    [["listed", "a"], ["ADDED", "b"], ["MODIFIED", "a"]],
  );
  for (const { object } of seen) {
    assert.equal(object.metadata.managedFields, undefined);
    assert.deepEqual(object.metadata.labels, {});
    assert.equal((object as { data?: { secret?: string } }).data?.secret, "s");
  }
  // The LIST body and both watch lines were parsed without managedFields.
  const bodies = texts.filter((t) =>
    t.includes('"name":"a"') || t.includes('"name":"b"')
  );
  assert.ok(bodies.length >= 3, `${bodies.length} texts`);
  for (const text of bodies) assert.ok(!text.includes("managedFields"), text);
});

Deno.test("ListWatch ignoreFields refuses paths the loop and its sink need, naming the option", () => {
  const client = { performRequest: () => Promise.reject(new Error("unused")) };
  const sink = { onListPage() {}, onListEnd() {}, onEvent() {} };
  for (
    const ignoreFields of [["metadata"], ["metadata.resourceVersion"], [
      "spec..x",
    ]]
  ) {
    assert.throws(
      () => new ListWatch(client, sink, { gvr: GVR, ignoreFields }),
      (error) =>
        error instanceof WatcherConfigError && error.field === "ignoreFields",
      JSON.stringify(ignoreFields),
    );
  }
  assert.throws(
    () =>
      new ListWatch(client, sink, {
        gvr: GVR,
        ignoreFields: "metadata.managedFields" as never,
      }),
    (error) =>
      error instanceof WatcherConfigError && error.field === "ignoreFields",
  );
});
