import assert from "node:assert/strict";
import { SingleWatcher, type SingleWatcherConfig } from "./single.ts";
import { WatcherConfigError } from "./watcher_config.ts";
import { WatcherStoppedError, WatcherSyncError } from "./errors.ts";
import { ApiError } from "../client/api_error.ts";
import { FetchClient } from "../client/fetch_client.ts";
import { FakeApiServer } from "../testing/fake_api_server.ts";
import { mockFetch } from "../testing/mock_fetch.ts";
import { FakeClock, settle, waitFor } from "../testing/fake_clock.ts";
import { RecordingLogger } from "../testing/recording_logger.ts";
import type { Gvr, KubeObject } from "../types.ts";

const SECRETS: Gvr = { group: "", version: "v1", resource: "secrets" };
const CONFIGMAPS: Gvr = { group: "", version: "v1", resource: "configmaps" };
const DEPLOYMENTS: Gvr = {
  group: "apps",
  version: "v1",
  resource: "deployments",
};
const INGRESSES: Gvr = {
  group: "networking.k8s.io",
  version: "v1",
  resource: "ingresses",
};
const NS = "haptic";
const NAME = "creds";

/** What the callbacks saw, in order. */
type Call =
  | { kind: "sync"; obj: KubeObject | null }
  | { kind: "change"; obj: KubeObject | null };

/**
 * A fake API server on a fake clock, reached through the real FetchClient
 * over a mocked fetch, and one SingleWatcher on it. Disposing stops the
 * watcher, then closes the server and restores fetch.
 */
class Harness implements AsyncDisposable {
  readonly clock = new FakeClock({ now: 1_000_000 });
  // A fresh server at resourceVersion "0" would let a watch read it as
  // "any version"; real servers never list at "0".
  readonly server = new FakeApiServer({
    clock: this.clock,
    initialResourceVersion: 100,
  });
  readonly logger = new RecordingLogger();
  readonly client = new FetchClient({ server: this.server.url });
  readonly calls: Call[] = [];
  #fetch = mockFetch(this.server);
  #watcher: SingleWatcher | undefined;

  get changes(): (KubeObject | null)[] {
    return this.calls.filter((c) => c.kind === "change").map((c) => c.obj);
  }

  get watcher(): SingleWatcher {
    assert.ok(this.#watcher, "no watcher created");
    return this.#watcher;
  }

  /** Creates (not starts) the watcher; callbacks record into `calls`. */
  create(
    gvr: Gvr,
    overrides: Partial<SingleWatcherConfig> = {},
  ): SingleWatcher {
    this.#watcher = new SingleWatcher(
      {
        gvr,
        namespace: NS,
        name: NAME,
        onChange: (obj) => void this.calls.push({ kind: "change", obj }),
        onSyncComplete: (obj) => void this.calls.push({ kind: "sync", obj }),
        ...overrides,
      },
      this.client,
      { logger: this.logger, clock: this.clock },
    );
    return this.#watcher;
  }

  /** Creates, starts and waits for the initial sync. */
  async sync(
    gvr: Gvr,
    overrides: Partial<SingleWatcherConfig> = {},
  ): Promise<SingleWatcher> {
    const watcher = this.create(gvr, overrides);
    watcher.start();
    await watcher.waitForSync(AbortSignal.timeout(5_000));
    return watcher;
  }

  /** Waits until `n` onChange calls were recorded. */
  async changesReach(n: number): Promise<void> {
    await waitFor(() => this.changes.length >= n, {
      description: `${n} onChange calls (have ${this.changes.length})`,
    });
  }

  /**
   * Breaks the watch and keeps the watcher away (one 503 on the re-watch,
   * then backoff on the fake clock), so that the test can change the server
   * while nobody watches. Returns once the watcher is backing off.
   */
  async disconnect(resource: Gvr): Promise<void> {
    const fault = this.server.injectFault({
      verb: "watch",
      resource,
      kind: "status",
      code: 503,
    });
    this.server.closeAllWatches();
    await waitFor(() => fault.hits === 1, { description: "503 on re-watch" });
    await waitFor(() => this.#watcher?.lastError()?.time !== undefined, {
      description: "the watcher to record the failure",
    });
  }

  /** Forgets history and lets the backoff elapse: the watch gets 410. */
  async reconnectAfterCompaction(): Promise<void> {
    this.server.compactHistory();
    // Backoff starts at 800 ms with downward jitter.
    await this.clock.tick(1_000);
  }

  listRequests(): number {
    return this.server.requests.filter((r) => r.verb === "list").length;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    try {
      await this.#watcher?.stop();
    } finally {
      await this.server.close();
      this.client.close();
      this.#fetch[Symbol.dispose]();
    }
  }
}

function secret(data: Record<string, string> = { user: "YQ==" }): KubeObject {
  return { metadata: { name: NAME, namespace: NS }, type: "Opaque", data };
}

function deployment(replicas = 1): KubeObject {
  return {
    metadata: { name: NAME, namespace: NS },
    spec: { replicas, template: { spec: { containers: [{ name: "web" }] } } },
  };
}

function ingress(host = "a.example.com"): KubeObject {
  return {
    metadata: { name: NAME, namespace: NS },
    spec: { ingressClassName: "haproxy", rules: [{ host }] },
  };
}

/** The watcher's current object, unnarrowed. */
function current(watcher: SingleWatcher): KubeObject | null {
  return watcher.current;
}

/** The `v` data entry of a Secret or ConfigMap. */
function dataV(obj: KubeObject | null): string {
  return String((obj?.data as Record<string, string> | undefined)?.v);
}

/** A promise with its resolve function, to hold an async callback. */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => resolve = r);
  return { promise, resolve };
}

// --- Initial sync ----------------------------------------------------------

Deno.test("SingleWatcher lists and watches one name in its namespace", async () => {
  await using h = new Harness();
  h.server.create(SECRETS, secret());
  // Same name elsewhere and another name here: neither must be requested.
  h.server.create(SECRETS, { metadata: { name: NAME, namespace: "other" } });
  h.server.create(SECRETS, { metadata: { name: "unrelated", namespace: NS } });
  const watcher = await h.sync(SECRETS);

  const list = h.server.requests.find((r) => r.verb === "list");
  assert.ok(list, "a LIST was sent");
  assert.equal(list.path, `/api/v1/namespaces/${NS}/secrets`);
  assert.equal(list.query.fieldSelector, `metadata.name=${NAME}`);
  await waitFor(() => h.server.requests.some((r) => r.verb === "watch"));
  const watch = h.server.requests.find((r) => r.verb === "watch")!;
  assert.equal(watch.path, `/api/v1/namespaces/${NS}/secrets`);
  assert.equal(watch.query.fieldSelector, `metadata.name=${NAME}`);

  assert.equal(watcher.isSynced(), true);
  assert.equal(h.calls.length, 1);
  const sync = h.calls[0];
  assert.equal(sync.kind, "sync");
  assert.equal(sync.obj?.metadata.namespace, NS);
  assert.equal(sync.obj?.metadata.name, NAME);
  assert.deepEqual(sync.obj?.data, { user: "YQ==" });
  assert.equal(watcher.current?.metadata.uid, sync.obj?.metadata.uid);
  assert.deepEqual(h.changes, [], "onChange is not called for the sync");
});

Deno.test("SingleWatcher reports a missing object with onSyncComplete(null), then its creation", async () => {
  await using h = new Harness();
  h.server.create(SECRETS, { metadata: { name: "unrelated", namespace: NS } });
  const watcher = await h.sync(SECRETS);
  assert.deepEqual(h.calls, [{ kind: "sync", obj: null }]);
  assert.equal(current(watcher), null);

  h.server.create(SECRETS, secret());
  await h.changesReach(1);
  assert.equal(h.changes[0]?.metadata.name, NAME);
  assert.equal(watcher.current?.metadata.name, NAME);
});

Deno.test("SingleWatcher suppresses callbacks until synced, then reports the latest state", async () => {
  await using h = new Harness();
  h.server.create(SECRETS, secret({ v: "MQ==" }));
  const fault = h.server.injectFault({
    verb: "list",
    kind: "status",
    code: 503,
    retryAfterSeconds: 2,
  });
  const watcher = h.create(SECRETS);
  watcher.start();
  await waitFor(() => fault.hits === 1);
  await waitFor(() => watcher.lastError()?.time !== undefined);
  // Changes while the first LIST is failing are not deliveries.
  h.server.patch(SECRETS, NS, NAME, { data: { v: "Mg==" } });
  h.server.patch(SECRETS, NS, NAME, { data: { v: "Mw==" } });
  await settle();
  assert.equal(watcher.isSynced(), false);
  assert.equal(h.calls.length, 0);

  await h.clock.tick(2_000); // Retry-After
  await watcher.waitForSync(AbortSignal.timeout(5_000));
  assert.equal(h.calls.length, 1);
  assert.equal(h.calls[0].kind, "sync");
  assert.deepEqual(h.calls[0].obj?.data, { v: "Mw==" });
  assert.equal(h.listRequests(), 2);
});

Deno.test("SingleWatcher with initialList stream syncs without onChange", async () => {
  await using h = new Harness();
  h.server.create(SECRETS, secret());
  await h.sync(SECRETS, { initialList: "stream" });
  const first = h.server.requests.find((r) => r.verb === "watch");
  assert.equal(first?.query.sendInitialEvents, "true");
  assert.equal(first?.query.fieldSelector, `metadata.name=${NAME}`);
  assert.equal(h.calls.length, 1);
  assert.equal(h.calls[0].kind, "sync");
  assert.equal(h.calls[0].obj?.metadata.name, NAME);

  h.server.patch(SECRETS, NS, NAME, { data: { v: "2" } });
  await h.changesReach(1);
  assert.equal(dataV(h.changes[0]), "2");
});

// --- Deliveries after sync -------------------------------------------------

Deno.test("SingleWatcher delivers add, update and delete at once, in order, delete as null", async () => {
  await using h = new Harness();
  const watcher = await h.sync(SECRETS);
  assert.deepEqual(h.calls, [{ kind: "sync", obj: null }]);

  const created = h.server.create(SECRETS, secret({ v: "MQ==" }));
  const updated = h.server.patch(SECRETS, NS, NAME, { data: { v: "Mg==" } });
  h.server.delete(SECRETS, NS, NAME);
  // No clock tick: nothing is debounced.
  await h.changesReach(3);
  const [add, update, del] = h.changes;
  assert.equal(add?.metadata.resourceVersion, created.metadata.resourceVersion);
  assert.equal(
    update?.metadata.resourceVersion,
    updated.metadata.resourceVersion,
  );
  assert.deepEqual(update?.data, { v: "Mg==" });
  assert.equal(del, null);
  assert.equal(watcher.current, null);
  assert.ok(watcher.health().lastEventTime !== undefined);
  assert.equal(h.clock.now(), 1_000_000, "no time had to pass");
});

Deno.test("SingleWatcher awaits an async onChange before the next call", async () => {
  await using h = new Harness();
  const log: string[] = [];
  const held: ReturnType<typeof deferred>[] = [];
  await h.sync(SECRETS, {
    onChange: async (obj) => {
      const label = obj === null ? "null" : dataV(obj);
      log.push(`start ${label}`);
      const gate = deferred();
      held.push(gate);
      await gate.promise;
      log.push(`end ${label}`);
    },
  });

  h.server.create(SECRETS, secret({ v: "1" }));
  h.server.patch(SECRETS, NS, NAME, { data: { v: "2" } });
  h.server.delete(SECRETS, NS, NAME);

  await waitFor(() => held.length === 1);
  await settle(10);
  assert.deepEqual(log, ["start 1"], "the second call waits for the first");

  held[0].resolve();
  await waitFor(() => held.length === 2);
  await settle(10);
  assert.deepEqual(log, ["start 1", "end 1", "start 2"]);

  held[1].resolve();
  await waitFor(() => held.length === 3);
  held[2].resolve();
  await waitFor(() => log.length === 6);
  assert.deepEqual(log, [
    "start 1",
    "end 1",
    "start 2",
    "end 2",
    "start null",
    "end null",
  ]);
});

// --- What counts as a change -----------------------------------------------

for (
  const [label, gvr, make, specChange, status] of [
    [
      "Deployment",
      DEPLOYMENTS,
      () => deployment(1),
      { spec: { replicas: 2 } },
      { readyReplicas: 1 },
    ],
    [
      "Ingress",
      INGRESSES,
      () => ingress(),
      { spec: { rules: [{ host: "b.example.com" }] } },
      { loadBalancer: { ingress: [{ ip: "10.0.0.1" }] } },
    ],
  ] as const
) {
  Deno.test(`SingleWatcher skips a status-only change of a ${label}, delivers a spec change`, async () => {
    await using h = new Harness();
    const stored = h.server.create(gvr, make());
    assert.equal(stored.metadata.generation, 1);
    const watcher = await h.sync(gvr);

    const withStatus = h.server.get(gvr, NS, NAME);
    withStatus.status = status;
    const statusOnly = h.server.updateStatus(gvr, withStatus);
    assert.equal(statusOnly.metadata.generation, 1);
    assert.notEqual(
      statusOnly.metadata.resourceVersion,
      stored.metadata.resourceVersion,
    );
    const specChanged = h.server.patch(gvr, NS, NAME, specChange);
    assert.equal(specChanged.metadata.generation, 2);

    // Events are delivered in order: had the status change been delivered,
    // it would be the first call.
    await h.changesReach(1);
    await settle();
    assert.equal(h.changes.length, 1);
    assert.equal(h.changes[0]?.metadata.generation, 2);
    assert.equal(
      h.changes[0]?.metadata.resourceVersion,
      specChanged.metadata.resourceVersion,
    );
    // The skipped version was still taken in.
    assert.deepEqual(watcher.current?.status, status);
  });
}

/** A metadata change that leaves the generation alone, and how to see it. */
type MetadataChange = {
  what: string;
  apply: (server: FakeApiServer, gvr: Gvr) => KubeObject;
  seen: (obj: KubeObject | null) => boolean;
};

const METADATA_CHANGES: MetadataChange[] = [
  {
    what: "a label change",
    apply: (server, gvr) =>
      server.patch(gvr, NS, NAME, { metadata: { labels: { app: "shop" } } }),
    seen: (obj) => obj?.metadata.labels?.app === "shop",
  },
  {
    what: "an annotation change",
    apply: (server, gvr) =>
      server.patch(gvr, NS, NAME, {
        metadata: { annotations: { "example.com/note": "b" } },
      }),
    seen: (obj) => obj?.metadata.annotations?.["example.com/note"] === "b",
  },
  {
    what: "a finalizer removal",
    apply: (server, gvr) =>
      server.patch(gvr, NS, NAME, {
        metadata: { finalizers: ["example.com/a"] },
      }),
    seen: (obj) =>
      JSON.stringify(obj?.metadata.finalizers) === '["example.com/a"]',
  },
  {
    what: "an owner reference removal",
    apply: (server, gvr) =>
      server.patch(gvr, NS, NAME, { metadata: { ownerReferences: null } }),
    seen: (obj) => obj !== null && obj.metadata.ownerReferences === undefined,
  },
  {
    // An object with finalizers is only marked for deletion, which bumps
    // its generation (as an annotation change does for a Deployment): the
    // mark is delivered because it changes metadata.
    what: "a deletionTimestamp set",
    apply: (server, gvr) => server.delete(gvr, NS, NAME),
    seen: (obj) => typeof obj?.metadata.deletionTimestamp === "string",
  },
];

/** A Deployment with every kind of metadata a change above touches. */
function deploymentWithMetadata(): KubeObject {
  const obj = deployment();
  obj.metadata = {
    ...obj.metadata,
    labels: { app: "web" },
    annotations: { "example.com/note": "a" },
    finalizers: ["example.com/a", "example.com/b"],
    ownerReferences: [
      { apiVersion: "v1", kind: "ConfigMap", name: "owner", uid: "o-1" },
    ],
  };
  return obj;
}

/** Writes `status` through the status subresource; the generation stays. */
function writeStatus(
  server: FakeApiServer,
  gvr: Gvr,
  status: Record<string, unknown>,
): KubeObject {
  const obj = server.get(gvr, NS, NAME);
  obj.status = status;
  return server.updateStatus(gvr, obj);
}

for (const change of METADATA_CHANGES) {
  Deno.test(`SingleWatcher delivers ${change.what} of an object with a generation once`, async () => {
    await using h = new Harness();
    h.server.create(DEPLOYMENTS, deploymentWithMetadata());
    await h.sync(DEPLOYMENTS);

    const changed = change.apply(h.server, DEPLOYMENTS);
    // Then a status-only write (skipped) and a label as the end marker:
    // events arrive in order, so a second call for the change, or one for
    // the status write, would come before the marker.
    writeStatus(h.server, DEPLOYMENTS, { observedGeneration: 1 });
    const marker = h.server.patch(DEPLOYMENTS, NS, NAME, {
      metadata: { labels: { marker: "1" } },
    });
    assert.equal(marker.metadata.generation, changed.metadata.generation);
    await h.changesReach(2);
    await settle();
    assert.equal(h.changes.length, 2);
    assert.ok(change.seen(h.changes[0]), `${change.what} was delivered`);
    assert.equal(
      h.changes[0]?.metadata.resourceVersion,
      changed.metadata.resourceVersion,
    );
    assert.equal(
      h.changes[1]?.metadata.resourceVersion,
      marker.metadata.resourceVersion,
    );
  });
}

Deno.test("SingleWatcher delivers a label change of a Pod", async () => {
  await using h = new Harness();
  const PODS: Gvr = { group: "", version: "v1", resource: "pods" };
  const stored = h.server.create(PODS, {
    metadata: { name: NAME, namespace: NS, labels: { app: "web" } },
    spec: { containers: [{ name: "web", image: "nginx" }] },
  });
  assert.equal(stored.metadata.generation, 1);
  await h.sync(PODS);
  writeStatus(h.server, PODS, { phase: "Running" });
  const relabelled = h.server.patch(PODS, NS, NAME, {
    metadata: { labels: { app: "shop" } },
  });
  assert.equal(relabelled.metadata.generation, 1);
  await h.changesReach(1);
  await settle();
  assert.equal(h.changes.length, 1);
  assert.deepEqual(h.changes[0]?.metadata.labels, { app: "shop" });
  assert.deepEqual(h.changes[0]?.status, { phase: "Running" });
});

Deno.test('SingleWatcher with skip "none" delivers status-only writes too', async () => {
  await using h = new Harness();
  const stored = h.server.create(DEPLOYMENTS, deployment());
  await h.sync(DEPLOYMENTS, { skip: "none" });
  const first = writeStatus(h.server, DEPLOYMENTS, { readyReplicas: 1 });
  const second = writeStatus(h.server, DEPLOYMENTS, { readyReplicas: 2 });
  assert.equal(second.metadata.generation, stored.metadata.generation);
  await h.changesReach(2);
  await settle();
  assert.deepEqual(
    h.changes.map((obj) => obj?.metadata.resourceVersion),
    [first.metadata.resourceVersion, second.metadata.resourceVersion],
  );
  assert.deepEqual(h.changes[1]?.status, { readyReplicas: 2 });
});

for (const gvr of [SECRETS, CONFIGMAPS]) {
  Deno.test(`SingleWatcher delivers every update of ${gvr.resource} (no generation)`, async () => {
    await using h = new Harness();
    const stored = h.server.create(gvr, {
      metadata: { name: NAME, namespace: NS },
      data: { v: "0" },
    });
    assert.equal(stored.metadata.generation, undefined);
    await h.sync(gvr);
    const patches = [
      { data: { v: "1" } },
      { metadata: { labels: { a: "b" } } },
      { metadata: { annotations: { c: "d" } } },
      { metadata: { finalizers: ["example.com/e"] } },
      { metadata: { finalizers: null } },
    ];
    const written = patches.map((patch) =>
      h.server.patch(gvr, NS, NAME, patch)
    );
    await h.changesReach(patches.length);
    await settle();
    assert.deepEqual(
      h.changes.map((obj) => obj?.metadata.resourceVersion),
      written.map((obj) => obj.metadata.resourceVersion),
    );
    assert.deepEqual(h.changes[0]?.data, { v: "1" });
    assert.deepEqual(h.changes[1]?.metadata.labels, { a: "b" });
    assert.deepEqual(h.changes[2]?.metadata.annotations, { c: "d" });
    assert.deepEqual(h.changes[3]?.metadata.finalizers, ["example.com/e"]);
    assert.equal(h.changes[4]?.metadata.finalizers, undefined);
  });
}

Deno.test("SingleWatcher delivers a delete and a recreation with a new uid", async () => {
  await using h = new Harness();
  const first = h.server.create(DEPLOYMENTS, deployment());
  await h.sync(DEPLOYMENTS);
  h.server.delete(DEPLOYMENTS, NS, NAME);
  const second = h.server.create(DEPLOYMENTS, deployment());
  assert.equal(second.metadata.generation, first.metadata.generation);
  await h.changesReach(2);
  assert.equal(h.changes[0], null);
  assert.equal(h.changes[1]?.metadata.uid, second.metadata.uid);
  assert.notEqual(second.metadata.uid, first.metadata.uid);
});

Deno.test("SingleWatcher skips an unchanged object after a relist", async () => {
  await using h = new Harness();
  const stored = h.server.create(SECRETS, secret());
  const watcher = await h.sync(SECRETS);
  await h.disconnect(SECRETS);
  // Move the server on (another object) so that compaction expires our version.
  h.server.create(SECRETS, { metadata: { name: "other", namespace: NS } });
  await h.reconnectAfterCompaction();
  await waitFor(() => h.listRequests() === 2, { description: "a relist" });
  // After the relist, a real change still arrives, and is the first one.
  h.server.patch(SECRETS, NS, NAME, { data: { v: "2" } });
  await h.changesReach(1);
  assert.equal(h.changes.length, 1);
  assert.equal(dataV(h.changes[0]), "2");
  assert.notEqual(
    h.changes[0]?.metadata.resourceVersion,
    stored.metadata.resourceVersion,
  );
  assert.equal(h.calls.filter((c) => c.kind === "sync").length, 1);
  assert.ok(watcher.lastError()?.time !== undefined);
});

Deno.test("SingleWatcher delivers a recreation with the same generation seen in a relist", async () => {
  await using h = new Harness();
  const first = h.server.create(DEPLOYMENTS, deployment());
  await h.sync(DEPLOYMENTS);
  await h.disconnect(DEPLOYMENTS);
  h.server.delete(DEPLOYMENTS, NS, NAME);
  const second = h.server.create(DEPLOYMENTS, deployment());
  assert.equal(second.metadata.generation, first.metadata.generation);
  await h.reconnectAfterCompaction();
  await h.changesReach(1);
  assert.equal(h.changes.length, 1);
  assert.equal(h.changes[0]?.metadata.uid, second.metadata.uid);
  assert.equal(h.listRequests(), 2);
});

// --- Relists ----------------------------------------------------------------

Deno.test("SingleWatcher relist after 410 reports a deletion it missed as null", async () => {
  await using h = new Harness();
  h.server.create(SECRETS, secret());
  const watcher = await h.sync(SECRETS);
  await h.disconnect(SECRETS);
  h.server.delete(SECRETS, NS, NAME);
  await h.reconnectAfterCompaction();
  await h.changesReach(1);
  assert.deepEqual(h.changes, [null]);
  assert.equal(watcher.current, null);
  assert.equal(h.listRequests(), 2);
});

Deno.test("SingleWatcher relist after 410 reports a change it missed", async () => {
  await using h = new Harness();
  h.server.create(SECRETS, secret());
  await h.sync(SECRETS);
  await h.disconnect(SECRETS);
  h.server.patch(SECRETS, NS, NAME, { data: { v: "MQ==" } });
  const latest = h.server.patch(SECRETS, NS, NAME, { data: { v: "Mg==" } });
  await h.reconnectAfterCompaction();
  await h.changesReach(1);
  // Only the state at the relist is known: one call with the latest.
  await settle();
  assert.equal(h.changes.length, 1);
  assert.equal(
    h.changes[0]?.metadata.resourceVersion,
    latest.metadata.resourceVersion,
  );
  assert.equal(h.listRequests(), 2);
});

// --- Failing callbacks ------------------------------------------------------

Deno.test("SingleWatcher logs a throwing or rejecting callback and goes on", async () => {
  await using h = new Harness();
  h.server.create(SECRETS, secret({ v: "0" }));
  const seen: string[] = [];
  await h.sync(SECRETS, {
    onSyncComplete: () => {
      throw new Error("sync boom");
    },
    onChange: (obj) => {
      const v = dataV(obj);
      seen.push(v);
      if (v === "1") throw new Error("sync throw");
      if (v === "2") return Promise.reject(new Error("async reject"));
    },
  });
  h.server.patch(SECRETS, NS, NAME, { data: { v: "1" } });
  h.server.patch(SECRETS, NS, NAME, { data: { v: "2" } });
  h.server.patch(SECRETS, NS, NAME, { data: { v: "3" } });
  await waitFor(() => seen.length === 3);
  assert.deepEqual(seen, ["1", "2", "3"]);
  await waitFor(() => h.logger.at("error").length === 3);
  const errors = h.logger.at("error");
  assert.match(errors[0].message, /onSyncComplete for secrets haptic\/creds/);
  assert.match(String(errors[0].fields.error), /sync boom/);
  assert.match(errors[1].message, /onChange for secrets haptic\/creds/);
  assert.match(String(errors[1].fields.error), /sync throw/);
  assert.match(String(errors[2].fields.error), /async reject/);
});

// --- Sync failures and observability ----------------------------------------

Deno.test("SingleWatcher waitForSync rejects with WatcherSyncError naming a 403", async () => {
  await using h = new Harness();
  h.server.create(SECRETS, secret());
  const forbidden = h.server.injectFault({
    verb: "list",
    resource: SECRETS,
    kind: "status",
    code: 403,
    forMs: 3_600_000,
  });
  const watcher = h.create(SECRETS);
  assert.equal(watcher.lastError()?.time, undefined);
  watcher.start();
  await waitFor(() => watcher.lastError()?.time !== undefined);
  assert.equal(watcher.lastError()?.time, 1_000_000);
  assert.equal(watcher.health().lastEventTime, undefined);
  const error = watcher.lastError()?.error;
  assert.ok(error instanceof ApiError);
  assert.equal(error.code, 403);
  // The same failure in the health snapshot, as for the bulk Watcher.
  const health = watcher.health();
  assert.equal(health.lastError?.error, error);
  assert.equal(health.lastError?.time, 1_000_000);
  assert.equal(health.synced, false);
  assert.equal(health.objects, 0);
  // Logged at error level with a hint.
  assert.match(h.logger.text(), /error .*RBAC/);

  // A signal that aborts while waiting.
  const controller = new AbortController();
  const waiting = watcher.waitForSync(controller.signal);
  controller.abort();
  await assert.rejects(waiting, (e: unknown) => {
    assert.ok(e instanceof WatcherSyncError);
    assert.equal(e.resource, "secrets haptic/creds");
    assert.match(e.message, /secrets haptic\/creds/);
    assert.match(e.message, /aborted/);
    assert.match(e.message, /forbidden/i);
    assert.equal((e.cause as ApiError).code, 403);
    return true;
  });
  // An already aborted signal.
  await assert.rejects(
    watcher.waitForSync(AbortSignal.abort()),
    WatcherSyncError,
  );
  assert.equal(h.calls.length, 0);

  // The loop keeps retrying with backoff; once allowed, it syncs.
  await h.clock.tick(1_000);
  await waitFor(() => forbidden.hits === 2);
  const retriedAt = watcher.lastError()!.time;
  assert.ok(retriedAt > 1_000_000 && retriedAt <= h.clock.now());
  forbidden.cancel();
  await h.clock.tick(60_000);
  await watcher.waitForSync(AbortSignal.timeout(5_000));
  assert.equal(h.calls[0]?.kind, "sync");
  assert.equal(watcher.health().synced, true);
  assert.equal(watcher.health().objects, 1);
  assert.equal(watcher.health().relists, 0);

  // lastEventTime follows the clock of the watch events.
  await waitFor(() => h.server.openWatchCount === 1);
  await h.clock.tick(5_000);
  h.server.patch(SECRETS, NS, NAME, { data: { v: "MQ==" } });
  await h.changesReach(1);
  assert.equal(watcher.health().lastEventTime, h.clock.now());
});

// --- Stopping ---------------------------------------------------------------

Deno.test("SingleWatcher stop waits for a running callback and nothing fires afterwards", async () => {
  await using h = new Harness();
  h.server.create(SECRETS, secret({ v: "0" }));
  const gate = deferred();
  const started: string[] = [];
  let finished = 0;
  const watcher = await h.sync(SECRETS, {
    onChange: async (obj) => {
      started.push(dataV(obj));
      await gate.promise;
      finished++;
    },
  });
  const done = watcher.start();
  assert.equal(watcher.start(), done, "start is idempotent");

  h.server.patch(SECRETS, NS, NAME, { data: { v: "1" } });
  await waitFor(() => started.length === 1);
  // Two more changes arrive while the first call is held.
  h.server.patch(SECRETS, NS, NAME, { data: { v: "2" } });
  h.server.delete(SECRETS, NS, NAME);
  await settle();

  let stopped = false;
  const stopping = watcher.stop().then(() => stopped = true);
  assert.equal(watcher.stop(), watcher.stop(), "stop is idempotent");
  await settle(10);
  assert.equal(stopped, false, "stop waits for the running callback");
  gate.resolve();
  await stopping;
  await done;
  assert.equal(finished, 1);

  h.server.create(SECRETS, secret({ v: "4" }));
  await settle(10);
  assert.deepEqual(started, ["1"], "nothing fires after stop");
  assert.equal(h.server.openWatchCount, 0);
  await watcher.stop();
});

Deno.test("SingleWatcher stopped before syncing rejects waiters", async () => {
  await using h = new Harness();
  h.server.injectFault({ verb: "list", kind: "stall" });
  const watcher = h.create(SECRETS);
  const done = watcher.start();
  const waiting = watcher.waitForSync();
  await waitFor(() => h.listRequests() === 1);
  await watcher.stop();
  await done;
  await assert.rejects(waiting, (e: unknown) => {
    assert.ok(e instanceof WatcherSyncError);
    assert.match(e.message, /stopped/);
    return true;
  });
  // Asked after the stop: nothing to wait for.
  await assert.rejects(watcher.waitForSync(), WatcherStoppedError);
  assert.deepEqual(h.calls, []);
});

Deno.test("SingleWatcher started with an aborted signal stops at once", async () => {
  await using h = new Harness();
  const watcher = h.create(SECRETS);
  await watcher.start(AbortSignal.abort());
  assert.equal(watcher.isSynced(), false);
  assert.deepEqual(h.calls, []);
});

// --- Configuration ----------------------------------------------------------

Deno.test("SingleWatcher rejects a bad config with WatcherConfigError naming the field", async () => {
  await using h = new Harness();
  const valid: SingleWatcherConfig = {
    gvr: SECRETS,
    namespace: NS,
    name: NAME,
    onChange: () => {},
  };
  const cases: [string, Record<string, unknown>][] = [
    ["namespace", { namespace: "" }],
    ["name", { name: undefined }],
    ["name", { name: "" }],
    ["onChange", { onChange: undefined }],
    ["onChange", { onChange: "nope" }],
    ["onSyncComplete", { onSyncComplete: 1 }],
    ["gvr.resource", { gvr: { group: "", version: "v1", resource: "" } }],
    ["gvr", { gvr: undefined }],
    ["initialList", { initialList: "watch" }],
    ["skip", { skip: "all" }],
    ["skip", { skip: null }],
  ];
  for (const [field, change] of cases) {
    assert.throws(
      () =>
        new SingleWatcher(
          { ...valid, ...change } as SingleWatcherConfig,
          h.client,
        ),
      (e: unknown) => {
        assert.ok(e instanceof WatcherConfigError, `${field}: ${e}`);
        assert.equal(e.field, field);
        assert.match(e.message, new RegExp(field));
        return true;
      },
    );
  }
  assert.throws(
    () => new SingleWatcher(valid, {} as never),
    (e: unknown) => e instanceof WatcherConfigError && e.field === "client",
  );
  assert.throws(
    () => new SingleWatcher(valid, h.client, { idleTimeoutMs: 0 }),
    (e: unknown) =>
      e instanceof WatcherConfigError && e.field === "idleTimeoutMs",
  );
  assert.equal(h.server.requests.length, 0, "nothing was requested");
});

Deno.test("SingleWatcher escapes its name in the field selector, as client-go does", async () => {
  // RBAC objects take any path-segment name, e.g. "a,b=c\\d": unescaped,
  // the server would read two terms and answer 400.
  const name = "team:a,b=c\\d";
  const selectors: (string | null)[] = [];
  const client = {
    performRequest(opts: {
      querystring?: URLSearchParams;
      expectStream?: boolean;
      abortSignal?: AbortSignal;
    }): Promise<unknown> {
      selectors.push(opts.querystring?.get("fieldSelector") ?? null);
      if (opts.querystring?.get("watch") !== "1") {
        // A LIST body, read as a stream.
        return Promise.resolve(
          new Blob([JSON.stringify({
            metadata: { resourceVersion: "5" },
            items: [{ metadata: { name, resourceVersion: "5" } }],
          })]).stream(),
        );
      }
      return Promise.resolve(
        new ReadableStream<Uint8Array>({
          start(controller) {
            opts.abortSignal?.addEventListener(
              "abort",
              () => controller.error(opts.abortSignal?.reason),
            );
          },
        }),
      );
    },
  };
  let synced: KubeObject | null = null;
  const watcher = new SingleWatcher(
    {
      gvr: {
        group: "rbac.authorization.k8s.io",
        version: "v1",
        resource: "roles",
      },
      namespace: NS,
      name,
      onChange: () => {},
      onSyncComplete: (obj) => void (synced = obj),
    },
    client as never,
    { logger: new RecordingLogger(), clock: new FakeClock() },
  );
  watcher.start();
  await watcher.waitForSync(AbortSignal.timeout(5_000));
  await waitFor(() => selectors.length === 2, { description: "a watch" });
  await watcher.stop();
  const escaped = "metadata.name=team:a\\,b\\=c\\\\d";
  assert.deepEqual(selectors, [escaped, escaped]);
  assert.equal((synced as KubeObject | null)?.metadata.name, name);
});
