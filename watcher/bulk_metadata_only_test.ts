import assert from "node:assert/strict";
import type { KubeObject, PartialObjectMetadata } from "../types.ts";
import type { RequestOptions, RestClient } from "../client/rest_client.ts";
import { FetchClient } from "../client/fetch_client.ts";
import { FakeApiServer } from "../testing/fake_api_server.ts";
import { mockFetch } from "../testing/mock_fetch.ts";
import { FakeClock, waitFor } from "../testing/fake_clock.ts";
import { silentLogger } from "../logger.ts";
import { RecordingLogger } from "../testing/recording_logger.ts";
import { Watcher } from "./watcher.ts";
import { SingleWatcher } from "./single.ts";
import { WatcherConfigError } from "../config_error.ts";

const PODS = { group: "", version: "v1", resource: "pods" };

function pod(name: string): KubeObject {
  return {
    metadata: {
      name,
      namespace: "shop",
      labels: { app: "web" },
      ownerReferences: [{ kind: "ReplicaSet", name: "web", uid: "u" }],
    },
    spec: { nodeName: "node-1", containers: [{ name: "c", image: "i" }] },
  };
}

/**
 * A fake server holding pod `a` on a fake clock, and a client recording the
 * `accept` of each request (dropping it when `drop`, as a client that
 * cannot set headers does).
 */
function setUp(drop: boolean) {
  const clock = new FakeClock();
  const server = new FakeApiServer({ clock });
  const fetch = mockFetch(server);
  server.create(PODS, pod("a"));
  const inner = new FetchClient({ server: server.url });
  const accepts: string[] = [];
  const client = {
    performRequest(opts: RequestOptions) {
      const watch = opts.querystring?.has("watch") === true;
      accepts.push(`${watch ? "WATCH" : "LIST"} ${opts.accept}`);
      const { accept: _, ...rest } = opts;
      return inner.performRequest(drop ? rest : opts);
    },
  } as RestClient;
  return {
    clock,
    server,
    client,
    accepts,
    async [Symbol.asyncDispose]() {
      await server.close();
      fetch[Symbol.dispose]();
    },
  };
}

for (const drop of [false, true]) {
  Deno.test(
    `Watcher metadataOnly stores apiVersion, kind and metadata only (client ${
      drop ? "ignoring" : "sending"
    } Accept)`,
    async () => {
      await using t = setUp(drop);
      const { clock, server, client, accepts } = t;
      const created: PartialObjectMetadata[] = [];
      const watcher = new Watcher<PartialObjectMetadata>(
        {
          gvr: PODS,
          indexBy: ["metadata.namespace", "metadata.name"],
          metadataOnly: true,
          onChange: (_store, batch) =>
            void created.push(...batch.objects.created),
        },
        client,
        { clock, logger: silentLogger },
      );
      const running = watcher.start();
      assert.equal(await watcher.waitForSync(), 1);
      await waitFor(() => server.openWatchCount === 1);
      server.create(PODS, pod("b"));
      await waitFor(() => created.length === 1);
      for (const obj of [...watcher.store.list() as KubeObject[], ...created]) {
        assert.deepEqual(Object.keys(obj).sort(), [
          "apiVersion",
          "kind",
          "metadata",
        ]);
        assert.equal(obj.kind, "PartialObjectMetadata");
        assert.equal(obj.apiVersion, "meta.k8s.io/v1");
        assert.deepEqual(obj.metadata.labels, { app: "web" });
      }
      assert.deepEqual(accepts, [
        "LIST application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json",
        "WATCH application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json",
      ]);
      await watcher.stop();
      await running;
    },
  );
}

Deno.test("Watcher metadataOnly: the field selector sees the metadata-only form, whatever the client fetched", async () => {
  await using t = setUp(true);
  const { clock, client } = t;
  const watcher = new Watcher(
    {
      gvr: PODS,
      indexBy: ["metadata.name"],
      metadataOnly: true,
      // The full object the client fetched is a Pod; its form is not.
      fieldSelector: "kind=PartialObjectMetadata",
      onChange: () => {},
    },
    client,
    { clock, logger: silentLogger },
  );
  const running = watcher.start();
  assert.equal(await watcher.waitForSync(), 1, "selected in its reduced form");
  await watcher.stop();
  await running;
});

Deno.test("SingleWatcher metadataOnly asks for PartialObjectMetadata and keeps only metadata", async () => {
  await using t = setUp(true);
  const { clock, client, accepts } = t;
  const watcher = new SingleWatcher(
    {
      gvr: PODS,
      namespace: "shop",
      name: "a",
      metadataOnly: true,
      onChange: () => {},
    },
    client,
    { clock, logger: silentLogger },
  );
  const running = watcher.start();
  assert.equal(await watcher.waitForSync(), 1);
  assert.deepEqual(Object.keys(watcher.current!).sort(), [
    "apiVersion",
    "kind",
    "metadata",
  ]);
  assert.match(
    accepts[0],
    /^LIST application\/json;as=PartialObjectMetadataList;/,
  );
  assert.equal(watcher.health().shared, false);
  assert.equal(watcher.health().notShared, "SingleWatcher");
  await watcher.stop();
  await running;
});

Deno.test("metadataOnly must be a boolean", () => {
  assert.throws(
    () =>
      new Watcher({
        gvr: PODS,
        indexBy: ["metadata.name"],
        metadataOnly: "yes" as never,
        onChange: () => {},
      }, new FetchClient({ server: "http://127.0.0.1:1" })),
    /metadataOnly: must be a boolean/,
  );
});

Deno.test("Watcher metadataOnly with a client that cannot send Accept (KubectlRawRestClient) asks for full objects and keeps their metadata", async () => {
  await using t = setUp(false);
  const inner = t.client;
  let refused = 0;
  const sent: (string | undefined)[] = [];
  const client = {
    performRequest(opts: RequestOptions) {
      if (opts.accept) {
        refused++;
        // What @cloudydeno/kubernetes-client's kubectl-based client throws.
        throw new Error(
          `KubectlRawRestClient cannot include arbitrary Accept header '${opts.accept}'`,
        );
      }
      sent.push(opts.accept);
      return inner.performRequest(opts as never);
    },
  } as RestClient;
  const logger = new RecordingLogger();
  const watcher = new Watcher<PartialObjectMetadata>(
    {
      gvr: PODS,
      indexBy: ["metadata.name"],
      metadataOnly: true,
      onChange: () => {},
    },
    client,
    { clock: t.clock, logger },
  );
  const running = watcher.start();
  assert.equal(await watcher.waitForSync(), 1);
  await waitFor(() => t.server.openWatchCount === 1);
  const [pod] = watcher.store.get("a") as KubeObject[];
  assert.deepEqual(Object.keys(pod).sort(), ["apiVersion", "kind", "metadata"]);
  assert.equal(refused, 1, "refused once, then asked without the header");
  assert.deepEqual(sent, [undefined, undefined]);
  assert.equal(logger.at("warn").length, 1);
  assert.match(logger.text(), /cannot send the metadata-only Accept header/);
  assert.equal(watcher.health().lastError, undefined);
  await watcher.stop();
  await running;
});

Deno.test("Watcher with metadataOnly refuses at construction a path a metadata-only object never has", () => {
  const client = { performRequest: () => Promise.reject(new Error("unused")) };
  const gvr = { group: "", version: "v1", resource: "configmaps" };
  const build = (config: Record<string, unknown>) => {
    const logger = new RecordingLogger();
    new Watcher(
      {
        gvr,
        indexBy: ["metadata.name"],
        metadataOnly: true,
        onChange: () => {},
        ...config,
      },
      client,
      { logger },
    );
    return logger.at("warn");
  };
  const refused = (config: Record<string, unknown>) => {
    try {
      build(config);
    } catch (error) {
      assert.ok(error instanceof WatcherConfigError, String(error));
      return [error.field, error.message];
    }
    assert.fail(`${JSON.stringify(config)} was accepted`);
  };
  assert.deepEqual(refused({ fieldSelector: "data.tier=web" }), [
    "fieldSelector",
    "Invalid watcher config: fieldSelector: path data.tier can never match with metadataOnly: a metadata-only object has only apiVersion, kind and metadata (select on a metadata path, or drop metadataOnly)",
  ]);
  assert.deepEqual(refused({ fieldSelector: "spec.nodeName!=" }), [
    "fieldSelector",
    "Invalid watcher config: fieldSelector: path spec.nodeName can never match with metadataOnly: a metadata-only object has only apiVersion, kind and metadata (select on a metadata path, or drop metadataOnly)",
  ]);
  assert.deepEqual(refused({ indexBy: ["metadata.namespace", "spec.class"] }), [
    "indexBy",
    "Invalid watcher config: indexBy: path spec.class can never match with metadataOnly: a metadata-only object has only apiVersion, kind and metadata (index by a metadata path, add the field in a transform, or drop metadataOnly)",
  ]);
  // Metadata paths are there; a transform may add what it indexes by;
  // without metadataOnly the object has every field. Nothing to warn of.
  assert.deepEqual(
    build({
      fieldSelector: "metadata.labels.tier=web,kind=ConfigMap",
      indexBy: [
        "metadata.namespace",
        "metadata.labels['app.kubernetes.io/name']",
      ],
    }),
    [],
  );
  assert.deepEqual(
    build({
      indexBy: ["spec.class"],
      transform: (o: KubeObject) => ({ ...o, spec: { class: "x" } }),
    }),
    [],
  );
  assert.deepEqual(
    build({
      metadataOnly: false,
      fieldSelector: "data.tier=web",
      indexBy: ["spec.class"],
    }),
    [],
  );
});
