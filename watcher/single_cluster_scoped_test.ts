// A SingleWatcher of a cluster-scoped object (a Namespace, a Node, a
// ClusterRole): no namespace in the config, none in the URL.
import assert from "node:assert/strict";
import { SingleWatcher, type SingleWatcherConfig } from "./single.ts";
import { WatcherConfigError } from "./watcher_config.ts";
import { FetchClient } from "../client/fetch_client.ts";
import { FakeApiServer } from "../testing/fake_api_server.ts";
import { mockFetch } from "../testing/mock_fetch.ts";
import { FakeClock, waitFor } from "../testing/fake_clock.ts";
import { RecordingLogger } from "../testing/recording_logger.ts";
import type { Gvr, KubeObject } from "../types.ts";

const NAMESPACES: Gvr = { group: "", version: "v1", resource: "namespaces" };
const NODES: Gvr = { group: "", version: "v1", resource: "nodes" };
const CLUSTER_ROLES: Gvr = {
  group: "rbac.authorization.k8s.io",
  version: "v1",
  resource: "clusterroles",
};
const SECRETS: Gvr = { group: "", version: "v1", resource: "secrets" };

/** What the callbacks saw, in order. */
type Call = { kind: "sync" | "change"; obj: KubeObject | null };

/**
 * A fake server on a fake clock behind the real FetchClient, and one
 * SingleWatcher on it; disposing stops the watcher and closes the rest.
 */
class Harness implements AsyncDisposable {
  readonly clock = new FakeClock({ now: 1_000_000 });
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

  /** Creates, starts and waits for the initial sync. */
  async sync(
    config: Omit<SingleWatcherConfig, "onChange" | "onSyncComplete">,
  ): Promise<SingleWatcher> {
    const watcher = new SingleWatcher(
      {
        ...config,
        onChange: (obj) => void this.calls.push({ kind: "change", obj }),
        onSyncComplete: (obj) => void this.calls.push({ kind: "sync", obj }),
      },
      this.client,
      { logger: this.logger, clock: this.clock },
    );
    this.#watcher = watcher;
    watcher.start();
    await watcher.waitForSync(AbortSignal.timeout(5_000));
    return watcher;
  }

  async changesReach(n: number): Promise<void> {
    await waitFor(() => this.changes.length >= n, {
      description: `${n} onChange calls (have ${this.changes.length})`,
    });
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

/** The paths and field selectors of the LIST and the first WATCH sent. */
async function requested(h: Harness): Promise<string[]> {
  await waitFor(() => h.server.requests.some((r) => r.verb === "watch"), {
    description: "a watch",
  });
  return ["list", "watch"].map((verb) => {
    const r = h.server.requests.find((r) => r.verb === verb)!;
    return `${verb} ${r.path}?fieldSelector=${r.query.fieldSelector}`;
  });
}

const cases: {
  what: string;
  gvr: Gvr;
  name: string;
  path: string;
  config: Partial<SingleWatcherConfig>;
  object: KubeObject;
}[] = [
  {
    what: "a Namespace (namespace left out)",
    gvr: NAMESPACES,
    name: "haptic",
    path: "/api/v1/namespaces",
    config: {},
    object: { metadata: { name: "haptic" } },
  },
  {
    what: "a Node (namespace: undefined)",
    gvr: NODES,
    name: "worker-1",
    path: "/api/v1/nodes",
    config: { namespace: undefined },
    object: { metadata: { name: "worker-1" }, spec: {} },
  },
  {
    what: "a ClusterRole",
    gvr: CLUSTER_ROLES,
    name: "haptic:reader",
    path: "/apis/rbac.authorization.k8s.io/v1/clusterroles",
    config: {},
    object: {
      metadata: { name: "haptic:reader" },
      rules: [{ apiGroups: [""], resources: ["secrets"], verbs: ["get"] }],
    },
  },
];

for (const c of cases) {
  Deno.test(`SingleWatcher watches ${c.what}: no namespace in the URL, a delete is onChange(null)`, async () => {
    await using h = new Harness();
    h.server.create(c.gvr, c.object);
    h.server.create(c.gvr, { metadata: { name: "unrelated" } });
    const watcher = await h.sync({ gvr: c.gvr, name: c.name, ...c.config });

    assert.deepEqual(await requested(h), [
      `list ${c.path}?fieldSelector=metadata.name=${c.name}`,
      `watch ${c.path}?fieldSelector=metadata.name=${c.name}`,
    ]);
    assert.equal(h.calls.length, 1);
    assert.equal(h.calls[0].kind, "sync");
    assert.equal(h.calls[0].obj?.metadata.name, c.name);
    assert.equal(h.calls[0].obj?.metadata.namespace, undefined);
    assert.equal(await watcher.waitForSync(), 1);

    h.server.patch(c.gvr, "", c.name, { metadata: { labels: { a: "b" } } });
    await h.changesReach(1);
    assert.deepEqual(h.changes[0]?.metadata.labels, { a: "b" });
    h.server.delete(c.gvr, "", c.name);
    await h.changesReach(2);
    assert.equal(h.changes[1], null);
    assert.equal(watcher.current, null);
    assert.equal(h.changes.length, 2, "the unrelated object is not delivered");
  });
}

Deno.test("SingleWatcher of a cluster-scoped object syncs as absent, then sees its creation", async () => {
  await using h = new Harness();
  const watcher = await h.sync({ gvr: NAMESPACES, name: "later" });
  assert.deepEqual(h.calls, [{ kind: "sync", obj: null }]);
  assert.equal(await watcher.waitForSync(), 0);
  h.server.create(NAMESPACES, { metadata: { name: "later" } });
  await h.changesReach(1);
  assert.equal(h.changes[0]?.metadata.name, "later");
});

Deno.test("SingleWatcher without a namespace skips a namespaced object of its name, and says to set namespace", async () => {
  await using h = new Harness();
  // namespace forgotten for a namespaced type: the request goes to every
  // namespace, where the name may be taken more than once.
  h.server.create(SECRETS, { metadata: { name: "creds", namespace: "a" } });
  const watcher = await h.sync({ gvr: SECRETS, name: "creds" });
  h.server.create(SECRETS, { metadata: { name: "creds", namespace: "b" } });
  await waitFor(() => watcher.health().events >= 1, {
    description: "the watch event",
  });
  assert.deepEqual(h.calls, [{ kind: "sync", obj: null }]);
  assert.equal(watcher.current, null);
  const warnings = h.logger.at("warn");
  assert.equal(warnings.length, 1, h.logger.text());
  assert.match(warnings[0].message, /namespace/);
  assert.match(warnings[0].message, /creds/);
});

Deno.test("SingleWatcher namespace: an empty string is refused with a message saying to leave it out", async () => {
  await using h = new Harness();
  for (const namespace of ["", 5, null]) {
    assert.throws(
      () =>
        new SingleWatcher(
          {
            gvr: NAMESPACES,
            namespace,
            name: "haptic",
            onChange: () => {},
          } as unknown as SingleWatcherConfig,
          h.client,
        ),
      (e: unknown) => {
        assert.ok(e instanceof WatcherConfigError, String(e));
        assert.equal(e.field, "namespace");
        assert.match(e.message, /omit it for a cluster-scoped object/);
        return true;
      },
    );
  }
  assert.equal(h.server.requests.length, 0, "nothing was requested");
});
