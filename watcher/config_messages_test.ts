// The words of a mistake say what was expected, not only that something is
// wrong: a gvr given as a string, a watcher with no way to deliver, a label
// key with dots written as a path.
import assert from "node:assert/strict";
import { WatcherConfigError } from "../config_error.ts";
import { ListWatch } from "../listwatch/list_watch.ts";
import { Watcher } from "./watcher.ts";
import { SingleWatcher } from "./single.ts";
import { configMap, Harness } from "./_bulk_harness_test.ts";

const client = { performRequest: () => Promise.reject(new Error("unused")) };
const GVR_EXPECTED =
  'must be an object { group, version, resource } (e.g. { group: "networking.k8s.io", version: "v1", resource: "ingresses" }; group "" for the core group)';

/** The `WatcherConfigError` `build` throws: its field and message. */
function refusal(build: () => unknown): [field: string, message: string] {
  try {
    build();
  } catch (error) {
    assert.ok(error instanceof WatcherConfigError, String(error));
    return [error.field, error.message];
  }
  assert.fail("no error thrown");
}

Deno.test("a gvr given as a string is refused saying what a gvr is", () => {
  const gvr = "ingresses" as never;
  const expected: [string, string] = [
    "gvr",
    `Invalid watcher config: gvr: ${GVR_EXPECTED}, got "ingresses"`,
  ];
  assert.deepEqual(
    refusal(() =>
      new Watcher({ gvr, indexBy: ["metadata.name"], onChange() {} }, client)
    ),
    expected,
  );
  assert.deepEqual(
    refusal(() =>
      new SingleWatcher(
        { gvr, namespace: "shop", name: "a", onChange() {} },
        client,
      )
    ),
    expected,
  );
  assert.deepEqual(
    refusal(() =>
      new ListWatch(client, {
        onListPage() {},
        onListEnd() {},
        onEvent() {},
      } as never, { gvr })
    ),
    expected,
  );
  // Missing altogether: the same explanation.
  assert.deepEqual(
    refusal(() =>
      new Watcher(
        { indexBy: ["metadata.name"], onChange() {} } as never,
        client,
      )
    ),
    ["gvr", `Invalid watcher config: gvr: ${GVR_EXPECTED}, got undefined`],
  );
});

Deno.test("a Watcher with neither onChange nor group says either will do", () => {
  const gvr = { group: "", version: "v1", resource: "configmaps" };
  const message =
    "Invalid watcher config: onChange: must be a function, or give group (a DebounceGroup member) for the group's onChange to receive the batches";
  assert.deepEqual(
    refusal(() => new Watcher({ gvr, indexBy: ["metadata.name"] }, client)),
    ["onChange", message],
  );
  assert.deepEqual(
    refusal(() =>
      new Watcher(
        { gvr, indexBy: ["metadata.name"], onChange: "log" as never },
        client,
      )
    ),
    ["onChange", message],
  );
});

Deno.test("a label key with dots written as a path is warned about with its bracketed form", async () => {
  const key = "app.kubernetes.io/name";
  const warnings = async (config: Record<string, unknown>) => {
    await using h = new Harness({
      config,
      seed: (server) => {
        server.create(
          "configmaps",
          configMap("shop", "a", { labels: { [key]: "shop" } }),
        );
      },
    });
    await h.watcher.waitForSync();
    return h.logger.at("warn").map((r) => r.message);
  };
  assert.deepEqual(await warnings({ indexBy: [`metadata.labels.${key}`] }), [
    'indexBy path metadata.labels.app.kubernetes.io/name is absent on all 1 listed objects of configmaps; none could be indexed (a key with dots needs brackets: metadata.labels["app.kubernetes.io/name"])',
  ]);
  assert.deepEqual(
    await warnings({ fieldSelector: `metadata.annotations.${key}=shop` }),
    [
      'fieldSelector path metadata.annotations.app.kubernetes.io/name is absent on all 1 listed objects of configmaps; the selector matches by missing fields only (a key with dots needs brackets: metadata.annotations["app.kubernetes.io/name"])',
    ],
  );
});

Deno.test("the bracketed form a warning suggests is one the watcher takes", async () => {
  const key = "app.kubernetes.io/name";
  await using h = new Harness({
    config: {
      indexBy: [`metadata.labels["${key}"]`],
      fieldSelector: `metadata.labels["${key}"]=shop`,
    },
    seed: (server) => {
      server.create(
        "configmaps",
        configMap("shop", "a", { labels: { [key]: "shop" } }),
      );
      server.create(
        "configmaps",
        configMap("shop", "b", { labels: { [key]: "blog" } }),
      );
    },
  });
  assert.equal(await h.watcher.waitForSync(), 1);
  assert.equal((await h.watcher.store.get("shop")).length, 1);
  assert.deepEqual(h.logger.at("warn"), []);
});
