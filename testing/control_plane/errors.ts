/** A program the control plane runs. */
export type ControlPlaneComponent =
  | "etcd"
  | "kube-apiserver"
  | "kubectl"
  | "openssl";

/**
 * The provisioning command of this repository: bash and Go, no Deno, so a
 * Node or Bun user runs it as is (`deno task control-plane` runs the same).
 */
export const PROVISIONING_COMMAND = "bash tools/control_plane.sh";

/**
 * The control plane's binaries were not found: none of
 * `KUBEBUILDER_ASSETS`, `TEST_ASSET_ETCD` / `TEST_ASSET_KUBE_APISERVER` /
 * `TEST_ASSET_KUBECTL` or the provisioning cache holds them. The message
 * names each missing binary, where it was looked for, the variables and
 * the provisioning command.
 *
 * @example Telling a missing binary from other failures
 * ```ts
 * import {
 *   ControlPlaneBinariesNotFoundError,
 *   findControlPlaneBinaries,
 * } from "@haptic/k8s-watcher/testing/control-plane";
 * import assert from "node:assert/strict";
 *
 * const dir = await Deno.makeTempDir();
 * try {
 *   await findControlPlaneBinaries({ env: {}, cacheDir: dir });
 *   assert.fail("found binaries in an empty folder");
 * } catch (error) {
 *   assert.ok(error instanceof ControlPlaneBinariesNotFoundError);
 *   assert.deepEqual(error.missing, ["etcd", "kube-apiserver", "kubectl"]);
 *   assert.match(error.message, /KUBEBUILDER_ASSETS/);
 * } finally {
 *   await Deno.remove(dir, { recursive: true });
 * }
 * ```
 */
export class ControlPlaneBinariesNotFoundError extends Error {
  /** The binaries not found, e.g. `["kube-apiserver"]`. */
  readonly missing: ControlPlaneComponent[];
  /** Where each was looked for, in order. */
  readonly searched: string[];

  /**
   * Creates the error.
   *
   * @example
   * ```ts
   * import { ControlPlaneBinariesNotFoundError } from "@haptic/k8s-watcher/testing/control-plane";
   * import assert from "node:assert/strict";
   *
   * const error = new ControlPlaneBinariesNotFoundError(["etcd"], ["/opt/etcd"]);
   * assert.match(error.message, /etcd/);
   * ```
   *
   * @param missing The binaries not found.
   * @param searched Where they were looked for.
   */
  constructor(missing: ControlPlaneComponent[], searched: string[]) {
    super(
      `The control plane's binaries were not found: ${
        missing.join(", ")
      } (looked in ${
        searched.join("; ")
      }). Set KUBEBUILDER_ASSETS to a folder holding etcd, kube-apiserver and kubectl (setup-envtest's binaries do), or TEST_ASSET_ETCD, TEST_ASSET_KUBE_APISERVER and TEST_ASSET_KUBECTL to each binary, or build them into the cache with \`${PROVISIONING_COMMAND}\` (needs Go; \`deno task control-plane\` runs the same) in a clone of @haptic/k8s-watcher`,
    );
    this.name = "ControlPlaneBinariesNotFoundError";
    this.missing = missing;
    this.searched = searched;
  }
}

/**
 * A control plane component failed: it exited, was not ready in time, or
 * (kubectl, openssl) ran and failed. `logTail` holds the last lines of its
 * output (30 by default), also quoted in the message.
 *
 * @example A failed kubectl command
 * ```ts
 * import { ControlPlaneError } from "@haptic/k8s-watcher/testing/control-plane";
 * import assert from "node:assert/strict";
 *
 * const error = new ControlPlaneError(
 *   "kubectl",
 *   "kubectl get nope exited with code 1",
 *   ['error: the server doesn\'t have a resource type "nope"'],
 * );
 * assert.equal(error.component, "kubectl");
 * assert.match(error.message, /resource type "nope"/);
 * ```
 */
export class ControlPlaneError extends Error {
  /** The component that failed. */
  readonly component: ControlPlaneComponent;
  /** The last lines of its output, oldest first. */
  readonly logTail: string[];

  /**
   * Creates the error; the message is `summary`, then the log tail.
   *
   * @example
   * ```ts
   * import { ControlPlaneError } from "@haptic/k8s-watcher/testing/control-plane";
   * import assert from "node:assert/strict";
   *
   * const error = new ControlPlaneError("etcd", "etcd exited with code 1", []);
   * assert.equal(error.message, "etcd exited with code 1 (no output)");
   * ```
   *
   * @param component The component that failed.
   * @param summary What happened, in one sentence without a final period.
   * @param logTail The last lines of its output.
   */
  constructor(
    component: ControlPlaneComponent,
    summary: string,
    logTail: string[],
  ) {
    super(
      logTail.length === 0
        ? `${summary} (no output)`
        : `${summary}; the last ${
          logTail.length === 1 ? "line" : `${logTail.length} lines`
        } of its output:\n${logTail.join("\n")}`,
    );
    this.name = "ControlPlaneError";
    this.component = component;
    this.logTail = logTail;
  }
}
