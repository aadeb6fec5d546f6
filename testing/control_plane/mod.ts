/**
 * A real etcd and kube-apiserver on 127.0.0.1 for tests: an envtest for
 * TypeScript. {@linkcode ControlPlane.start} finds the binaries as
 * controller-runtime's envtest does (`TEST_ASSET_*`, `KUBEBUILDER_ASSETS`,
 * then this package's provisioning cache), starts both on free loopback
 * ports and hands back the URL, the CA, a kubeconfig, clients per user,
 * kubectl, etcd compaction and an API server restart.
 *
 * Runs on Deno, Node (22.18 or later) and Bun. A plane does not outlive
 * the process that started it: SIGINT, SIGTERM and the process's exit stop
 * it, and a watchdog kills what a `kill -9` leaves.
 *
 * @example A watcher against a real API server
 * ```ts ignore
 * import { Watcher } from "@haptic/k8s-watcher";
 * import { ControlPlane } from "@haptic/k8s-watcher/testing/control-plane";
 * import assert from "node:assert/strict";
 *
 * await using plane = await ControlPlane.start();
 * using client = plane.client();
 * await plane.kubectl("create", "configmap", "settings", "--from-literal=color=blue");
 * const watcher = new Watcher({
 *   gvr: { group: "", version: "v1", resource: "configmaps" },
 *   indexBy: ["metadata.namespace", "metadata.name"],
 *   namespace: "default",
 * }, client);
 * watcher.start();
 * await watcher.waitForSync();
 * assert.equal((await watcher.store.get("default", "settings")).length, 1);
 * await watcher.stop();
 * ```
 *
 * @module
 */
export { ControlPlane } from "./control_plane.ts";
export type {
  ControlPlaneOptions,
  ControlPlanePorts,
  ControlPlaneUser,
  ControlPlaneUserSpec,
  KubectlOptions,
  KubectlResult,
} from "./control_plane.ts";
export { controlPlaneCacheDir, findControlPlaneBinaries } from "./binaries.ts";
export type {
  ControlPlaneBinaries,
  FindControlPlaneBinariesOptions,
} from "./binaries.ts";
export {
  ControlPlaneBinariesNotFoundError,
  ControlPlaneError,
} from "./errors.ts";
export type { ControlPlaneComponent } from "./errors.ts";
export { controlPlaneVersions } from "./versions.ts";
export type { ControlPlaneVersions } from "./versions.ts";
