/**
 * The versions of the control plane's binaries this package is tested
 * with, as `bash tools/control_plane.sh` (`deno task control-plane`) builds
 * them.
 * A test checks that the script pins the same ones.
 */
export interface ControlPlaneVersions {
  /** kube-apiserver and kubectl, e.g. `1.37.2`. */
  readonly kubernetes: string;
  /** etcd, e.g. `3.7.3`. */
  readonly etcd: string;
}

/**
 * The pinned versions; the provisioning cache folder is named after them
 * (`kubernetes-<kubernetes>-etcd-<etcd>`).
 *
 * @example Naming the versions in a test report
 * ```ts
 * import { controlPlaneVersions } from "@haptic/k8s-watcher/testing/control-plane";
 * import assert from "node:assert/strict";
 *
 * assert.match(controlPlaneVersions.kubernetes, /^1\.\d+\.\d+$/);
 * assert.match(controlPlaneVersions.etcd, /^3\.\d+\.\d+$/);
 * ```
 */
export const controlPlaneVersions: ControlPlaneVersions = Object.freeze({
  kubernetes: "1.37.2",
  etcd: "3.7.3",
});
