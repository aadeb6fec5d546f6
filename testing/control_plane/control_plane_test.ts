// The control plane itself, with the real binaries (see tests/requirements.ts
// for when these run).
import assert from "node:assert/strict";
import { httpStatusOf } from "../../client/api_error.ts";
import { FetchClient } from "../../client/fetch_client.ts";
import {
  controlPlaneMissing,
  ignoredWithout,
  requireAvailable,
} from "../../tests/requirements.ts";
import { ControlPlane } from "./control_plane.ts";
import {
  ControlPlaneBinariesNotFoundError,
  ControlPlaneError,
} from "./errors.ts";

/** PIDs of the processes whose command line mentions `text` (Linux). */
async function processesMentioning(text: string): Promise<number[]> {
  const pids: number[] = [];
  for await (const entry of Deno.readDir("/proc")) {
    if (!/^\d+$/.test(entry.name) || Number(entry.name) === Deno.pid) continue;
    try {
      const cmdline = await Deno.readTextFile(`/proc/${entry.name}/cmdline`);
      if (cmdline.includes(text)) pids.push(Number(entry.name));
    } catch {
      // Gone meanwhile.
    }
  }
  return pids;
}

/** PIDs of the kube-apiserver processes (not their watchdog shells) started under `dir`. */
async function kubeApiServerPids(dir: string): Promise<number[]> {
  const pids: number[] = [];
  for (const pid of await processesMentioning(dir)) {
    try {
      const argv0 = (await Deno.readTextFile(`/proc/${pid}/cmdline`)).split(
        "\0",
      )[0];
      if (argv0.endsWith("/kube-apiserver")) pids.push(pid);
    } catch {
      // Gone meanwhile.
    }
  }
  return pids;
}

/** Waits until `find` answers something, polling; fails past the deadline. */
async function waitFor<T>(
  what: string,
  find: () => Promise<T | undefined>,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await find();
    if (found !== undefined) return found;
    if (Date.now() >= deadline) {
      throw new Error(`Not seen within ${timeoutMs} ms: ${what}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** A parent folder for a control plane's temporary folder, checked empty after. */
async function withWorkDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "k8s-watcher-cp-test-" });
  try {
    await fn(dir);
    assert.deepEqual(await processesMentioning(dir), [], "stray processes");
    assert.deepEqual(
      await Array.fromAsync(Deno.readDir(dir)),
      [],
      "the temporary folder was not removed",
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

async function refused(url: string): Promise<boolean> {
  const port = Number(new URL(url).port);
  try {
    (await Deno.connect({ hostname: "127.0.0.1", port })).close();
    return false;
  } catch (error) {
    return error instanceof Deno.errors.ConnectionRefused;
  }
}

Deno.test({
  name:
    "a control plane: taken ports replaced, users with tokens and RBAC, kubectl through its kubeconfig, compaction, a restart, and a stop that leaves nothing",
  ignore: ignoredWithout(controlPlaneMissing),
  async fn() {
    requireAvailable(controlPlaneMissing);
    await withWorkDir(async (workDir) => {
      using taken = Deno.listen({ hostname: "127.0.0.1", port: 0 });
      const plane = await ControlPlane.start({
        workDir,
        ports: { apiServer: taken.addr.port, etcdClient: taken.addr.port },
        users: [{ name: "auditor", groups: ["auditors"] }],
      });
      try {
        assert.match(plane.url, /^https:\/\/127\.0\.0\.1:\d+$/);
        assert.notEqual(new URL(plane.url).port, String(taken.addr.port));
        assert.notEqual(new URL(plane.etcdUrl).port, String(taken.addr.port));
        assert.deepEqual(plane.users.map((u) => [u.name, u.groups]), [
          ["admin", ["system:masters"]],
          ["restricted", []],
          ["auditor", ["auditors"]],
        ]);

        using admin = plane.client();
        await admin.performRequest({
          method: "POST",
          path: "/api/v1/namespaces/default/configmaps",
          bodyJson: { metadata: { name: "settings" }, data: { color: "blue" } },
          expectJson: true,
        });
        using restricted = plane.client("restricted");
        const denied = await restricted.performRequest({
          method: "GET",
          path: "/api/v1/namespaces/default/configmaps",
          expectJson: true,
        }).then(() => undefined, httpStatusOf);
        assert.deepEqual(denied, { code: 403, reason: "Forbidden" });
        assert.throws(() => plane.client("nobody"), /no user "nobody"/);

        // kubectl through the kubeconfig, and the kubeconfig through FetchClient.
        assert.equal(
          await plane.kubectl(
            "get",
            "configmap",
            "settings",
            "-o",
            "jsonpath={.data.color}",
          ),
          "blue",
        );
        assert.match(
          await plane.kubectl("version"),
          /Server Version: v1\.37\.2/,
        );
        const asRestricted = await plane.kubectlWith({
          args: ["get", "configmaps"],
          user: "restricted",
        });
        assert.equal(asRestricted.success, false);
        assert.match(asRestricted.stderr, /User "restricted" cannot list/);
        await assert.rejects(
          plane.kubectl("get", "nothings"),
          (e) =>
            e instanceof ControlPlaneError && e.component === "kubectl" &&
            /resource type "nothings"/.test(e.message),
        );
        using fromKubeconfig = FetchClient.fromKubeconfig(plane.kubeconfigPath);
        const list = await fromKubeconfig.performRequest({
          method: "GET",
          path: "/api/v1/namespaces/default/configmaps/settings",
          expectJson: true,
        }) as { data: { color: string } };
        assert.equal(list.data.color, "blue");

        // Compaction at a revision after a write.
        const before = (await admin.performRequest({
          method: "GET",
          path: "/api/v1/namespaces/default/configmaps/settings",
          expectJson: true,
        }) as { metadata: { resourceVersion: string } }).metadata
          .resourceVersion;
        await admin.performRequest({
          method: "PATCH",
          path: "/api/v1/namespaces/default/configmaps/settings",
          contentType: "application/merge-patch+json",
          bodyJson: { data: { color: "green" } },
          expectJson: true,
        });
        const revision = await plane.compact();
        assert.ok(revision > Number(before));

        // A restart keeps the URL and etcd's data; the new watch cache
        // starts at the current revision, so the compacted one is gone.
        const url = plane.url;
        await plane.restartApiServer();
        assert.equal(plane.url, url);
        assert.equal(
          await plane.kubectl(
            "get",
            "configmap",
            "settings",
            "-o",
            "jsonpath={.data.color}",
          ),
          "green",
        );
        const expired = await admin.performRequest({
          method: "GET",
          path: "/api/v1/namespaces/default/configmaps",
          querystring: new URLSearchParams({
            resourceVersion: before,
            resourceVersionMatch: "Exact",
          }),
          expectJson: true,
        }).then(() => undefined, httpStatusOf);
        assert.deepEqual(expired, { code: 410, reason: "Expired" });
        assert.ok((await plane.logs("kube-apiserver")).length > 0);
      } finally {
        await plane.stop();
      }
      await plane.stop(); // idempotent
      assert.ok(await refused(plane.url), "kube-apiserver still listens");
      assert.ok(await refused(plane.etcdUrl), "etcd still listens");
      await assert.rejects(plane.compact(), /The control plane is stopped/);
    });
  },
});

Deno.test({
  name:
    "stop() during restartApiServer() leaves no process and no folder, and the restart fails saying the plane was stopped",
  ignore: ignoredWithout(controlPlaneMissing),
  async fn() {
    requireAvailable(controlPlaneMissing);
    // Stopped while the old kube-apiserver is being killed, then while the
    // new one is starting (its process running, not ready yet).
    for (const when of ["killing the old one", "starting the new one"]) {
      await withWorkDir(async (workDir) => {
        const plane = await ControlPlane.start({ workDir });
        const [old] = await kubeApiServerPids(workDir);
        const restart = plane.restartApiServer().then(
          () => new Error(`restartApiServer resolved (stopped ${when})`),
          (error) => error,
        );
        if (when === "starting the new one") {
          await waitFor("a new kube-apiserver", async () => {
            const pids = await kubeApiServerPids(workDir);
            return pids.find((pid) => pid !== old);
          });
        }
        await plane.stop();
        assert.deepEqual(
          await processesMentioning(workDir),
          [],
          `processes alive once stop() resolved (stopped ${when})`,
        );
        const error = await restart;
        assert.ok(error instanceof Error, String(error));
        assert.match(
          error.message,
          /^The control plane was stopped while restartApiServer was starting kube-apiserver/,
          `stopped ${when}, the restart failed with: ${error.message}`,
        );
        assert.deepEqual(await processesMentioning(workDir), []);
        assert.ok(await refused(plane.url), "kube-apiserver still listens");
      });
    }
  },
});

Deno.test({
  name:
    "a kube-apiserver that exits while starting fails the start with the end of its log (at most 30 lines), and etcd is stopped",
  ignore: ignoredWithout(controlPlaneMissing),
  async fn() {
    requireAvailable(controlPlaneMissing);
    await withWorkDir(async (workDir) => {
      const error = await ControlPlane.start({
        workDir,
        apiServerArgs: ["--no-such-flag"],
      }).catch((e) => e);
      assert.ok(error instanceof ControlPlaneError, String(error));
      assert.equal(error.component, "kube-apiserver");
      assert.match(
        error.message,
        /^kube-apiserver exited with code 1 while starting; the last (\d+ lines|line) of its output:\n/,
      );
      assert.ok(error.logTail.length > 0 && error.logTail.length <= 30);
      assert.ok(
        error.logTail.some((line) =>
          line.includes("unknown flag: --no-such-flag")
        ),
        error.message,
      );
    });
  },
});

Deno.test({
  name:
    "a start past its timeout fails naming the component and the option, and stops what it started",
  ignore: ignoredWithout(controlPlaneMissing),
  async fn() {
    requireAvailable(controlPlaneMissing);
    await withWorkDir(async (workDir) => {
      const error = await ControlPlane.start({ workDir, startTimeoutMs: 1 })
        .catch((e) => e);
      assert.ok(error instanceof ControlPlaneError, String(error));
      assert.equal(error.component, "etcd");
      assert.match(
        error.message,
        /^etcd was not ready within 1 ms \(the startTimeoutMs option\)/,
      );
    });
  },
});

Deno.test("missing binaries and a missing openssl are typed errors, before anything starts", async () => {
  const dir = await Deno.makeTempDir({ prefix: "k8s-watcher-cp-test-" });
  try {
    const missing = await ControlPlane.start({
      env: { KUBEBUILDER_ASSETS: dir },
      workDir: dir,
    }).catch((e) => e);
    assert.ok(missing instanceof ControlPlaneBinariesNotFoundError);
    assert.deepEqual(missing.missing, ["etcd", "kube-apiserver", "kubectl"]);
    assert.match(
      missing.message,
      /KUBEBUILDER_ASSETS=.*deno task control-plane/s,
    );

    const noOpenssl = await ControlPlane.start({
      binaries: {
        etcd: "/bin/false",
        kubeApiServer: "/bin/false",
        kubectl: "/bin/false",
      },
      openssl: `${dir}/openssl`,
      workDir: dir,
    }).catch((e) => e);
    assert.ok(noOpenssl instanceof ControlPlaneError);
    assert.equal(noOpenssl.component, "openssl");
    assert.match(noOpenssl.message, /openssl was not found/);
    assert.deepEqual(await Array.fromAsync(Deno.readDir(dir)), []);

    await assert.rejects(
      ControlPlane.start({ startTimeoutMs: 0 }),
      /startTimeoutMs must be a positive number/,
    );
    // Misspelt names would start a plane the test did not ask for.
    await assert.rejects(
      ControlPlane.start({ watchcache: false } as never),
      /Invalid ControlPlane options: watchcache: is not a ControlPlaneOptions option \(did you mean watchCache\?\)/,
    );
    await assert.rejects(
      ControlPlane.start({ startTimeoutMS: 5 } as never),
      /startTimeoutMS: is not a ControlPlaneOptions option \(did you mean startTimeoutMs\?\)/,
    );
    await assert.rejects(
      ControlPlane.start({ users: [{ name: "admin" }] }),
      /"admin" is twice/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
