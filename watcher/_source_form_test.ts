import type { ShardFilter } from "./shard_filter.ts";
import assert from "node:assert/strict";
import type { KubeObject } from "../types.ts";
import { FetchClient } from "../client/fetch_client.ts";
import type { RestClient } from "../client/rest_client.ts";
import { MetricsRegistry } from "../metrics/registry.ts";
import { FakeClock, waitFor } from "../testing/fake_clock.ts";
import { RecordingLogger } from "../testing/recording_logger.ts";
import { Watcher } from "./watcher.ts";
import type { WatcherOptions } from "./watcher_config.ts";
import {
  type FormField,
  formKey,
  type LoopSettings,
  SOURCE_FORM_FIELDS,
  type SourceForm,
} from "./_source_form.ts";
import {
  type AnyWatcher,
  type AnyWatcherConfig,
  BY_IDENTITY,
  configMap,
  CONFIGMAPS,
  ServerFixture,
} from "./_bulk_harness_test.ts";
import { seeded } from "../testing/_seeded_random.ts";

/** One watcher's part of a pair: what it sets beside the fixture's. */
interface Setup {
  config?: Partial<AnyWatcherConfig>;
  options?: WatcherOptions;
  client?: RestClient;
}

class Fixture extends ServerFixture {
  readonly meter = new MetricsRegistry();

  constructor() {
    super();
    for (const ns of ["a", "b"]) {
      this.server.create(CONFIGMAPS, configMap(ns, "cm-0"));
      this.server.create(CONFIGMAPS, configMap(ns, "cm-1"));
    }
  }

  /** A started watcher of `setup`, synced. */
  async watcher(setup: Setup = {}): Promise<AnyWatcher> {
    const watcher = new Watcher(
      {
        gvr: CONFIGMAPS,
        indexBy: BY_IDENTITY,
        onChange: () => {},
        ...setup.config,
      } as AnyWatcherConfig,
      setup.client ?? this.client,
      { ...this.options, ...setup.options },
    );
    this.watchers.push(watcher);
    void watcher.start();
    await watcher.waitForSync();
    return watcher;
  }
}

const keep = (obj: KubeObject) => obj;

/** A shard holding every object: a new value on each call. */
const everything = (): ShardFilter => ({
  isAssigned: () => true,
  selector: () =>
    "shardRange(object.metadata.uid, '0x0000000000000000', '0x10000000000000000')",
  subscribe: () => () => {},
});

/**
 * For every field of the form, two setups that differ in that field only
 * (`a` is the fixture's own when absent). Typed by the form's fields: a
 * field added to the form needs its pair here.
 */
const DIFFERING: {
  [K in FormField]-?: (f: Fixture) => { a?: Setup; b: Setup };
} = {
  client: (f) => ({ b: { client: new FetchClient({ server: f.server.url }) } }),
  gvr: () => ({
    b: { config: { gvr: { group: "", version: "v1", resource: "secrets" } } },
  }),
  namespaces: () => ({ b: { config: { namespaces: ["a", "b"] } } }),
  labelSelector: () => ({ b: { config: { labelSelector: "app=web" } } }),
  metadataOnly: () => ({ b: { config: { metadataOnly: true } } }),
  ignoreFields: () => ({ b: { config: { ignoreFields: ["data"] } } }),
  transform: () => ({ b: { config: { transform: keep } } }),
  pageSize: () => ({ b: { config: { pageSize: 1 } } }),
  initialList: () => ({ b: { config: { initialList: "stream" } } }),
  idleTimeoutMs: () => ({ b: { options: { idleTimeoutMs: 120_000 } } }),
  firstByteTimeoutMs: () => ({ b: { options: { firstByteTimeoutMs: 5_000 } } }),
  clock: () => ({ b: { options: { clock: new FakeClock() } } }),
  logger: () => ({ b: { options: { logger: new RecordingLogger() } } }),
  random: () => ({ b: { options: { random: seeded(2) } } }),
  freezeObjects: () => ({ b: { options: { freezeObjects: true } } }),
  // With a transform, the field selector is part of the form.
  preselect: () => ({
    a: { config: { transform: keep, fieldSelector: "metadata.name=cm-0" } },
    b: { config: { transform: keep, fieldSelector: "metadata.name=cm-1" } },
  }),
  // Each shard its own stream (one holding everything, each time new).
  shard: () => ({
    a: { config: { shard: everything() } },
    b: { config: { shard: everything() } },
  }),
  meter: (f) => ({ b: { options: { meter: f.meter } } }),
  name: (f) => ({
    a: { config: { name: "one" }, options: { meter: f.meter } },
    b: { config: { name: "two" }, options: { meter: f.meter } },
  }),
};

Deno.test("The pairs of this test cover every field of the form", () => {
  assert.deepEqual(
    Object.keys(DIFFERING).sort(),
    [...SOURCE_FORM_FIELDS].sort(),
  );
});

for (const field of SOURCE_FORM_FIELDS) {
  Deno.test(`Watchers differing only in the form's ${field} do not share; alike, they do`, async () => {
    await using f = new Fixture();
    const { a = {}, b } = DIFFERING[field](f);
    const first = await f.watcher(a);
    const second = await f.watcher(b);
    assert.deepEqual(first.health().shared, { consumers: 1 });
    assert.deepEqual(second.health().shared, { consumers: 1 });
    // The same setup again joins the second one's stream.
    const third = await f.watcher(b);
    assert.deepEqual(second.health().shared, { consumers: 2 });
    assert.deepEqual(third.health().shared, { consumers: 2 });
    // Two streams: one watch per loop of each.
    const loops = (s: Setup) => s.config?.namespaces?.length ?? 1;
    await waitFor(() => f.server.openWatchCount === loops(a) + loops(b), {
      description: `${loops(a) + loops(b)} watches open`,
    });
  });
}

Deno.test("formKey compares plain data by value and objects by identity", () => {
  const client = new FetchClient({ server: "http://127.0.0.1:1" });
  const form = (
    changes: Partial<SourceForm> = {},
    loop: Partial<LoopSettings> = {},
  ): SourceForm => ({
    client,
    gvr: { ...CONFIGMAPS },
    namespaces: ["a", "b"],
    labelSelector: undefined,
    metadataOnly: false,
    ignoreFields: ["data", "metadata.managedFields"],
    transform: keep,
    freezeObjects: false,
    logger: undefined,
    preselect: undefined,
    shard: undefined,
    loop: {
      pageSize: undefined,
      initialList: undefined,
      idleTimeoutMs: undefined,
      firstByteTimeoutMs: undefined,
      clock: undefined,
      random: undefined,
      meter: undefined,
      name: undefined,
      ...loop,
    },
    ...changes,
  });
  // Equal data in other objects, lists in another order, the default mode.
  assert.equal(
    formKey(form()),
    formKey(form({
      gvr: { ...CONFIGMAPS },
      namespaces: ["b", "a"],
      ignoreFields: ["metadata.managedFields", "data"],
    }, { initialList: "list" })),
  );
  // The same code in another function is another transform.
  assert.notEqual(formKey(form()), formKey(form({ transform: (o) => o })));
});
