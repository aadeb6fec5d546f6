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
      check<Same<Stored<typeof store>, T>>();
      check<Same<InBatch<typeof batch>, T>>();
      check<Same<typeof batch.objects.created[number], T>>();
      check<Same<typeof batch.objects.modified[number]["previous"], T>>();
      check<Same<typeof batch.objects.deleted[number], T>>();
    },
    onSyncComplete(store) {
      check<Same<Stored<typeof store>, T>>();
    },
  }, client);
  check<Same<Stored<typeof watcher.store>, T>>();

  const single = new SingleWatcher<T>({
    gvr: ingresses,
    namespace: "shop",
    name: "web",
    onChange(obj) {
      check<Same<typeof obj, T | null>>();
    },
  }, client);
  check<Same<typeof single.current, T | null>>();

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
  check<Same<Stored<typeof plain.store>, KubeObject>>();
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
