/**
 * Each consumer of a shared stream sees what it would see alone: the
 * reproduced bugs of 0.2 (a late joiner selecting on the stored copy, a
 * stop that does not wait for its own onSyncComplete, changes delivered
 * during it, a stopped watcher's store that keeps changing, missing
 * warnings, a deadlocking `await stop()` inside callbacks), each run shared
 * and alone against the same server history.
 */
import assert from "node:assert/strict";
import type { KubeObject } from "../types.ts";
import { type ChangeBatch, mergeChangeBatches } from "./change_batch.ts";
import type { RequestOptions, RestClient } from "../client/rest_client.ts";
import type { FakeApiServer } from "../testing/fake_api_server.ts";
import { settle, waitFor } from "../testing/fake_clock.ts";
import { Watcher } from "./watcher.ts";
import { SingleWatcher } from "./single.ts";
import { DebounceGroup } from "./debounce_group.ts";
import type { WatcherConfig } from "./watcher_config.ts";
import {
  BY_IDENTITY,
  CONFIGMAPS,
  ServerFixture,
} from "./_bulk_harness_test.ts";

const INTERVAL = 1_000;

/** A server, a client, and watchers that record what they were told. */
class Fixture extends ServerFixture {
  constructor(seed: (server: FakeApiServer) => void) {
    super();
    seed(this.server);
  }

  consumer(
    config: Partial<WatcherConfig> = {},
    client: RestClient = this.client,
  ): Consumer {
    const c = new Consumer();
    c.watcher = new Watcher(
      {
        gvr: CONFIGMAPS,
        indexBy: BY_IDENTITY,
        debounceInterval: INTERVAL,
        onChange: async (_store, batch) => {
          c.log.push(`change ${summary(batch)}`);
          await c.onChange?.(batch);
        },
        onSyncComplete: async (_store, count) => {
          c.log.push(`sync ${count}`);
          await c.onSyncComplete?.();
          c.log.push("sync done");
        },
        ...config,
      } as WatcherConfig,
      client,
      this.options,
    );
    this.watchers.push(c.watcher);
    return c;
  }
}

class Consumer {
  watcher!: Watcher;
  log: string[] = [];
  onChange: ((batch: ChangeBatch) => unknown) | undefined;
  onSyncComplete: (() => unknown) | undefined;

  start(): void {
    void this.watcher.start();
  }

  names(): string[] {
    return (this.watcher.store.list() as KubeObject[]).map((o) =>
      `${o.metadata.namespace}/${o.metadata.name}`
    ).sort();
  }
}

function summary(batch: ChangeBatch): string {
  const names = (objs: readonly KubeObject[]) =>
    objs.map((o) => o.metadata.name).join(",");
  return `${batch.isInitialSync ? "initial " : ""}+${batch.created}(${
    names(batch.objects.created)
  }) ~${batch.modified}(${
    names(batch.objects.modified.map((m) => m.current))
  }) -${batch.deleted}(${names(batch.objects.deleted)})`;
}

/** A promise and the function that resolves it. */
function gate(): { wait: Promise<void>; open: () => void } {
  let open!: () => void;
  const wait = new Promise<void>((resolve) => open = resolve);
  return { wait, open };
}

function tiered(server: FakeApiServer): void {
  for (const name of ["a", "b", "c"]) {
    server.create(CONFIGMAPS, {
      metadata: { namespace: "shop", name },
      data: { tier: "web" },
    });
  }
  server.create(CONFIGMAPS, {
    metadata: { namespace: "shop", name: "d" },
    data: { tier: "db" },
  });
}

/**
 * What a consumer with `config` sees when it starts after another watcher
 * of the same stream has synced (`shared`), or alone: its initial count,
 * its log after one MODIFIED of `a`, its store.
 */
async function lateJoiner(
  config: Partial<WatcherConfig>,
  shared: boolean,
): Promise<{ count: number; log: string[]; names: string[] }> {
  await using f = new Fixture(tiered);
  if (shared) {
    const first = f.consumer({ ...config, indexBy: ["metadata.name"] });
    first.start();
    await first.watcher.waitForSync();
  }
  const late = f.consumer({ ...config, shared });
  late.start();
  const count = await late.watcher.waitForSync();
  await waitFor(() => late.log.includes("sync done"));
  f.server.patch(CONFIGMAPS, "shop", "a", { metadata: { labels: { x: "1" } } });
  await waitFor(() => late.log.length === 4, {
    description: `a change, after ${JSON.stringify(late.log)}`,
  });
  return { count, log: late.log, names: late.names() };
}

for (
  const [what, config] of [
    ["ignoreFields removes", { ignoreFields: ["data"] }],
    [
      "transform drops",
      { transform: (o: KubeObject) => ({ metadata: o.metadata }) },
    ],
  ] as [string, Partial<WatcherConfig>][]
) {
  Deno.test(`Watcher joining late selects on the object as sent when ${what} the selected field`, async () => {
    const base = { fieldSelector: "data.tier=web", ...config };
    const alone = await lateJoiner(base, false);
    assert.equal(alone.count, 3);
    assert.deepEqual(alone.names, ["shop/a", "shop/b", "shop/c"]);
    assert.equal(alone.log[3], "change +0() ~1(a) -0()");
    assert.deepEqual(await lateJoiner(base, true), alone);
  });
}

Deno.test("Watcher sharing a stream: stop() waits for its own onSyncComplete, as alone", async () => {
  for (const late of [false, true]) {
    await using f = new Fixture(tiered);
    const first = f.consumer();
    const second = f.consumer({ indexBy: ["metadata.name"] });
    const held = gate();
    second.onSyncComplete = () => held.wait;
    first.start();
    if (late) await first.watcher.waitForSync();
    second.start();
    await waitFor(() => second.log.includes("sync 4"));
    let stopped = false;
    const stopping = second.watcher.stop().then(() => stopped = true);
    await settle(20);
    assert.equal(stopped, false, "stop() resolved during onSyncComplete");
    held.open();
    await stopping;
    assert.equal(second.log.at(-1), "sync done");
  }
});

Deno.test("Watcher joining late gets no onChange while its onSyncComplete runs, as alone", async () => {
  await using f = new Fixture(tiered);
  const first = f.consumer();
  first.start();
  await first.watcher.waitForSync();
  const late = f.consumer({ indexBy: ["metadata.name"] });
  const held = gate();
  late.onSyncComplete = () => held.wait;
  late.start();
  await waitFor(() => late.log.includes("sync 4"));
  f.server.patch(CONFIGMAPS, "shop", "a", { metadata: { labels: { x: "1" } } });
  await waitFor(() => first.log.length === 4, {
    description: "first's change",
  });
  await f.clock.tick(INTERVAL * 3);
  assert.deepEqual(late.log, ["change initial +4() ~0() -0()", "sync 4"]);
  held.open();
  await waitFor(() => late.log.length === 4, { description: "late's change" });
  assert.deepEqual(late.log.slice(2), ["sync done", "change +0() ~1(a) -0()"]);
});

Deno.test("Watcher joining late reads the store as synced while its onSyncComplete runs, and keeps it when it stops there, as alone", async () => {
  for (const shared of [false, true]) {
    await using f = new Fixture(tiered);
    const first = f.consumer();
    if (shared) {
      first.start();
      await first.watcher.waitForSync();
    }
    const late = f.consumer({ shared, indexBy: ["metadata.name"] });
    const held = gate();
    const seen: { names: string[]; size: number; objects: number }[] = [];
    late.onSyncComplete = async () => {
      await held.wait;
      seen.push({
        names: late.names(),
        size: late.watcher.store.size,
        objects: late.watcher.health().objects,
      });
      await late.watcher.stop();
    };
    late.start();
    await waitFor(() => late.log.includes("sync 4"));
    f.server.create(CONFIGMAPS, { metadata: { namespace: "shop", name: "e" } });
    f.server.delete(CONFIGMAPS, "shop", "a");
    // Shared, the stream has applied both to the view by now.
    if (shared) await waitFor(() => first.names().includes("shop/e"));
    else await settle(20);
    held.open();
    await waitFor(() => late.log.includes("sync done"));
    const synced = ["shop/a", "shop/b", "shop/c", "shop/d"];
    const what = `shared: ${shared}`;
    assert.deepEqual(seen, [{ names: synced, size: 4, objects: 4 }], what);
    assert.deepEqual(late.names(), synced, what);
    assert.equal(late.watcher.health().objects, 4, what);
    assert.deepEqual(late.log, [
      "change initial +4() ~0() -0()",
      "sync 4",
      "sync done",
    ], what);
  }
});

/** Two namespaces: `shop` with a and b, `blog` with x. */
function twoNamespaces(server: FakeApiServer): void {
  for (
    const [namespace, name] of [["shop", "a"], ["shop", "b"], ["blog", "x"]]
  ) {
    server.create(CONFIGMAPS, { metadata: { namespace, name } });
  }
}

Deno.test("Watcher with namespaces reads the store as synced while its onSyncComplete runs, alone as joining late", async () => {
  const NAMESPACES = ["shop", "blog"];
  const synced = ["blog/x", "shop/a", "shop/b"];
  const seenBy: Record<string, unknown> = {};
  for (const shared of [false, true]) {
    await using f = new Fixture(twoNamespaces);
    const first = f.consumer({ namespaces: NAMESPACES });
    if (shared) {
      first.start();
      await first.watcher.waitForSync();
    }
    const late = f.consumer({
      shared,
      namespaces: NAMESPACES,
      indexBy: ["metadata.name"],
    });
    const held = gate();
    const during: string[][] = [];
    late.onSyncComplete = async () => {
      during.push(late.names());
      await held.wait;
      during.push(late.names());
    };
    late.start();
    await waitFor(() => late.log.includes("sync 3"));
    // One change in each namespace while onSyncComplete runs. Alone, the
    // loop that listed last waits for it; the other one reads its event.
    f.server.create(CONFIGMAPS, { metadata: { namespace: "shop", name: "e" } });
    f.server.delete(CONFIGMAPS, "blog", "x");
    if (shared) {
      await waitFor(() => first.names().join() === "shop/a,shop/b,shop/e");
    } else await waitFor(() => late.watcher.health().events >= 1);
    held.open();
    await waitFor(() => late.log.includes("sync done"));
    await f.clock.tick(INTERVAL);
    await waitFor(() => late.names().join() === "shop/a,shop/b,shop/e", {
      description: `late's changes, after ${JSON.stringify(late.log)}`,
    });
    await f.clock.tick(INTERVAL);
    const changed = late.log.slice(3).join(" ");
    seenBy[shared ? "shared" : "alone"] = {
      during,
      created: changed.includes("+1(e)"),
      deleted: changed.includes("-1(x)"),
    };
  }
  const expected = { during: [synced, synced], created: true, deleted: true };
  assert.deepEqual(seenBy, { alone: expected, shared: expected });
});

Deno.test("Watcher sharing a view: once stopped, its store and health().objects stay as they were", async () => {
  await using f = new Fixture(tiered);
  const kept = f.consumer();
  const stopped = f.consumer();
  kept.start();
  stopped.start();
  await stopped.watcher.waitForSync();
  await kept.watcher.waitForSync();
  await stopped.watcher.stop();
  const before = stopped.names();
  f.server.create(CONFIGMAPS, { metadata: { namespace: "shop", name: "e" } });
  f.server.delete(CONFIGMAPS, "shop", "a");
  await waitFor(() =>
    kept.names().includes("shop/e") && kept.names().length === 4
  );
  assert.deepEqual(stopped.names(), before);
  assert.equal(stopped.watcher.store.size, 4);
  assert.equal(stopped.watcher.health().objects, 4);
  assert.equal((await stopped.watcher.store.get("shop", "a")).length, 1);
});

Deno.test("Watcher sharing a stream: once stopped, everything its health() reports stays as it was", async () => {
  await using f = new Fixture(tiered);
  const kept = f.consumer();
  const stopped = f.consumer();
  kept.start();
  stopped.start();
  await stopped.watcher.waitForSync();
  await kept.watcher.waitForSync();
  f.server.create(CONFIGMAPS, { metadata: { namespace: "shop", name: "e" } });
  await waitFor(() => kept.names().includes("shop/e"));
  await waitFor(() => stopped.watcher.health().events === 1);
  await stopped.watcher.stop();
  const { state: _state, synced: _synced, ...before } = stopped.watcher
    .health();
  for (const name of ["f", "g", "h"]) {
    f.server.create(CONFIGMAPS, { metadata: { namespace: "shop", name } });
  }
  await f.clock.tick(1_000);
  await waitFor(() => kept.watcher.health().events === 4);
  const { state, synced, ...after } = stopped.watcher.health();
  assert.equal(state, "stopped");
  assert.equal(synced, false);
  assert.deepEqual(after, before);
  assert.equal(after.events, 1);
  assert.deepEqual(after.shared, { consumers: 2 });
});

/** The warnings about `path` a consumer with `config` got, joining late or alone. */
async function warningsAbout(
  path: string,
  config: Partial<WatcherConfig>,
  shared: boolean,
): Promise<string[]> {
  await using f = new Fixture(tiered);
  if (shared) {
    const first = f.consumer();
    first.start();
    await first.watcher.waitForSync();
  }
  const late = f.consumer({ ...config, shared });
  late.start();
  await late.watcher.waitForSync();
  return f.logger.records
    .filter((r) => r.level === "warn" && r.fields.path === path)
    .map((r) => r.message);
}

Deno.test("Watcher joining late warns about a misconfigured path, as alone", async () => {
  for (
    const [path, config] of [
      ["metadata.labels.app", { indexBy: ["metadata.labels.app"] }],
      ["spec.class", { fieldSelector: "spec.class=x" }],
    ] as [string, Partial<WatcherConfig>][]
  ) {
    const alone = await warningsAbout(path, config, false);
    assert.equal(alone.length, 1, `alone warns once about ${path}`);
    assert.deepEqual(await warningsAbout(path, config, true), alone);
  }
});

Deno.test("Watcher joining the view of a running watcher of its kind warns about a misconfigured path, as alone", async () => {
  for (
    const [path, config] of [
      ["metadata.labels.app", { indexBy: ["metadata.labels.app"] }],
      ["spec.class", { fieldSelector: "spec.class=x" }],
    ] as [string, Partial<WatcherConfig>][]
  ) {
    const alone = await warningsAbout(path, config, false);
    await using f = new Fixture(tiered);
    const warnings = () =>
      f.logger.records.filter((r) =>
        r.level === "warn" && r.fields.path === path
      ).map((r) => r.message);
    // The same index and field selector: the late one joins this one's view.
    const first = f.consumer(config);
    first.start();
    await first.watcher.waitForSync();
    const before = warnings().length;
    const late = f.consumer(config);
    late.start();
    await late.watcher.waitForSync();
    assert.deepEqual(warnings().slice(before), alone, `about ${path}`);
  }
});

/** `f`'s client, holding every continued LIST while `holding`. */
function holdingClient(f: Fixture) {
  let held: (() => void)[] = [];
  const client = {
    holding: false,
    get held() {
      return held.length;
    },
    release() {
      client.holding = false;
      const waiting = held;
      held = [];
      for (const go of waiting) go();
    },
    performRequest: async (opts: RequestOptions) => {
      if (client.holding && opts.querystring?.has("continue")) {
        await new Promise<void>((resolve) => held.push(resolve));
      }
      return f.client.performRequest(opts as never);
    },
  };
  return client as typeof client & RestClient;
}

/**
 * The warnings about `path` a consumer with `config` gets when it joins a
 * relist under way (shared) or lists (alone), and stops itself inside its
 * onSyncComplete, before that list ends.
 */
async function midRelistWarnings(
  path: string,
  config: Partial<WatcherConfig>,
  firstConfig: Partial<WatcherConfig>,
  shared: boolean,
): Promise<string[]> {
  await using f = new Fixture(tiered);
  const client = holdingClient(f);
  const warnings = () =>
    f.logger.records.filter((r) => r.level === "warn" && r.fields.path === path)
      .map((r) => r.message);
  if (shared) {
    const first = f.consumer({ pageSize: 2, ...firstConfig }, client);
    first.start();
    await first.watcher.waitForSync();
    await waitFor(() => f.server.openWatchCount === 1);
    // An event, so that the 410 below relists at once; then every watch
    // resumes from a compacted version.
    f.server.patch(CONFIGMAPS, "shop", "d", { data: { v: "1" } });
    await waitFor(() => first.watcher.health().events === 1);
    client.holding = true;
    f.server.create("secrets", { metadata: { namespace: "z", name: "bump" } });
    f.server.compactHistory();
    f.server.closeAllWatches();
    await waitFor(() => client.held === 1, { description: "the relist held" });
  } else client.holding = true;
  const before = warnings().length;
  const late = f.consumer({ pageSize: 2, shared, ...config }, client);
  late.onSyncComplete = () => late.watcher.stop();
  late.start();
  if (!shared) {
    await waitFor(() => client.held === 1, { description: "the list held" });
    client.release();
  }
  await waitFor(() => late.watcher.health().state === "stopped");
  const seen = warnings().slice(before);
  client.release();
  return seen;
}

Deno.test("Watcher joining a relist under way warns about a misconfigured path, as alone, even when it stops before the relist ends", async () => {
  const config = { indexBy: ["metadata.labels.app"] };
  const path = "metadata.labels.app";
  const alone = await midRelistWarnings(path, config, {}, false);
  assert.equal(alone.length, 1);
  // Into a new view, and into the view of a running watcher of its kind.
  assert.deepEqual(await midRelistWarnings(path, config, {}, true), alone);
  assert.deepEqual(await midRelistWarnings(path, config, config, true), alone);
});

Deno.test("Watcher: await stop() inside onChange and onSyncComplete resolves, alone and shared", async () => {
  for (const shared of [false, true]) {
    for (const where of ["onChange", "onSyncComplete"] as const) {
      await using f = new Fixture(tiered);
      if (shared) {
        const other = f.consumer({ indexBy: ["metadata.name"] });
        other.start();
        await other.watcher.waitForSync();
      }
      const c = f.consumer({ shared });
      const stopInside = async () => {
        await c.watcher.stop();
        c.log.push("stopped inside");
      };
      if (where === "onChange") {
        c.onChange = (batch) => batch.isInitialSync ? undefined : stopInside();
      } else c.onSyncComplete = stopInside;
      c.start();
      await c.watcher.waitForSync();
      if (where === "onChange") {
        await waitFor(() => c.log.includes("sync done"));
        f.server.patch(CONFIGMAPS, "shop", "a", { data: { tier: "x" } });
      }
      await waitFor(() => c.log.includes("stopped inside"), {
        description: `stop() resolved inside ${where} (shared: ${shared})`,
      });
      assert.equal(c.watcher.health().state, "stopped");
      // Nothing fires after stop() resolved.
      f.server.patch(CONFIGMAPS, "shop", "b", { data: { tier: "x" } });
      await f.clock.tick(INTERVAL * 3);
      await settle(20);
      const after = c.log.slice(c.log.indexOf("stopped inside"));
      assert.deepEqual(after.filter((l) => l.startsWith("change")), []);
    }
  }
});

Deno.test("SingleWatcher: await stop() inside onChange resolves", async () => {
  await using f = new Fixture(tiered);
  let resolved = false;
  const single: SingleWatcher = new SingleWatcher(
    {
      gvr: CONFIGMAPS,
      namespace: "shop",
      name: "a",
      onChange: async () => {
        await single.stop();
        resolved = true;
      },
    },
    f.client,
    f.options,
  );
  void single.start();
  await single.waitForSync();
  f.server.patch(CONFIGMAPS, "shop", "a", { data: { tier: "x" } });
  await waitFor(() => resolved, { description: "stop() resolved inside" });
  assert.equal(single.health().state, "stopped");
});

Deno.test("DebounceGroup: await stop() inside onChange resolves", async () => {
  await using f = new Fixture(tiered);
  let resolved = false;
  const group: DebounceGroup<ChangeBatch> = new DebounceGroup<ChangeBatch>({
    interval: INTERVAL,
    merge: mergeChangeBatches,
    clock: f.clock,
    onChange: async () => {
      await group.stop();
      resolved = true;
    },
  });
  const c = f.consumer({
    group: group.member("configmaps"),
    onChange: undefined,
    debounceInterval: undefined,
  });
  c.start();
  await c.watcher.waitForSync();
  await waitFor(() => resolved, { description: "stop() resolved inside" });
  await c.watcher.stop();
});
