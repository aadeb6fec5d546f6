// kubectl writes against FakeApiServer.listen(), with no extra flags:
// client-side apply (create, strategic merge patch, merge patch), delete,
// server dry runs, server-side apply (refused with 415) and bearer-token
// authentication.
import assert from "node:assert/strict";
import {
  type Cluster,
  kubectl,
  manifest,
  runKubectl,
  spawnKubectl,
  startCluster,
  until,
} from "./_kubectl_test.ts";
import {
  ignoredWithout,
  kubectlMissing,
  requireAvailable,
} from "../../tests/requirements.ts";
import { WIDGETS } from "../_call_test.ts";

type Container = {
  name: string;
  image: string;
  ports?: unknown[];
  env?: unknown[];
};

function deployment(
  spec: Record<string, unknown>,
  containers: Container[],
  annotations?: Record<string, string>,
) {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "web", labels: { app: "web" }, annotations },
    spec: {
      selector: { matchLabels: { app: "web" } },
      ...spec,
      template: {
        metadata: { labels: { app: "web" } },
        spec: { containers },
      },
    },
  };
}

const FIRST = deployment(
  {
    replicas: 1,
    strategy: { type: "RollingUpdate", rollingUpdate: { maxSurge: 1 } },
  },
  [
    {
      name: "web",
      image: "nginx:1",
      ports: [{ containerPort: 80 }, { containerPort: 443 }],
      env: [{ name: "A", value: "1" }, { name: "B", value: "2" }],
    },
    { name: "sidecar", image: "envoy:1" },
  ],
);

const SECOND = deployment(
  { replicas: 3, strategy: { type: "Recreate" } },
  [{
    name: "web",
    image: "nginx:2",
    ports: [{ containerPort: 80 }],
    env: [{ name: "B", value: "2" }, { name: "C", value: "3" }],
  }],
  { note: "x" },
);

function getDeployment(cluster: Cluster) {
  return cluster.server.get("deployments", "default", "web");
}

Deno.test({
  name:
    "kubectl apply -f creates, then applies changes with a strategic merge patch, then is unchanged",
  ignore: ignoredWithout(kubectlMissing),
  async fn() {
    requireAvailable(kubectlMissing);
    await using cluster = await startCluster();
    const first = await manifest(cluster, "first.json", FIRST);
    assert.match(
      await kubectl(cluster, "apply", "-f", first),
      /deployment\.apps\/web created/,
    );
    const created = getDeployment(cluster);
    assert.equal(created.metadata.generation, 1);
    assert.ok(
      created.metadata.annotations
        ?.["kubectl.kubernetes.io/last-applied-configuration"],
    );
    // kubectl validated through the server's OpenAPI v3 documents.
    assert.ok(
      cluster.server.requests.some((r) => r.path === "/openapi/v3"),
      "kubectl asked for /openapi/v3",
    );
    // A controller adds what the manifest does not own; apply keeps it.
    cluster.server.patch("deployments", "default", "web", {
      metadata: { labels: { "example.com/owner": "controller" } },
    });
    cluster.server.updateStatus("deployments", {
      ...getDeployment(cluster),
      status: { replicas: 1 },
    });

    const second = await manifest(cluster, "second.json", SECOND);
    cluster.server.clearRequests();
    assert.match(
      await kubectl(cluster, "apply", "-f", second),
      /deployment\.apps\/web configured/,
    );
    assert.deepEqual(
      cluster.server.requests.filter((r) => r.verb === "patch").map((r) =>
        r.query.fieldManager
      ),
      ["kubectl-client-side-apply"],
    );
    const applied = getDeployment(cluster);
    const spec = applied.spec as {
      replicas: number;
      strategy: unknown;
      template: { spec: { containers: Container[] } };
    };
    assert.equal(spec.replicas, 3);
    assert.deepEqual(spec.strategy, { type: "Recreate" });
    assert.deepEqual(spec.template.spec.containers, [{
      name: "web",
      image: "nginx:2",
      ports: [{ containerPort: 80 }],
      env: [{ name: "B", value: "2" }, { name: "C", value: "3" }],
    }]);
    assert.equal(applied.metadata.annotations?.note, "x");
    assert.equal(
      applied.metadata.labels?.["example.com/owner"],
      "controller",
    );
    assert.deepEqual(applied.status, { replicas: 1 });
    assert.equal(applied.metadata.generation, 2);

    assert.match(
      await kubectl(cluster, "apply", "-f", second),
      /deployment\.apps\/web unchanged/,
    );
    assert.equal(
      getDeployment(cluster).metadata.resourceVersion,
      applied.metadata.resourceVersion,
    );
  },
});

Deno.test({
  name: "kubectl apply of a custom resource sends a JSON merge patch",
  ignore: ignoredWithout(kubectlMissing),
  async fn() {
    requireAvailable(kubectlMissing);
    await using cluster = await startCluster({
      resources: [WIDGETS],
    });
    const widget = (spec: Record<string, unknown>) => ({
      apiVersion: "example.com/v1",
      kind: "Widget",
      metadata: { name: "w1" },
      spec,
    });
    await kubectl(
      cluster,
      "apply",
      "-f",
      await manifest(cluster, "w1.json", widget({ size: 1, tags: ["a", "b"] })),
    );
    cluster.server.clearRequests();
    assert.match(
      await kubectl(
        cluster,
        "apply",
        "-f",
        await manifest(cluster, "w2.json", widget({ tags: ["b"] })),
      ),
      /widget\.example\.com\/w1 configured/,
    );
    const w = cluster.server.get("widgets", "default", "w1");
    assert.deepEqual(w.spec, { tags: ["b"] });
    assert.equal(w.metadata.generation, 2);
  },
});

Deno.test({
  name: "kubectl delete removes objects by manifest and by name",
  ignore: ignoredWithout(kubectlMissing),
  async fn() {
    requireAvailable(kubectlMissing);
    await using cluster = await startCluster();
    const first = await manifest(cluster, "first.json", FIRST);
    await kubectl(cluster, "apply", "-f", first);
    cluster.server.create("configmaps", { metadata: { name: "settings" } });
    assert.match(
      await kubectl(cluster, "delete", "-f", first),
      /deployment\.apps "web" deleted/,
    );
    assert.match(
      await kubectl(cluster, "delete", "configmap", "settings"),
      /configmap "settings" deleted/,
    );
    assert.deepEqual(cluster.server.list("deployments"), []);
    assert.deepEqual(cluster.server.list("configmaps"), []);
  },
});

Deno.test({
  name:
    "kubectl apply and delete with --dry-run=server report what they would do and change nothing",
  ignore: ignoredWithout(kubectlMissing),
  async fn() {
    requireAvailable(kubectlMissing);
    await using cluster = await startCluster();
    const first = await manifest(cluster, "first.json", FIRST);
    assert.match(
      await kubectl(cluster, "apply", "--dry-run=server", "-f", first),
      /deployment\.apps\/web created \(server dry run\)/,
    );
    assert.deepEqual(cluster.server.list("deployments"), []);
    await kubectl(cluster, "apply", "-f", first);
    const stored = getDeployment(cluster);
    const second = await manifest(cluster, "second.json", SECOND);
    assert.match(
      await kubectl(cluster, "apply", "--dry-run=server", "-f", second),
      /deployment\.apps\/web configured \(server dry run\)/,
    );
    assert.match(
      await kubectl(cluster, "delete", "--dry-run=server", "-f", second),
      /deployment\.apps "web" deleted \(server dry run\)/,
    );
    assert.deepEqual(getDeployment(cluster), stored);
  },
});

Deno.test({
  name:
    "kubectl apply --server-side creates, then removes what the manager no longer applies; another manager's change conflicts until --force-conflicts",
  ignore: ignoredWithout(kubectlMissing),
  async fn() {
    requireAvailable(kubectlMissing);
    await using cluster = await startCluster();
    const first = await manifest(cluster, "first.json", FIRST);
    const second = await manifest(cluster, "second.json", SECOND);
    assert.match(
      await kubectl(cluster, "apply", "--server-side", "-f", first),
      /deployment\.apps\/web serverside-applied/,
    );
    const created = getDeployment(cluster);
    const [entry] = created.metadata.managedFields as {
      manager: string;
      operation: string;
    }[];
    assert.deepEqual([entry.manager, entry.operation], ["kubectl", "Apply"]);
    assert.match(
      await kubectl(cluster, "apply", "--server-side", "-f", second),
      /deployment\.apps\/web serverside-applied/,
    );
    const spec = getDeployment(cluster).spec as {
      replicas: number;
      strategy: unknown;
      template: { spec: { containers: { name: string; env: unknown }[] } };
    };
    assert.equal(spec.replicas, 3);
    assert.deepEqual(spec.strategy, { type: "Recreate" });
    // The sidecar and env A were kubectl's alone, and it no longer applies them.
    assert.deepEqual(
      spec.template.spec.containers.map((c) => [c.name, c.env]),
      [["web", [{ name: "B", value: "2" }, { name: "C", value: "3" }]]],
    );
    const other = await runKubectl(
      cluster,
      "apply",
      "--server-side",
      "--field-manager=other",
      "-f",
      first,
    );
    assert.notEqual(other.code, 0);
    assert.match(other.stderr, /conflict/i);
    assert.equal(
      (getDeployment(cluster).spec as { replicas: number }).replicas,
      3,
    );
    assert.match(
      await kubectl(
        cluster,
        "apply",
        "--server-side",
        "--field-manager=other",
        "--force-conflicts",
        "-f",
        first,
      ),
      /serverside-applied/,
    );
    assert.equal(
      (getDeployment(cluster).spec as { replicas: number }).replicas,
      1,
    );
  },
});

Deno.test({
  name:
    "kubectl needs the server's token: with it, it lists; without it, Unauthorized",
  ignore: ignoredWithout(kubectlMissing),
  async fn() {
    requireAvailable(kubectlMissing);
    {
      await using cluster = await startCluster({ token: "s3cret" });
      cluster.server.create("pods", { metadata: { name: "p1" } });
      assert.match(
        await kubectl(cluster, "get", "pods", "-o", "name"),
        /pod\/p1/,
      );
    }
    {
      await using cluster = await startCluster(
        { token: "s3cret" },
        null,
      );
      cluster.server.create("pods", { metadata: { name: "p1" } });
      const result = await runKubectl(cluster, "get", "pods");
      assert.notEqual(result.code, 0);
      assert.match(result.stderr, /You must be logged in to the server/);
      assert.equal(result.stdout, "");
    }
    {
      await using cluster = await startCluster({ token: "s3cret" }, "wrong");
      const result = await runKubectl(cluster, "get", "pods");
      assert.notEqual(result.code, 0);
      assert.match(result.stderr, /You must be logged in to the server/);
    }
  },
});

Deno.test({
  name:
    "kubectl apply of a Secret with stringData stores it base64 in data, on create and on change",
  ignore: ignoredWithout(kubectlMissing),
  async fn() {
    requireAvailable(kubectlMissing);
    await using cluster = await startCluster();
    const secret = (stringData: Record<string, string>) => ({
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "creds" },
      stringData,
    });
    await kubectl(
      cluster,
      "apply",
      "-f",
      await manifest(cluster, "s1.json", secret({ password: "one" })),
    );
    const created = cluster.server.get("secrets", "default", "creds");
    assert.deepEqual(created.data, { password: btoa("one") });
    assert.equal(created.stringData, undefined);
    assert.match(
      await kubectl(
        cluster,
        "apply",
        "-f",
        await manifest(cluster, "s2.json", secret({ password: "two" })),
      ),
      /secret\/creds configured/,
    );
    const changed = cluster.server.get("secrets", "default", "creds");
    assert.deepEqual(changed.data, { password: btoa("two") });
    assert.equal(changed.stringData, undefined);
  },
});

Deno.test({
  name: "kubectl get -w shows kubectl apply and kubectl delete as they happen",
  ignore: ignoredWithout(kubectlMissing),
  async fn() {
    requireAvailable(kubectlMissing);
    await using cluster = await startCluster();
    await using watch = spawnKubectl(
      cluster,
      "get",
      "configmaps",
      "-w",
      "--output-watch-events",
    );
    await until(
      () => cluster.server.openWatchCount === 1,
      () => `watch never opened: ${watch.stderr}`,
    );
    const settings = (data: Record<string, string>) =>
      manifest(cluster, "cm.json", {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "settings" },
        data,
      });
    await kubectl(cluster, "apply", "-f", await settings({ mode: "fast" }));
    await kubectl(cluster, "apply", "-f", await settings({ mode: "safe" }));
    await kubectl(cluster, "delete", "configmap", "settings");
    await until(
      () => /DELETED\s+settings/.test(watch.stdout),
      () => `deletion not shown: ${watch.stdout}${watch.stderr}`,
    );
    const events = watch.stdout.trim().split("\n").slice(1).map((line) =>
      line.trim().split(/\s+/).slice(0, 2).join(" ")
    );
    assert.deepEqual(events, [
      "ADDED settings",
      "MODIFIED settings",
      "DELETED settings",
    ]);
  },
});
