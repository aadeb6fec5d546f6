// Types only, never run: `deno check tests/interop/*.ts` (part of
// `deno task test`) proves that the ecosystem's typed models work as the
// type parameter of every generic the package exports, and that what the
// watchers hand back is typed as the user's model. The packages come
// through `npm:` (downloaded into Deno's cache once; published code keeps
// zero dependencies). A line marked `@ts-expect-error` must fail to
// compile, and `check<Same<A, B>>()` compiles only when A and B are the
// same type, so a wrong element type fails the check.
//
// deno-lint-ignore-file no-import-prefix -- pinned here, not in deno.json:
// the published package must not list them as dependencies.
import type {
  V1ConfigMap,
  V1Ingress,
  V1LabelSelector,
  V1Pod,
  V1Service,
} from "npm:@kubernetes/client-node@2.0.1";
import type {
  IIngress,
  Ingress as IngressModel,
} from "npm:kubernetes-models@5.1.0/networking.k8s.io/v1/Ingress";
import type { IService } from "npm:kubernetes-models@5.1.0/v1/Service";
import {
  CachedStore,
  type ChangeBatch,
  DebounceGroup,
  type KubeObject,
  MemoryStore,
  mergeChangeBatches,
  type ReadableStore,
  type RestClient,
  SingleWatcher,
  type Store,
  Watcher,
} from "../../mod.ts";
import type { ReadonlyFields } from "../../types.ts";
import { cachedStore } from "../../store/mod.ts";

/** True exactly when `A` and `B` are the same type. */
type Same<A, B> = (<X>() => X extends A ? 1 : 2) extends
  (<X>() => X extends B ? 1 : 2) ? true : false;
/** Compiles only for `true`. */
function check<_ extends true>(): void {}

type Stored<S> = S extends ReadableStore<infer T> ? T : never;
type InBatch<B> = B extends ChangeBatch<infer T> ? T : never;

const ingresses = {
  group: "networking.k8s.io",
  version: "v1",
  resource: "ingresses",
};
const services = { group: "", version: "v1", resource: "services" };
// Readonly arrays are accepted where the options take lists.
const indexBy = ["metadata.namespace", "metadata.name"] as const;
const ignoreFields = ["metadata.managedFields"] as const;
const namespaces: readonly string[] = ["shop", "blog"];

/** Every generic, instantiated with the model `T`. */
function everyGeneric<T extends V1Ingress | IIngress | IngressModel | Mine>(
  client: RestClient,
): void {
  const watcher = new Watcher<T>({
    gvr: ingresses,
    indexBy,
    ignoreFields,
    namespaces,
    onChange(store, batch) {
      // What a watcher hands out is read-only (see `ReadonlyFields`).
      check<Same<Stored<typeof store>, ReadonlyFields<T>>>();
      check<Same<InBatch<typeof batch>, ReadonlyFields<T>>>();
      check<Same<typeof batch.objects.created[number], ReadonlyFields<T>>>();
      check<
        Same<
          typeof batch.objects.modified[number]["previous"],
          ReadonlyFields<T>
        >
      >();
      check<Same<typeof batch.objects.deleted[number], ReadonlyFields<T>>>();
    },
    onSyncComplete(store) {
      check<Same<Stored<typeof store>, ReadonlyFields<T>>>();
    },
  }, client);
  check<Same<Stored<typeof watcher.store>, ReadonlyFields<T>>>();
  // The default memory store answers at once: no await.
  check<Same<ReturnType<typeof watcher.store.list>, ReadonlyFields<T>[]>>();

  const single = new SingleWatcher<T>({
    gvr: ingresses,
    namespace: "shop",
    name: "web",
    onChange(obj) {
      check<Same<typeof obj, ReadonlyFields<T> | null>>();
    },
  }, client);
  check<Same<typeof single.current, ReadonlyFields<T> | null>>();

  const memory = new MemoryStore<T>();
  const store: Store<T> = memory;
  check<Same<ReturnType<typeof memory.get>[number], T>>();
  check<Same<Awaited<ReturnType<typeof store.list>>[number], T>>();
  const cached = new CachedStore<T>({ client, gvr: ingresses });
  check<Same<Awaited<ReturnType<typeof cached.get>>[number], T>>();

  const group = new DebounceGroup<ChangeBatch<T>>({
    interval: 1_000,
    merge: mergeChangeBatches,
    onChange(batches) {
      for (const batch of batches.values()) {
        check<Same<typeof batch.objects.created[number], T>>();
      }
    },
  });
  new Watcher<T>({
    gvr: ingresses,
    indexBy: ["metadata.name"],
    group: group.member("ingresses"),
  }, client);
}

/** A hand-written interface, no index signature, required metadata. */
interface Mine {
  metadata: { namespace: string; name: string };
  spec: { rules: { host: string }[] };
}

/** Reading the user's fields, typed, in callbacks. */
export function typedFields(client: RestClient): void {
  everyGeneric<V1Ingress>(client);
  everyGeneric<IIngress>(client);
  everyGeneric<IngressModel>(client);
  everyGeneric<Mine>(client);

  new Watcher<V1Service>({
    gvr: services,
    indexBy: ["metadata.namespace"],
    onChange(_store, batch) {
      const ports: (number | undefined)[] = batch.objects.created.flatMap(
        (s) => s.spec?.ports?.map((p) => p.port) ?? [],
      );
      console.log(ports);
    },
  }, client);
  new Watcher<IService>({
    gvr: services,
    indexBy: ["metadata.namespace"],
    async onChange(store) {
      const types: (string | undefined)[] = (await store.list()).map((s) =>
        s.spec?.type
      );
      console.log(types);
    },
  }, client);
  new SingleWatcher<V1ConfigMap>({
    gvr: { group: "", version: "v1", resource: "configmaps" },
    namespace: "shop",
    name: "settings",
    onChange(cm) {
      const mode: string | undefined = cm?.data?.mode;
      console.log(mode);
    },
  }, client);
  new Watcher<Mine>({
    gvr: ingresses,
    indexBy: ["metadata.name"],
    onChange(_store, batch) {
      const hosts: string[] = batch.objects.created.flatMap((i) =>
        i.spec.rules.map((r) => r.host)
      );
      console.log(hosts);
    },
  }, client);
  // Without a type parameter: KubeObject, as before.
  const plain = new Watcher({
    gvr: ingresses,
    indexBy: ["metadata.name"],
    onChange: () => {},
  }, client);
  check<Same<Stored<typeof plain.store>, ReadonlyFields<KubeObject>>>();
}

/**
 * Read objects are still the models: they pass where a model is taken and
 * compare as models, but their fields cannot be assigned.
 */
export function readOnly(client: RestClient): void {
  const render = (ingress: V1Ingress): string[] =>
    ingress.spec?.rules?.map((r) => r.host ?? "") ?? [];
  const watcher = new Watcher<V1Ingress>({
    gvr: ingresses,
    indexBy,
    onChange(store, batch) {
      for (const ingress of batch.objects.created) console.log(render(ingress));
      for (const ingress of store.get("shop")) {
        const created: Date | undefined = ingress.metadata?.creationTimestamp;
        console.log(created?.getTime());
        // @ts-expect-error: a stored object's fields are read-only
        ingress.spec!.ingressClassName = "other";
        // @ts-expect-error: at every depth
        ingress.metadata!.labels!["tier"] = "web";
      }
    },
  }, client);
  const ro: ReadonlyFields<V1Ingress>[] = watcher.store.list();
  const models: V1Ingress[] = ro;
  // A callback typed with the model itself still fits (it gives up the
  // read-only check), as README's quick start writes it.
  new Watcher<V1Ingress>({
    gvr: ingresses,
    indexBy,
    onChange: (
      store: ReadableStore<V1Ingress>,
      batch: ChangeBatch<V1Ingress>,
    ) => console.log(store.size, batch.total),
  }, client);
  console.log(models);
}

/** The store's type follows its backend; key counts follow a literal indexBy. */
export function storeTypes(client: RestClient): void {
  const secrets = new Watcher<V1ConfigMap, "async">({
    gvr: { group: "", version: "v1", resource: "secrets" },
    indexBy: ["metadata.namespace"],
    store: cachedStore(),
    onChange: async (store) => console.log((await store.get("shop")).length),
  }, client);
  check<
    Same<
      ReturnType<typeof secrets.store.get>,
      Promise<ReadonlyFields<V1ConfigMap>[]>
    >
  >();
  const pods = new Watcher({
    gvr: { group: "", version: "v1", resource: "pods" },
    indexBy: ["metadata.namespace", "metadata.name"],
    indexes: { byNode: ["spec.nodeName"] },
    transform: (obj) => obj as unknown as V1Pod,
    onChange(store) {
      const onNode: ReadonlyFields<V1Pod>[] = store.byIndex("byNode", "n1");
      console.log(onNode.length, store.get("shop", "web").length);
      // @ts-expect-error: two keys at most
      store.get("shop", "web", "x");
    },
  }, client);
  console.log(pods.store.size);
}

/** client-node's label selector is a `labelSelector` as it is. */
export function labelSelectors(
  client: RestClient,
  selector: V1LabelSelector,
): void {
  new Watcher({
    gvr: ingresses,
    indexBy,
    labelSelector: selector,
    onChange() {},
  }, client);
}

/** A group typed per member, with the ecosystem's models. */
export function typedGroup(client: RestClient): void {
  const group = new DebounceGroup<{
    ingresses: ChangeBatch<V1Ingress>;
    services: ChangeBatch<IService>;
  }>({
    interval: 1_000,
    merge: mergeChangeBatches,
    onChange(batches) {
      const ingresses = batches.get("ingresses");
      const services = batches.get("services");
      check<Same<typeof ingresses, ChangeBatch<V1Ingress> | undefined>>();
      check<Same<typeof services, ChangeBatch<IService> | undefined>>();
    },
  });
  new Watcher<V1Ingress>({
    gvr: ingresses,
    indexBy: ["metadata.name"],
    group: group.member("ingresses"),
  }, client);
  new Watcher<IService>({
    gvr: services,
    indexBy: ["metadata.name"],
    group: group.member("services"),
  }, client);
  // A union of batch types, merged by mergeChangeBatches (TS2322 before).
  new DebounceGroup<ChangeBatch<V1Ingress> | ChangeBatch<V1Service>>({
    interval: 1_000,
    merge: mergeChangeBatches,
    onChange() {},
  });
}

/** What is still refused. */
export function refused(client: RestClient): void {
  // @ts-expect-error: no metadata at all.
  new MemoryStore<{ spec: { replicas: number } }>();
  // @ts-expect-error: a name that is not a string.
  new MemoryStore<{ metadata: { name: number } }>();
  new Watcher<V1Ingress>({
    gvr: ingresses,
    indexBy: ["metadata.name"],
    onChange(_store, batch) {
      // @ts-expect-error: a Service's field on an Ingress.
      console.log(batch.objects.created[0].spec?.ports);
    },
  }, client);
}
