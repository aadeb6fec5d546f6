// Fidelity check with a real client: kubectl against FakeApiServer.listen().
import assert from "node:assert/strict";
import type { FakeApiServer } from "../fake_api_server.ts";
import { kubectl, spawnKubectl, startCluster, until } from "./_kubectl_test.ts";
import {
  ignoredWithout,
  kubectlMissing,
  requireAvailable,
} from "../../tests/requirements.ts";

function podsIn(server: FakeApiServer): void {
  for (
    const [namespace, name] of [["team-a", "api-1"], ["team-a", "api-2"], [
      "team-b",
      "db-1",
    ]]
  ) {
    server.create("pods", {
      metadata: { name, namespace },
      spec: {},
      status: { phase: "Running" },
    });
  }
}

function rows(output: string): string[][] {
  return output.trim().split("\n").map((line) => line.trim().split(/\s+/));
}

Deno.test({
  name: "kubectl get pods -A lists the created pods",
  ignore: ignoredWithout(kubectlMissing),
  async fn() {
    requireAvailable(kubectlMissing);
    await using cluster = await startCluster();
    podsIn(cluster.server);
    const table = rows(await kubectl(cluster, "get", "pods", "-A"));
    assert.deepEqual(table[0], ["NAMESPACE", "NAME", "AGE"]);
    assert.deepEqual(table.slice(1).map((r) => `${r[0]}/${r[1]}`), [
      "team-a/api-1",
      "team-a/api-2",
      "team-b/db-1",
    ]);
  },
});

Deno.test({
  name: "kubectl get pods --chunk-size=2 -A pages through continue tokens",
  ignore: ignoredWithout(kubectlMissing),
  async fn() {
    requireAvailable(kubectlMissing);
    await using cluster = await startCluster();
    podsIn(cluster.server);
    cluster.server.create("pods", {
      metadata: { name: "web-1", namespace: "team-c" },
    });
    cluster.server.clearRequests();
    const table = rows(
      await kubectl(cluster, "get", "pods", "-A", "--chunk-size=2"),
    );
    assert.deepEqual(table.slice(1).map((r) => r[1]), [
      "api-1",
      "api-2",
      "db-1",
      "web-1",
    ]);
    const lists = cluster.server.requests.filter((r) => r.verb === "list");
    assert.equal(lists.length, 2);
    assert.equal(lists[0].query.limit, "2");
    assert.ok(lists[1].query.continue, "the second page used a continue token");
  },
});

Deno.test({
  name: "kubectl get configmap -o json returns the object",
  ignore: ignoredWithout(kubectlMissing),
  async fn() {
    requireAvailable(kubectlMissing);
    await using cluster = await startCluster();
    const created = cluster.server.create("configmaps", {
      metadata: { name: "settings", labels: { app: "web" } },
      data: { mode: "fast" },
    });
    const obj = JSON.parse(
      await kubectl(cluster, "get", "configmap", "settings", "-o", "json"),
    );
    assert.equal(obj.kind, "ConfigMap");
    assert.deepEqual(obj.data, { mode: "fast" });
    assert.equal(obj.metadata.uid, created.metadata.uid);
    assert.equal(
      obj.metadata.resourceVersion,
      created.metadata.resourceVersion,
    );
    const names = await kubectl(
      cluster,
      "get",
      "cm",
      "-l",
      "app=web",
      "-o",
      "name",
    );
    assert.equal(names.trim(), "configmap/settings");
  },
});

Deno.test({
  name: "kubectl get pods --watch sees a pod created after it started",
  ignore: ignoredWithout(kubectlMissing),
  async fn() {
    requireAvailable(kubectlMissing);
    await using cluster = await startCluster();
    podsIn(cluster.server);
    await using watch = spawnKubectl(
      cluster,
      "get",
      "pods",
      "-n",
      "team-a",
      "--watch",
    );
    await until(
      () => cluster.server.openWatchCount === 1,
      () => `watch never opened: ${watch.stderr}`,
    );
    // The watch opens before kubectl prints what it listed.
    await until(
      () => watch.stdout.includes("api-1"),
      () => `listed pods not shown: ${watch.stdout}${watch.stderr}`,
    );
    cluster.server.create("pods", {
      metadata: { name: "late-1", namespace: "team-a" },
    });
    cluster.server.create("pods", {
      metadata: { name: "elsewhere", namespace: "team-b" },
    });
    await until(
      () => watch.stdout.includes("late-1"),
      () => `late pod not shown: ${watch.stdout}${watch.stderr}`,
    );
    assert.ok(!watch.stdout.includes("elsewhere"));
  },
});
