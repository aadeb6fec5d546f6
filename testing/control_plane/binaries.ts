import {
  ControlPlaneBinariesNotFoundError,
  type ControlPlaneComponent,
} from "./errors.ts";
import { controlPlaneVersions } from "./versions.ts";
import { hostEnv, isExecutableFile } from "./_runtime.ts";

/** Absolute paths of the three binaries a control plane runs. */
export interface ControlPlaneBinaries {
  /** The etcd server. */
  etcd: string;
  /** kube-apiserver. */
  kubeApiServer: string;
  /** kubectl, for {@linkcode ControlPlane.kubectl}. */
  kubectl: string;
}

/** Where {@linkcode findControlPlaneBinaries} looks. */
export interface FindControlPlaneBinariesOptions {
  /**
   * The environment variables to read (`KUBEBUILDER_ASSETS`,
   * `TEST_ASSET_*`, and those naming the cache folder).
   *
   * @default {the process's environment}
   */
  env?: Record<string, string | undefined>;
  /**
   * The provisioning cache folder holding all three binaries.
   *
   * @default {controlPlaneCacheDir(env)}
   */
  cacheDir?: string;
}

const NAMES: {
  key: keyof ControlPlaneBinaries;
  file: ControlPlaneComponent;
}[] = [
  { key: "etcd", file: "etcd" },
  { key: "kubeApiServer", file: "kube-apiserver" },
  { key: "kubectl", file: "kubectl" },
];

/** envtest's last resort, where kubebuilder's installer used to put them. */
const KUBEBUILDER_DEFAULT_DIR = "/usr/local/kubebuilder/bin";

/**
 * The folder `bash tools/control_plane.sh` (or `deno task control-plane`)
 * builds the pinned binaries into: `$K8S_WATCHER_TOOLS_DIR`, else
 * `$XDG_CACHE_HOME/k8s-watcher-tools`, else `$HOME/.cache/k8s-watcher-tools`,
 * then `control-plane/kubernetes-<version>-etcd-<version>`.
 *
 * @example The folder for a given environment
 * ```ts
 * import { controlPlaneCacheDir } from "@haptic/k8s-watcher/testing/control-plane";
 * import assert from "node:assert/strict";
 *
 * assert.equal(
 *   controlPlaneCacheDir({ HOME: "/home/ci" }),
 *   "/home/ci/.cache/k8s-watcher-tools/control-plane/kubernetes-1.37.2-etcd-3.7.3",
 * );
 * ```
 *
 * @param env The environment variables to read (default: the process's).
 * @returns The folder's absolute path.
 */
export function controlPlaneCacheDir(
  env?: Record<string, string | undefined>,
): string {
  const vars = env ?? hostEnv();
  const tools = vars.K8S_WATCHER_TOOLS_DIR ||
    `${vars.XDG_CACHE_HOME || `${vars.HOME ?? ""}/.cache`}/k8s-watcher-tools`;
  const { kubernetes, etcd } = controlPlaneVersions;
  return `${tools}/control-plane/kubernetes-${kubernetes}-etcd-${etcd}`;
}

/**
 * Finds etcd, kube-apiserver and kubectl as controller-runtime's envtest
 * does, so that binaries installed by `setup-envtest` need nothing else.
 * For each binary, in order:
 *
 * 1. `TEST_ASSET_ETCD`, `TEST_ASSET_KUBE_APISERVER`, `TEST_ASSET_KUBECTL`:
 *    the binary's own path;
 * 2. `KUBEBUILDER_ASSETS`: a folder holding `etcd`, `kube-apiserver` and
 *    `kubectl`;
 * 3. the provisioning cache, {@linkcode controlPlaneCacheDir} (filled by
 *    `bash tools/control_plane.sh` in a clone of this repository, with Go
 *    and without Deno);
 * 4. `/usr/local/kubebuilder/bin`, envtest's default.
 *
 * A variable that is set must name an executable file: it is not skipped
 * for the next place when it does not.
 *
 * @example Binaries from setup-envtest
 * ```ts ignore
 * import { findControlPlaneBinaries } from "@haptic/k8s-watcher/testing/control-plane";
 *
 * // KUBEBUILDER_ASSETS=$(setup-envtest use -p path 1.37.x)
 * const binaries = await findControlPlaneBinaries();
 * console.log(binaries.kubeApiServer);
 * ```
 *
 * @param options The environment and the cache folder to use.
 * @returns Each binary's path.
 * @throws {ControlPlaneBinariesNotFoundError} Naming what is missing and
 * where it was looked for.
 */
export async function findControlPlaneBinaries(
  options: FindControlPlaneBinariesOptions = {},
): Promise<ControlPlaneBinaries> {
  const { found, missing, searched } = await locateBinaries(options);
  if (missing.length > 0) {
    throw new ControlPlaneBinariesNotFoundError(missing, searched);
  }
  return found as ControlPlaneBinaries;
}

/** What was found, what was not and where it was looked for. */
export interface LocatedBinaries {
  found: Partial<ControlPlaneBinaries>;
  missing: ControlPlaneComponent[];
  searched: string[];
}

/** Looks for each binary not in `skip`, in the order of the public function. */
export async function locateBinaries(
  options: FindControlPlaneBinariesOptions,
  skip: Partial<ControlPlaneBinaries> = {},
): Promise<LocatedBinaries> {
  const env = options.env ?? hostEnv();
  const cacheDir = options.cacheDir ?? controlPlaneCacheDir(env);
  const found: Partial<ControlPlaneBinaries> = {};
  const missing: ControlPlaneComponent[] = [];
  const searched: string[] = [];
  for (const { key, file } of NAMES) {
    if (skip[key]) continue;
    const variable = `TEST_ASSET_${file.toUpperCase().replaceAll("-", "_")}`;
    const candidates: { path: string; where: string }[] = [];
    if (env[variable]) {
      candidates.push({
        path: env[variable]!,
        where: `${variable}=${env[variable]}`,
      });
    } else if (env.KUBEBUILDER_ASSETS) {
      candidates.push({
        path: `${env.KUBEBUILDER_ASSETS}/${file}`,
        where: `KUBEBUILDER_ASSETS=${env.KUBEBUILDER_ASSETS}`,
      });
    } else {
      candidates.push(
        { path: `${cacheDir}/${file}`, where: cacheDir },
        {
          path: `${KUBEBUILDER_DEFAULT_DIR}/${file}`,
          where: KUBEBUILDER_DEFAULT_DIR,
        },
      );
    }
    let path: string | undefined;
    for (const candidate of candidates) {
      if (await isExecutableFile(candidate.path)) {
        path = candidate.path;
        break;
      }
    }
    if (path) {
      found[key] = path;
    } else {
      missing.push(file);
      for (const { where } of candidates) {
        if (!searched.includes(where)) searched.push(where);
      }
    }
  }
  return { found, missing, searched };
}
