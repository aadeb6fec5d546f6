import {
  type ConfigAttempt,
  KubeConfigError,
  NoKubeConfigError,
} from "./errors.ts";
import { inClusterConfig, SERVICE_ACCOUNT_DIR } from "./_in_cluster.ts";
import {
  configFromKubeconfig,
  dirname,
  parseJsonKubeconfig,
  type ResolvedConfig,
} from "./_kubeconfig.ts";
import { kubectlConfigView, type KubectlRunner } from "./_kubectl.ts";

/** The default address of `kubectl proxy`. */
export const KUBECTL_PROXY_URL = "http://127.0.0.1:8001";

/** Where to look for configuration; every field has a real-world default. */
export interface DetectOptions {
  env?: Record<string, string | undefined>;
  inClusterDir?: string;
  kubectl?: string | false;
  kubectlProxy?: boolean | string;
  context?: string;
}

function envReader(
  env: Record<string, string | undefined> | undefined,
): (name: string) => string | undefined {
  return env ? (name) => env[name] : (name) => Deno.env.get(name);
}

/** The runner for kubectl, or undefined when kubectl must not be used. */
export function kubectlRunner(
  options: Pick<DetectOptions, "env" | "kubectl">,
): KubectlRunner | undefined {
  if (options.kubectl === false) return undefined;
  const env = options.env
    ? Object.fromEntries(
      Object.entries(options.env).filter((entry): entry is [string, string] =>
        entry[1] !== undefined
      ),
    )
    : undefined;
  return { command: options.kubectl ?? "kubectl", env };
}

function isFile(path: string): boolean {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
}

/**
 * Reads a kubeconfig file: JSON directly, anything else (YAML) through
 * `kubectl config view` when kubectl may be used.
 */
export function readKubeconfig(
  path: string,
  runner: KubectlRunner | undefined,
  context?: string,
): ResolvedConfig {
  let text: string;
  try {
    text = Deno.readTextFileSync(path);
  } catch (error) {
    throw new KubeConfigError(
      `Cannot read kubeconfig ${path}: ${
        error instanceof Error ? error.name : "unknown error"
      }`,
    );
  }
  const doc = parseJsonKubeconfig(text, path);
  if (doc !== undefined) {
    return configFromKubeconfig(doc, {
      origin: path,
      baseDir: dirname(path),
      context,
    });
  }
  const why =
    "is YAML, which FetchClient reads only through `kubectl config view`";
  if (!runner) {
    throw new KubeConfigError(
      `Kubeconfig ${path} ${why}, and kubectl use is disabled; convert it with \`kubectl config view --raw -o json\``,
    );
  }
  try {
    return kubectlConfigView(runner, {
      baseDir: dirname(path),
      kubeconfig: path,
      context,
    });
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new KubeConfigError(
      `Kubeconfig ${path} ${why}, which failed: ${detail}; install kubectl or convert the file to JSON`,
    );
  }
}

/**
 * Tries, in order: the files in `KUBECONFIG`; the in-cluster service
 * account; `~/.kube/config`; `kubectl proxy` when enabled. The first that
 * applies wins; a source that exists but is broken is recorded and skipped.
 */
export function detectConfig(options: DetectOptions): ResolvedConfig {
  const getEnv = envReader(options.env);
  const runner = kubectlRunner(options);
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

  const kubeconfigVar = getEnv("KUBECONFIG");
  const found = attempt("KUBECONFIG", () => {
    if (!kubeconfigVar) throw new KubeConfigError("not set");
    const separator = Deno.build.os === "windows" ? ";" : ":";
    const files = kubeconfigVar.split(separator).filter(isFile);
    if (files.length === 0) {
      throw new KubeConfigError(`no file exists among ${kubeconfigVar}`);
    }
    if (files.length > 1 && runner) {
      // Merging several files follows kubectl's rules; let kubectl do it.
      return kubectlConfigView(runner, {
        baseDir: dirname(files[0]),
        context: options.context,
      });
    }
    return readKubeconfig(files[0], runner, options.context);
  }) ??
    attempt(
      "in-cluster",
      () =>
        inClusterConfig(getEnv, options.inClusterDir ?? SERVICE_ACCOUNT_DIR),
    ) ??
    attempt("~/.kube/config", () => {
      const home = getEnv("HOME") ?? getEnv("USERPROFILE");
      if (!home) throw new KubeConfigError("HOME is not set");
      const path = `${home}/.kube/config`;
      if (!isFile(path)) throw new KubeConfigError(`${path} does not exist`);
      return readKubeconfig(path, runner, options.context);
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
