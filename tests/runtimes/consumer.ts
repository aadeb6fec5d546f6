// A typed consumer of the npm package, written as a Node or Bun user
// writes one: models shaped like generated ones (optional metadata, no
// index signature), the package imported by name. `.ci/runtimes` compiles
// it with tsc against the package's declarations (strict, nodenext, no
// skipLibCheck) in a project where the packed tarball is installed, runs
// the output on Node and the source on Bun. Time is a FakeClock: nothing
// sleeps.
import {
  type ChangeBatch,
  DebounceGroup,
  FetchClient,
  mergeChangeBatches,
  type ReadableStore,
  SingleWatcher,
  Watcher,
} from "@haptic/k8s-watcher";
import {
  FakeApiServer,
  FakeClock,
  mockFetch,
  waitFor,
} from "@haptic/k8s-watcher/testing";
import type { KubeObjectLike } from "@haptic/k8s-watcher/types";

interface Ingress {
  apiVersion?: string;
  kind?: string;
  metadata?: { namespace?: string; name?: string; resourceVersion?: string };
  spec?: { rules?: { host?: string }[] };
}

interface Service {
  metadata?: { namespace?: string; name?: string };
  spec?: { ports?: { port: number }[] };
}

const runtime = "Deno" in globalThis
  ? "Deno"
  : "Bun" in globalThis
  ? "Bun"
  : `Node ${process.versions.node}`;

function check(condition: boolean, what: string): void {
  if (!condition) throw new Error(`consumer on ${runtime}: ${what}`);
}

function names<T extends KubeObjectLike>(objects: readonly T[]): string[] {
  return objects.map((o) => `${o.metadata?.namespace}/${o.metadata?.name}`);
}

async function hostsOf(store: ReadableStore<Ingress>): Promise<string[]> {
  const all = await store.list();
  return all.flatMap((i) => i.spec?.rules?.map((r) => r.host ?? "") ?? []);
}

const ingresses = {
  group: "networking.k8s.io",
  version: "v1",
  resource: "ingresses",
};
const services = { group: "", version: "v1", resource: "services" };

const clock = new FakeClock();
const server = new FakeApiServer({ clock });
const mock = mockFetch(server);
const client = new FetchClient({ server: server.url });
server.create(ingresses, {
  metadata: { namespace: "shop", name: "web" },
  spec: { rules: [{ host: "shop.example" }] },
});
server.create(services, {
  metadata: { namespace: "shop", name: "web" },
  spec: { ports: [{ port: 80 }] },
});

const renders: { created: string[]; hosts: string[] }[] = [];
const group = new DebounceGroup<{ ingresses: ChangeBatch<Ingress> }>({
  interval: 1_000,
  clock,
  merge: mergeChangeBatches,
  onChange: async (batches) => {
    const batch = batches.get("ingresses");
    if (batch === undefined) return;
    renders.push({
      created: names(batch.objects.created),
      hosts: await hostsOf(ingressWatcher.store),
    });
  },
});
const ingressWatcher = new Watcher<Ingress>(
  {
    gvr: ingresses,
    indexBy: ["metadata.namespace", "metadata.name"] as const,
    group: group.member("ingresses"),
  },
  client,
  { clock },
);

const ports: number[] = [];
const service = new SingleWatcher<Service>(
  {
    gvr: services,
    namespace: "shop",
    name: "web",
    onSyncComplete: (svc) => {
      for (const p of svc?.spec?.ports ?? []) ports.push(p.port);
    },
    onChange: () => {},
  },
  client,
  { clock },
);

ingressWatcher.start();
service.start();
const synced: number[] = [
  await ingressWatcher.waitForSync(),
  await service.waitForSync(),
];
check(synced.join() === "1,1", `synced ${synced.join()}, not 1,1`);
await waitFor(() => renders.length === 1);
server.create(ingresses, {
  metadata: { namespace: "shop", name: "api" },
  spec: { rules: [{ host: "api.example" }] },
});
await clock.tick(1_000);
await waitFor(() => renders.length === 2);
check(
  JSON.stringify(renders[1]) ===
    JSON.stringify({
      created: ["shop/api"],
      hosts: ["api.example", "shop.example"],
    }),
  `the second render is ${JSON.stringify(renders[1])}`,
);
check(ports.join() === "80", `the service's ports are ${ports.join()}`);
await ingressWatcher.stop();
await service.stop();
await group.stop();
await server.close();
mock[Symbol.dispose]();
console.log(
  `consumer ok on ${runtime}: typed Watcher, SingleWatcher and DebounceGroup, ${renders.length} renders`,
);
