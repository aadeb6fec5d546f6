import assert from "node:assert/strict";
import type { KubeObject } from "../types.ts";
import { FetchClient } from "../client/fetch_client.ts";
import { FakeApiServer } from "../testing/fake_api_server.ts";
import { mockFetch } from "../testing/mock_fetch.ts";
import { FakeClock, waitFor } from "../testing/fake_clock.ts";
import { RecordingLogger } from "../testing/recording_logger.ts";
import { IndexSynchronizationTracker } from "../indextracker/index_synchronization_tracker.ts";
import { Watcher } from "./watcher.ts";
import { SingleWatcher } from "./single.ts";
import { WatcherConfigError } from "./watcher_config.ts";
import { WatcherStoppedError } from "./errors.ts";
import { configMap, CONFIGMAPS, Harness } from "./_bulk_harness_test.ts";

const SECRETS = { group: "", version: "v1", resource: "secrets" };
const client = new FetchClient({ server: "http://127.0.0.1:1" });
const bulk = {
  gvr: CONFIGMAPS,
  indexBy: ["metadata.name"],
  onChange: () => {},
};
const single = {
  gvr: SECRETS,
  namespace: "haptic",
  name: "creds",
  onChange: () => {},
};

/** The config error `build` throws. */
function configError(build: () => unknown): WatcherConfigError {
  try {
    build();
  } catch (error) {
    assert.ok(error instanceof WatcherConfigError, String(error));
    return error;
  }
  assert.fail("no error thrown");
}

Deno.test("Watchers name unknown options, and where a misplaced one belongs", () => {
  // An option put in the config (as happened when tried).
  let e = configError(() =>
    new Watcher({ ...bulk, idleTimeoutMs: 60_000 } as never, client)
  );
  assert.equal(e.field, "idleTimeoutMs");
  assert.equal(
    e.message,
    "Invalid watcher config: idleTimeoutMs: belongs in the third argument (WatcherOptions), not in the config",
  );
  // A config field put in the options.
  e = configError(() =>
    new Watcher(bulk, client, { debounceInterval: 5 } as never)
  );
  assert.equal(e.field, "debounceInterval");
  assert.match(e.message, /belongs in the config \(the first argument\)/);
  // A name neither knows (a typo, or an option of a later version).
  e = configError(() =>
    new Watcher({ ...bulk, namespaceList: ["a"] } as never, client)
  );
  assert.equal(e.field, "namespaceList");
  assert.match(e.message, /namespaceList: is not a Watcher config option/);
  e = configError(() => new Watcher(bulk, client, { loger: {} } as never));
  assert.match(e.message, /loger: is not a WatcherOptions option/);
  // Several at once: every one named.
  e = configError(() =>
    new Watcher(
      { ...bulk, clock: {}, indexby: [] } as never,
      client,
      { onChange: () => {} } as never,
    )
  );
  assert.equal(e.field, "clock, indexby, onChange");
  assert.match(e.message, /clock belongs in the third argument/);
  assert.match(e.message, /indexby is not a Watcher config option/);
  assert.match(e.message, /onChange belongs in the config/);

  // The SingleWatcher checks its own names.
  e = configError(() =>
    new SingleWatcher({ ...single, indexBy: ["x"] } as never, client)
  );
  assert.match(e.message, /indexBy: is not a SingleWatcher config option/);
  e = configError(() =>
    new SingleWatcher({ ...single, random: Math.random } as never, client)
  );
  assert.match(e.message, /random: belongs in the third argument/);
  e = configError(() =>
    new SingleWatcher(single, client, { skip: "none" } as never)
  );
  assert.match(e.message, /skip: belongs in the config/);
  e = configError(() => new Watcher(bulk, client, null as never));
  assert.equal(e.field, "options");
});

Deno.test("Watcher reports idle, running and stopped, and refuses to restart", async () => {
  await using h = new Harness({
    start: false,
    seed: (server) => server.create("configmaps", configMap("shop", "a")),
  });
  assert.equal(h.watcher.health().state, "idle");
  h.running = h.watcher.start();
  assert.equal(h.watcher.start(), h.running, "start() again while running");
  await h.watcher.waitForSync();
  assert.equal(h.watcher.health().state, "running");
  assert.equal(h.watcher.isSynced(), true);
  await h.watcher.stop();
  assert.equal(h.watcher.health().state, "stopped");
  assert.equal(h.watcher.isSynced(), false);
  assert.equal(h.watcher.health().synced, false);
  // The sync did happen, but a stopped watcher's is not kept: as
  // isSynced(), waitForSync() says so.
  await assert.rejects(h.watcher.waitForSync(), WatcherStoppedError);
  const error = (() => {
    try {
      h.watcher.start();
    } catch (e) {
      return e;
    }
  })();
  assert.ok(error instanceof WatcherStoppedError);
  assert.equal(
    error.message,
    "Watcher for configmaps was stopped and cannot be restarted; create a new watcher",
  );
});

Deno.test("SingleWatcher resolves waitForSync with 1 or 0, so a tracker takes it as it is", async () => {
  const clock = new FakeClock();
  await using server = new FakeApiServer({ clock });
  using _fetch = mockFetch(server);
  const client = new FetchClient({ server: server.url });
  server.create(SECRETS, { metadata: { namespace: "haptic", name: "creds" } });
  const options = { clock, logger: new RecordingLogger() };
  const present = new SingleWatcher<KubeObject>(single, client, options);
  const absent = new SingleWatcher(
    { ...single, name: "missing" },
    client,
    options,
  );
  const tracker = new IndexSynchronizationTracker(["present", "absent"]);
  void tracker.track("present", present);
  void tracker.track("absent", absent);
  const running = [present.start(), absent.start()];
  const counts = await tracker.synchronized;
  assert.deepEqual([...counts], [["present", 1], ["absent", 0]]);
  assert.equal(await present.waitForSync(), 1);
  assert.equal(await absent.waitForSync(), 0);
  assert.equal(present.health().state, "running");
  await present.stop();
  await absent.stop();
  await Promise.all(running);
  assert.equal(present.isSynced(), false);
  assert.equal(present.health().state, "stopped");
  assert.throws(() => present.start(), WatcherStoppedError);
});

Deno.test("Watcher warns once per list about a field-selector or indexBy path no object has", async () => {
  await using h = new Harness({
    config: {
      indexBy: ["metadata.namespace", "spec.ingresClassName"],
      fieldSelector: "spec.ingresClassName=haproxy,metadata.namespace=shop",
    },
    seed: (server) => {
      for (let i = 0; i < 5; i++) {
        server.create("configmaps", configMap("shop", `cm-${i}`));
      }
    },
  });
  assert.equal(await h.watcher.waitForSync(), 0);
  await h.waitForWatches(1);
  const warnings = () =>
    h.logger.at("warn").filter((r) => r.message.includes("spec.ingres"));
  assert.deepEqual(warnings().map((r) => r.message), [
    "fieldSelector path spec.ingresClassName is absent on all 5 listed objects of configmaps; the selector matches by missing fields only (is the path right?)",
  ]);
  assert.deepEqual(warnings()[0].fields, {
    resource: "configmaps",
    path: "spec.ingresClassName",
    listed: 5,
  });
  assert.equal(
    h.logger.at("warn").filter((r) => r.message.includes("metadata.namespace"))
      .length,
    0,
    "a path some object has is fine",
  );

  // Once per list: a relist says it again. (A watch that ends at once
  // backs off: let it run a while first.)
  await h.clock.tick(5_000);
  h.server.injectFault({ verb: "watch", kind: "status", code: 410 });
  h.server.closeAllWatches();
  await waitFor(() => h.watcher.health().relists === 1, {
    description: "a relist",
  });
  await waitFor(() => warnings().length === 2, { description: "again" });
});

Deno.test("Watcher warns once when an indexBy path is absent on every listed object", async () => {
  await using h = new Harness({
    config: { indexBy: ["metadata.namespace", "spec.ingresClassName"] },
    seed: (server) => {
      for (let i = 0; i < 4; i++) {
        server.create("configmaps", configMap("shop", `cm-${i}`));
      }
    },
  });
  assert.equal(await h.watcher.waitForSync(), 0);
  const warnings = h.logger.at("warn");
  assert.deepEqual(warnings.map((r) => r.message), [
    "indexBy path spec.ingresClassName is absent on all 4 listed objects of configmaps; none could be indexed (is the path right?)",
  ]);
});

Deno.test("Watchers reject a duration longer than a timer can wait (2³¹−1 ms)", () => {
  // Above 2³¹−1 ms, setTimeout fires after 1 ms on Deno, Node and Bun.
  const limit = 2 ** 31 - 1;
  const cases: [string, (ms: number) => unknown][] = [
    [
      "debounceInterval",
      (ms) => new Watcher({ ...bulk, debounceInterval: ms }, client),
    ],
    ["idleTimeoutMs", (ms) => new Watcher(bulk, client, { idleTimeoutMs: ms })],
    [
      "idleTimeoutMs",
      (ms) => new SingleWatcher(single, client, { idleTimeoutMs: ms }),
    ],
  ];
  for (const [field, build] of cases) {
    const e = configError(() => build(2 ** 31));
    assert.equal(e.field, field);
    assert.equal(
      e.message,
      `Invalid watcher config: ${field}: must be at most 2147483647 ms (2³¹−1), got 2147483648`,
    );
    build(limit); // builds, and requests nothing
  }
});
