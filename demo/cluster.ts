import type { Gvr, KubeObject } from "../mod.ts";
import type { FakeApiServer } from "../testing/mod.ts";
import { SeededRandom } from "../testing/_seeded_random.ts";

export const INGRESSES: Gvr = {
  group: "networking.k8s.io",
  version: "v1",
  resource: "ingresses",
};
export const SERVICES: Gvr = { group: "", version: "v1", resource: "services" };
export const ENDPOINTSLICES: Gvr = {
  group: "discovery.k8s.io",
  version: "v1",
  resource: "endpointslices",
};
export const SECRETS: Gvr = { group: "", version: "v1", resource: "secrets" };
export const CONFIGMAPS: Gvr = {
  group: "",
  version: "v1",
  resource: "configmaps",
};

/** The Secret the SingleWatcher follows. */
export const CONFIG_SECRET = { namespace: "haptic", name: "haproxy-config" };
export const SERVICE_NAME_LABEL = "kubernetes.io/service-name";
export const OUR_CLASS = "haproxy";
const OTHER_CLASS = "nginx";

const APPS: Record<string, string[]> = {
  shop: ["web", "cart", "catalog", "checkout", "search", "images"],
  blog: ["frontend", "api", "comments", "feeds"],
  payments: ["gateway", "ledger", "fraud", "webhooks", "refunds"],
  haptic: ["stats"],
};
const EXTRA_APPS = [
  "orders",
  "reviews",
  "auth",
  "metrics",
  "mailer",
  "assets",
  "search-v2",
  "recommend",
];

/**
 * The tests' seeded generator (so that a run can be repeated), and the
 * demo's random name suffixes.
 */
export class Rng extends SeededRandom {
  suffix(): string {
    const chars = "bcdfghjklmnpqrstvwxz2456789";
    let s = "";
    for (let i = 0; i < 5; i++) s += chars[Math.floor(this.next() * 27)];
    return s;
  }
}

/** Base64 of a UTF-8 string, as Secret `data` holds it. */
export function b64(text: string): string {
  return btoa(String.fromCharCode(...new TextEncoder().encode(text)));
}

function managedFields(manager: string): unknown[] {
  return [{
    manager,
    operation: "Apply",
    apiVersion: "networking.k8s.io/v1",
    time: new Date().toISOString(),
    fieldsType: "FieldsV1",
    fieldsV1: { "f:spec": { "f:rules": {}, "f:ingressClassName": {} } },
  }];
}

export function ingress(
  namespace: string,
  app: string,
  className: string,
): KubeObject {
  return {
    metadata: {
      name: app,
      namespace,
      labels: { app },
      managedFields: managedFields("kubectl"),
    },
    spec: {
      ingressClassName: className,
      rules: [{
        host: `${app}.${namespace}.example.com`,
        http: {
          paths: [{
            path: "/",
            pathType: "Prefix",
            backend: { service: { name: app, port: { number: 80 } } },
          }],
        },
      }],
    },
  };
}

export function service(namespace: string, app: string): KubeObject {
  return {
    metadata: { name: app, namespace, labels: { app } },
    spec: {
      type: "ClusterIP",
      selector: { app },
      ports: [{ name: "http", port: 80, targetPort: 8080, protocol: "TCP" }],
    },
  };
}

export function endpointSlice(
  namespace: string,
  app: string,
  rng: Rng,
  endpoints = rng.int(1, 4),
): KubeObject {
  return {
    addressType: "IPv4",
    metadata: {
      name: `${app}-${rng.suffix()}`,
      namespace,
      labels: {
        [SERVICE_NAME_LABEL]: app,
        "endpointslice.kubernetes.io/managed-by": "endpointslice-controller",
      },
    },
    endpoints: podEndpoints(endpoints, rng),
    ports: [{ name: "http", port: 8080, protocol: "TCP" }],
  };
}

export function podEndpoints(count: number, rng: Rng): unknown[] {
  const out = [];
  for (let i = 0; i < count; i++) {
    out.push({
      addresses: [`10.244.${rng.int(0, 7)}.${rng.int(2, 254)}`],
      conditions: { ready: rng.chance(0.9) },
      nodeName: `node-${rng.int(1, 3)}`,
    });
  }
  return out;
}

export function configSecret(maxconn: number, password: string): KubeObject {
  return {
    metadata: {
      ...CONFIG_SECRET,
      labels: { "app.kubernetes.io/part-of": "haptic" },
    },
    type: "Opaque",
    data: {
      maxconn: b64(String(maxconn)),
      "timeout-client": b64("30s"),
      "stats-password": b64(password),
    },
  };
}

/** What `seedCluster` created. */
export interface Seeded {
  namespaces: number;
  ingresses: number;
  ours: number;
  services: number;
  slices: number;
}

/** Fills the server with a small, plausible cluster. */
export function seedCluster(server: FakeApiServer, rng: Rng): Seeded {
  const seeded: Seeded = {
    namespaces: 0,
    ingresses: 0,
    ours: 0,
    services: 0,
    slices: 0,
  };
  for (const [namespace, apps] of Object.entries(APPS)) {
    server.create("namespaces", { metadata: { name: namespace } });
    seeded.namespaces++;
    for (const app of apps) {
      server.create(SERVICES, service(namespace, app));
      seeded.services++;
      for (let i = rng.int(1, 2); i > 0; i--) {
        server.create(ENDPOINTSLICES, endpointSlice(namespace, app, rng));
        seeded.slices++;
      }
      const className = rng.chance(0.7) ? OUR_CLASS : OTHER_CLASS;
      server.create(INGRESSES, ingress(namespace, app, className));
      seeded.ingresses++;
      if (className === OUR_CLASS) seeded.ours++;
    }
  }
  server.create(SECRETS, configSecret(2000, rng.suffix()));
  return seeded;
}

/** A namespace and an app name not in use yet, for the churn to deploy. */
export function newApp(
  server: FakeApiServer,
  rng: Rng,
): { namespace: string; app: string } | undefined {
  const namespace = rng.pick(Object.keys(APPS).filter((n) => n !== "haptic"));
  const taken = new Set(
    server.list(SERVICES, namespace).map((s) => s.metadata.name),
  );
  const free = EXTRA_APPS.concat(APPS[namespace]).filter((a) => !taken.has(a));
  return free.length === 0 ? undefined : { namespace, app: rng.pick(free) };
}

export { OTHER_CLASS };
