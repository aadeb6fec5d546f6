// RBAC and credentials against a real kube-apiserver: the restricted user
// is refused until a RoleBinding grants it, per namespace, and an exec
// credential plugin can hand it its token.
import assert from "node:assert/strict";
import type { RestClient } from "../../client/rest_client.ts";
import { FetchClient } from "../../client/fetch_client.ts";
import { httpStatusOf } from "../../client/api_error.ts";
import { Watcher } from "../../watcher/watcher.ts";
import { silentLogger } from "../../logger.ts";
import { RecordingLogger } from "../../testing/recording_logger.ts";
import type { Gvr } from "../../types.ts";
import {
  assertConverged,
  CONFIGMAPS,
  create,
  createNamespace,
  eventually,
  planeTest,
  sharedControlPlane,
} from "./_harness.ts";

const plane = sharedControlPlane();
const ROLES: Gvr = {
  group: "rbac.authorization.k8s.io",
  version: "v1",
  resource: "roles",
};
const BINDINGS: Gvr = {
  group: "rbac.authorization.k8s.io",
  version: "v1",
  resource: "rolebindings",
};

/** Lets `user` list and watch ConfigMaps in `namespace`. */
async function grant(admin: RestClient, namespace: string, user: string) {
  await create(admin, ROLES, namespace, {
    metadata: { name: "configmap-reader" },
    rules: [{
      apiGroups: [""],
      resources: ["configmaps"],
      verbs: ["get", "list", "watch"],
    }],
  });
  await create(admin, BINDINGS, namespace, {
    metadata: { name: `configmap-reader-${user}` },
    roleRef: {
      apiGroup: "rbac.authorization.k8s.io",
      kind: "Role",
      name: "configmap-reader",
    },
    subjects: [{
      apiGroup: "rbac.authorization.k8s.io",
      kind: "User",
      name: user,
    }],
  });
}

async function seed(admin: RestClient, namespace: string, count: number) {
  await createNamespace(admin, namespace);
  for (let i = 0; i < count; i++) {
    await create(admin, CONFIGMAPS, namespace, {
      metadata: { name: `cm-${i}` },
    });
  }
}

planeTest(
  "the restricted user gets 403 with a hint, then syncs without a restart once a RoleBinding grants it",
  async () => {
    const p = await plane();
    using admin = p.client();
    await seed(admin, "rbac-late", 5);
    using restricted = p.client("restricted");
    const logger = new RecordingLogger();
    const watcher = new Watcher(
      {
        gvr: CONFIGMAPS,
        namespace: "rbac-late",
        indexBy: ["metadata.namespace", "metadata.name"],
        onChange: () => {},
      },
      restricted,
      { logger, random: () => 0 },
    );
    watcher.start();
    try {
      await eventually(
        () => watcher.lastError() !== undefined,
        "no error before the grant",
      );
      assert.deepEqual(httpStatusOf(watcher.lastError()!.error), {
        code: 403,
        reason: "Forbidden",
      });
      const logged = logger.records.find((r) => r.level === "error");
      assert.match(logged?.message ?? "", /403 Forbidden: RBAC missing\?/);
      assert.equal(watcher.isSynced(), false);

      await grant(admin, "rbac-late", "restricted");
      // Retried with its backoff (doubling from 800 ms, up to 30 s).
      assert.equal(await watcher.waitForSync(AbortSignal.timeout(60_000)), 5);
      await create(admin, CONFIGMAPS, "rbac-late", {
        metadata: { name: "after" },
      });
      await assertConverged(watcher.store, admin, CONFIGMAPS, {
        namespaces: ["rbac-late"],
      });
      assert.equal(watcher.store.size, 6);
    } finally {
      await watcher.stop();
    }
  },
);

planeTest(
  "with namespaces, one forbidden namespace keeps failing while the others list and watch, and joins once granted",
  async () => {
    const p = await plane();
    using admin = p.client();
    const [a, b, forbidden] = ["rbac-a", "rbac-b", "rbac-forbidden"];
    for (const namespace of [a, b, forbidden]) await seed(admin, namespace, 3);
    await grant(admin, a, "restricted");
    await grant(admin, b, "restricted");
    using restricted = p.client("restricted");
    const watcher = new Watcher(
      {
        gvr: CONFIGMAPS,
        namespaces: [a, b, forbidden],
        indexBy: ["metadata.namespace", "metadata.name"],
        onChange: () => {},
      },
      restricted,
      { logger: silentLogger, random: () => 0 },
    );
    watcher.start();
    try {
      await eventually(
        () =>
          watcher.health().namespaces?.[a].synced === true &&
          watcher.health().namespaces?.[b].synced === true &&
          watcher.health().namespaces?.[forbidden].lastError !== undefined,
        () => JSON.stringify(watcher.health().namespaces),
      );
      assert.equal(
        httpStatusOf(watcher.health().namespaces![forbidden].lastError!.error)
          ?.code,
        403,
      );
      assert.equal(watcher.isSynced(), false);
      // The allowed namespaces flow: listed, and their changes arrive.
      await create(admin, CONFIGMAPS, a, { metadata: { name: "flowing" } });
      await assertConverged(watcher.store, admin, CONFIGMAPS, {
        namespaces: [a, b],
      });

      await grant(admin, forbidden, "restricted");
      await watcher.waitForSync(AbortSignal.timeout(60_000));
      await assertConverged(watcher.store, admin, CONFIGMAPS, {
        namespaces: [a, b, forbidden],
      });
      assert.equal(watcher.store.size, 10);
    } finally {
      await watcher.stop();
    }
  },
);

planeTest(
  "a kubeconfig whose user runs an exec credential plugin printing the restricted user's token: FetchClient and kubectl use it",
  async () => {
    const p = await plane();
    using admin = p.client();
    await seed(admin, "rbac-exec", 4);
    await grant(admin, "rbac-exec", "restricted");
    const plugin = `${p.dir}/credential-plugin`;
    const credential = {
      apiVersion: "client.authentication.k8s.io/v1",
      kind: "ExecCredential",
      status: { token: p.token("restricted") },
    };
    await Deno.writeTextFile(
      plugin,
      `#!/bin/sh\necho '${JSON.stringify(credential)}'\n`,
      { mode: 0o755 },
    );
    const kubeconfig = `${p.dir}/exec-kubeconfig`;
    await Deno.writeTextFile(
      kubeconfig,
      JSON.stringify({
        apiVersion: "v1",
        kind: "Config",
        clusters: [{
          name: "plane",
          cluster: { server: p.url, "certificate-authority": p.caFile },
        }],
        users: [{
          name: "exec",
          user: {
            exec: {
              apiVersion: "client.authentication.k8s.io/v1",
              command: plugin,
              interactiveMode: "Never",
            },
          },
        }],
        contexts: [{
          name: "exec",
          context: { cluster: "plane", user: "exec", namespace: "rbac-exec" },
        }],
        "current-context": "exec",
      }),
    );
    using client = FetchClient.fromKubeconfig(kubeconfig);
    assert.equal(client.defaultNamespace, "rbac-exec");
    const watcher = new Watcher(
      {
        gvr: CONFIGMAPS,
        namespace: "rbac-exec",
        indexBy: ["metadata.namespace", "metadata.name"],
        onChange: () => {},
      },
      client,
      { logger: silentLogger },
    );
    watcher.start();
    try {
      assert.equal(await watcher.waitForSync(), 4);
      await create(admin, CONFIGMAPS, "rbac-exec", {
        metadata: { name: "late" },
      });
      await assertConverged(watcher.store, admin, CONFIGMAPS, {
        namespaces: ["rbac-exec"],
      });
      // Who the server thinks it is, and kubectl through the same file.
      const denied = await client.performRequest({
        method: "GET",
        path: "/api/v1/namespaces/default/configmaps",
        expectJson: true,
      }).then(() => undefined, (e) => e);
      assert.match(String(denied?.message), /User "restricted" cannot list/);
      const listed = await p.kubectlWith({
        kubeconfig,
        args: ["get", "configmaps", "-o", "name"],
      });
      assert.equal(listed.stderr, "");
      assert.equal(listed.stdout.trim().split("\n").length, 5);
    } finally {
      await watcher.stop();
    }
  },
);
