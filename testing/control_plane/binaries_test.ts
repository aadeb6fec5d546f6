import assert from "node:assert/strict";
import { controlPlaneCacheDir, findControlPlaneBinaries } from "./binaries.ts";
import { ControlPlaneBinariesNotFoundError } from "./errors.ts";

const NAMES = ["etcd", "kube-apiserver", "kubectl"];

/** A folder with executable files of the given names. */
async function folderWith(root: string, name: string, files: string[]) {
  const dir = `${root}/${name}`;
  await Deno.mkdir(dir, { recursive: true });
  for (const file of files) {
    await Deno.writeTextFile(`${dir}/${file}`, "#!/bin/sh\n", { mode: 0o755 });
  }
  return dir;
}

async function withDir(fn: (dir: string) => Promise<void>) {
  const dir = await Deno.makeTempDir({ prefix: "k8s-watcher-binaries-" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("the cache folder follows K8S_WATCHER_TOOLS_DIR, XDG_CACHE_HOME, HOME", () => {
  const tail = "control-plane/kubernetes-1.37.2-etcd-3.7.3";
  assert.equal(
    controlPlaneCacheDir({ HOME: "/h", XDG_CACHE_HOME: "/x" }),
    `/x/k8s-watcher-tools/${tail}`,
  );
  assert.equal(
    controlPlaneCacheDir({ HOME: "/h", K8S_WATCHER_TOOLS_DIR: "/t" }),
    `/t/${tail}`,
  );
  assert.equal(
    controlPlaneCacheDir({ HOME: "/h" }),
    `/h/.cache/k8s-watcher-tools/${tail}`,
  );
});

Deno.test("binaries come from TEST_ASSET_*, then KUBEBUILDER_ASSETS, then the cache", async () => {
  await withDir(async (root) => {
    const assets = await folderWith(root, "assets", NAMES);
    const cache = await folderWith(root, "cache", NAMES);
    const own = await folderWith(root, "own", ["my-etcd"]);
    assert.deepEqual(
      await findControlPlaneBinaries({
        env: {
          KUBEBUILDER_ASSETS: assets,
          TEST_ASSET_ETCD: `${own}/my-etcd`,
        },
        cacheDir: cache,
      }),
      {
        etcd: `${own}/my-etcd`,
        kubeApiServer: `${assets}/kube-apiserver`,
        kubectl: `${assets}/kubectl`,
      },
    );
    assert.deepEqual(
      await findControlPlaneBinaries({ env: {}, cacheDir: cache }),
      {
        etcd: `${cache}/etcd`,
        kubeApiServer: `${cache}/kube-apiserver`,
        kubectl: `${cache}/kubectl`,
      },
    );
  });
});

Deno.test("a missing binary is a typed error naming the variables, where it looked and the provisioning command", async () => {
  await withDir(async (root) => {
    const assets = await folderWith(root, "assets", ["etcd", "kubectl"]);
    await Deno.writeTextFile(`${assets}/kube-apiserver`, "not executable");
    const error = await findControlPlaneBinaries({
      env: { KUBEBUILDER_ASSETS: assets },
      // The cache is not a fallback for a folder named on purpose.
      cacheDir: await folderWith(root, "cache", NAMES),
    }).catch((e) => e);
    assert.ok(error instanceof ControlPlaneBinariesNotFoundError);
    assert.deepEqual(error.missing, ["kube-apiserver"]);
    assert.deepEqual(error.searched, [`KUBEBUILDER_ASSETS=${assets}`]);
    for (
      const words of [
        "kube-apiserver",
        "KUBEBUILDER_ASSETS",
        "TEST_ASSET_KUBE_APISERVER",
        // The command a Node or Bun user can run (no Deno needed).
        "`bash tools/control_plane.sh`",
      ]
    ) {
      assert.ok(error.message.includes(words), `${words} in ${error.message}`);
    }
    const none = await findControlPlaneBinaries({
      env: { TEST_ASSET_KUBECTL: `${root}/nope` },
      cacheDir: `${root}/empty`,
    }).catch((e) => e);
    assert.ok(none instanceof ControlPlaneBinariesNotFoundError);
    assert.deepEqual(none.missing, NAMES);
    assert.deepEqual(none.searched, [
      `${root}/empty`,
      "/usr/local/kubebuilder/bin",
      `TEST_ASSET_KUBECTL=${root}/nope`,
    ]);
  });
});
