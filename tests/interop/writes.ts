// Types only, never run: `deno check tests/interop/*.ts` proves that
// @kubernetes/client-node's models work as the type parameter of
// `ResourceClient`, that what it answers is typed as the model, that what a
// watcher's store hands out can be written back, and that the controller
// helpers and the Event recorder take the models. A line marked
// `@ts-expect-error` must fail to compile; `check<Same<A, B>>()` compiles
// only when A and B are the same type.
//
// deno-lint-ignore-file no-import-prefix -- pinned here, not in deno.json:
// the published package must not list them as dependencies.
import type {
  V1ConfigMap,
  V1Deployment,
  V1Service,
} from "npm:@kubernetes/client-node@2.0.1";
import { type RestClient, Watcher } from "../../mod.ts";
import {
  type PatchBody,
  ResourceClient,
  type ResourceList,
} from "../../client/mod.ts";
import {
  EventRecorder,
  setControllerReference,
  withFinalizer,
} from "../../controller/mod.ts";
import type { ReadonlyFields } from "../../types.ts";

/** True exactly when `A` and `B` are the same type. */
type Same<A, B> = (<X>() => X extends A ? 1 : 2) extends
  (<X>() => X extends B ? 1 : 2) ? true : false;
/** Compiles only for `true`. */
function check<_ extends true>(): void {}

const CONFIGMAPS = { group: "", version: "v1", resource: "configmaps" };
const DEPLOYMENTS = { group: "apps", version: "v1", resource: "deployments" };

/** Every verb of `ResourceClient<V1ConfigMap>`, typed as the model. */
export async function configMaps(client: RestClient): Promise<void> {
  const cms = new ResourceClient<V1ConfigMap>({
    client,
    gvr: CONFIGMAPS,
    namespace: "shop",
  });
  const got = await cms.get("settings");
  check<Same<typeof got, V1ConfigMap>>();
  const mode: string | undefined = got.data?.mode;
  const page = await cms.list({ labelSelector: "app=web" });
  check<Same<typeof page, ResourceList<V1ConfigMap>>>();
  const made = await cms.create({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "settings" },
    data: { mode: mode ?? "fast" },
  });
  check<Same<typeof made, V1ConfigMap>>();
  const replaced = await cms.replace({ ...made, data: { mode: "slow" } });
  check<Same<typeof replaced, V1ConfigMap>>();
  const merge: PatchBody = { data: { mode: null } };
  await cms.patch("settings", merge);
  await cms.patch("settings", [{ op: "remove", path: "/data/mode" }], {
    type: "json",
  });
  await cms.patch("settings", { metadata: { labels: { tier: "web" } } }, {
    type: "strategic",
  });
  // An apply configuration: every field optional, the model's shape.
  const applied = await cms.apply({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "settings", labels: { app: "web" } },
    data: { mode: "fast" },
  }, { fieldManager: "widgets", force: true });
  check<Same<typeof applied, V1ConfigMap>>();
  const deleted = await cms.delete("settings", {
    preconditions: { uid: made.metadata?.uid },
  });
  check<Same<typeof deleted, V1ConfigMap | undefined>>();

  await cms.apply({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "settings" },
    // @ts-expect-error: a ConfigMap's data are strings.
    data: { mode: 1 },
  }, { fieldManager: "widgets" });
  // @ts-expect-error: a Service's field on a ConfigMap.
  console.log(got.spec);
  // @ts-expect-error: apply needs its field manager.
  await cms.apply({ metadata: { name: "settings" } }, {});
}

/** The status subresource of a Deployment, typed as the model. */
export async function deployments(client: RestClient): Promise<void> {
  const deployments = new ResourceClient<V1Deployment>({
    client,
    gvr: DEPLOYMENTS,
    namespace: "shop",
  });
  const read = await deployments.getStatus("web");
  const ready: number | undefined = read.status?.readyReplicas;
  const written = await deployments.replaceStatus({
    ...read,
    status: { ...read.status, observedGeneration: read.metadata?.generation },
  });
  check<Same<typeof written, V1Deployment>>();
  await deployments.patchStatus("web", { status: { readyReplicas: ready } });
  await deployments.applyStatus({
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "web" },
    status: { readyReplicas: 1 },
  }, { fieldManager: "widgets" });
}

/**
 * What a watcher hands out (read-only) is written back as it is, and the
 * helpers and the recorder take the models.
 */
export function fromTheCache(client: RestClient): void {
  const cms = new ResourceClient<V1ConfigMap>({ client, gvr: CONFIGMAPS });
  const recorder = new EventRecorder(
    { reportingController: "example.com/widgets" },
    client,
  );
  new Watcher<V1Deployment>({
    gvr: DEPLOYMENTS,
    indexBy: ["metadata.namespace", "metadata.name"],
    async onChange(store) {
      for (const deployment of store.list()) {
        check<Same<typeof deployment, ReadonlyFields<V1Deployment>>>();
        const child: V1ConfigMap = {
          apiVersion: "v1",
          kind: "ConfigMap",
          metadata: {
            name: `${deployment.metadata?.name}-config`,
            namespace: deployment.metadata?.namespace,
          },
        };
        const owned = setControllerReference(deployment, child);
        const kept = await cms.create(withFinalizer(owned, "example.com/hold"));
        recorder.event(deployment, {
          type: "Normal",
          reason: "ConfigWritten",
          action: "Reconciling",
          related: kept,
        });
        // A store's object is a model still: replace takes it.
        const stored: ReadonlyFields<V1ConfigMap> = kept;
        await cms.replace(stored);
      }
    },
  }, client);
  recorder.event(
    { apiVersion: "v1", kind: "Service", metadata: { name: "web" } },
    // @ts-expect-error: an Event's type is Normal or Warning.
    { type: "Info", reason: "Checked", action: "Checking" },
  );
  const service: V1Service = { metadata: { name: "web" } };
  recorder.event(service, {
    type: "Warning",
    reason: "NoEndpoints",
    action: "Checking",
  });
}
