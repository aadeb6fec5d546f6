import {
  type ConfigAttempt,
  KubeConfigError,
  NoKubeConfigError,
} from "./errors.ts";
import { inClusterConfig, SERVICE_ACCOUNT_DIR } from "./_in_cluster.ts";
import {
  configFromKubeconfig,
  loadKubeconfig,
  type ResolvedConfig,
  type YamlParser,
} from "./_kubeconfig.ts";
import { getEnv, isFile, pathListSeparator } from "./_runtime.ts";

/** The default address of `kubectl proxy`. */
export const KUBECTL_PROXY_URL = "http://127.0.0.1:8001";

/** Where to look for configuration; every field has a real-world default. */
export interface DetectOptions {
  env?: Record<string, string | undefined>;
  inClusterDir?: string;
  kubectlProxy?: boolean | string;
  context?: string;
  parseYaml?: YamlParser;
}

/** Reads variables from `env` when given, else from the process. */
export function envReader(
  env: Record<string, string | undefined> | undefined,
): (name: string) => string | undefined {
  return env ? (name) => env[name] : getEnv;
}

/** The home directory's `.kube` folder, when HOME is known. */
export function kubeDir(
  getVar: (name: string) => string | undefined,
): string | undefined {
  const home = getVar("HOME") ?? getVar("USERPROFILE");
  return home ? `${home}/.kube` : undefined;
}

/**
 * Tries, in order: the files in `KUBECONFIG` (merged as kubectl merges
 * them); the in-cluster service account; `~/.kube/config`; `kubectl proxy`
 * when enabled. The first that applies wins; a source that exists but is
 * broken is recorded and skipped.
 */
export function detectConfig(options: DetectOptions): ResolvedConfig {
  const getVar = envReader(options.env);
  const attempts: ConfigAttempt[] = [];
  const attempt = (source: string, load: () => ResolvedConfig) => {
    try {
      return load();
    } catch (error) {
      if (!(error instanceof KubeConfigError)) throw error;
      attempts.push({ source, reason: error.message });
      return undefined;
    }
  };
  const fromFiles = (paths: string[]) =>
    configFromKubeconfig(
      loadKubeconfig(paths, options.parseYaml),
      options.context,
    );

  const kubeconfigVar = getVar("KUBECONFIG");
  const found = attempt("KUBECONFIG", () => {
    if (!kubeconfigVar) throw new KubeConfigError("not set");
    // kubectl skips the files that do not exist.
    const files = kubeconfigVar.split(pathListSeparator()).filter((path) =>
      path !== "" && isFile(path)
    );
    if (files.length === 0) {
      throw new KubeConfigError(`no file exists among ${kubeconfigVar}`);
    }
    return fromFiles([...new Set(files)]);
  }) ??
    attempt(
      "in-cluster",
      () =>
        inClusterConfig(getVar, options.inClusterDir ?? SERVICE_ACCOUNT_DIR),
    ) ??
    attempt("~/.kube/config", () => {
      const dir = kubeDir(getVar);
      if (!dir) throw new KubeConfigError("HOME is not set");
      const path = `${dir}/config`;
      if (!isFile(path)) throw new KubeConfigError(`${path} does not exist`);
      return fromFiles([path]);
    }) ?? attempt("kubectl proxy", () => {
      if (!options.kubectlProxy) {
        throw new KubeConfigError(
          `not enabled; pass kubectlProxy: true to fall back to ${KUBECTL_PROXY_URL}`,
        );
      }
      const server = typeof options.kubectlProxy === "string"
        ? options.kubectlProxy
        : KUBECTL_PROXY_URL;
      return { config: { server }, source: `kubectl proxy at ${server}` };
    });
  if (!found) throw new NoKubeConfigError(attempts);
  return found;
}
