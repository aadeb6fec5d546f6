/**
 * Where a client's configuration comes from: `FetchClient.fromEnv`'s search
 * (`KUBECONFIG`, in-cluster, `~/.kube/config`, `kubectl proxy`), a pod's
 * configuration (the service host and port, the token file, CA and
 * namespace), and the current context and configuration as kubectl sees
 * them, by running it.
 *
 * @module
 */
import {
  type ConfigAttempt,
  KubeConfigError,
  NoKubeConfigError,
} from "./errors.ts";
import {
  configFromKubeconfig,
  emptyKubeconfig,
  loadKubeconfig,
  mergeKubeconfig,
  parseJsonKubeconfig,
  type ResolvedConfig,
  type YamlParser,
} from "./_kubeconfig.ts";
import {
  allEnv,
  CommandNotFoundError,
  exists,
  fsErrorName,
  getEnv,
  isFile,
  pathListSeparator,
  readTextFileSync,
  runSync,
} from "./_runtime.ts";
import { pemFrom } from "./_credentials.ts";

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

/** Where a pod's service account credentials are mounted. */
export const SERVICE_ACCOUNT_DIR =
  "/var/run/secrets/kubernetes.io/serviceaccount";

/**
 * The configuration of a pod: `KUBERNETES_SERVICE_HOST`/`_PORT`, and the
 * token (kept as a file, so rotation is seen), CA and namespace files.
 */
export function inClusterConfig(
  getEnv: (name: string) => string | undefined,
  dir: string,
): ResolvedConfig {
  const host = getEnv("KUBERNETES_SERVICE_HOST");
  const port = getEnv("KUBERNETES_SERVICE_PORT");
  if (!host) {
    throw new KubeConfigError("KUBERNETES_SERVICE_HOST is not set");
  }
  if (!port) {
    throw new KubeConfigError("KUBERNETES_SERVICE_PORT is not set");
  }
  const tokenFile = `${dir}/token`;
  if (!exists(tokenFile)) {
    throw new KubeConfigError(
      `Service account token ${tokenFile} does not exist`,
    );
  }
  const caFile = `${dir}/ca.crt`;
  let caText: string;
  try {
    caText = readTextFileSync(caFile);
  } catch (error) {
    throw new KubeConfigError(
      `Cannot read the service account CA ${caFile}: ${fsErrorName(error)}`,
    );
  }
  let namespace: string | undefined;
  try {
    namespace = readTextFileSync(`${dir}/namespace`).trim() || undefined;
  } catch {
    // Optional: older clusters did not mount it.
  }
  const hostPart = host.includes(":") ? `[${host}]` : host;
  return {
    config: {
      server: `https://${hostPart}:${port}`,
      tokenFile,
      caData: pemFrom(caText, `Service account CA ${caFile}`),
      namespace,
    },
    source: `in-cluster service account (${dir})`,
  };
}

/** How to run kubectl. */
export interface KubectlRunner {
  /** The command (default `kubectl`, looked up on PATH). */
  command: string;
  /** The complete environment to give it; inherited when absent. */
  env?: Record<string, string | undefined>;
}

/**
 * The current context of the kubeconfig kubectl sees, via
 * `kubectl config view --raw --minify --flatten -o json`. `--flatten`
 * embeds certificate files; other relative paths (a `tokenFile`, an exec
 * command) resolve against `baseDir`.
 */
export function kubectlConfigView(
  runner: KubectlRunner,
  options: { baseDir: string; context?: string },
): ResolvedConfig {
  const args = [
    "config",
    "view",
    "--raw",
    "--minify",
    "--flatten",
    "-o",
    "json",
  ];
  if (options.context) args.push("--context", options.context);
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(runner.env ?? allEnv())) {
    if (value !== undefined) env[name] = value;
  }
  let output;
  try {
    output = runSync(runner.command, { args, env });
  } catch (error) {
    if (error instanceof CommandNotFoundError) {
      throw new KubeConfigError(`${runner.command} was not found on PATH`);
    }
    throw new KubeConfigError(
      `Cannot run ${runner.command}: ${
        error instanceof Error ? error.message : String(error)
      }`,
    );
  }
  const origin = `from \`${runner.command} config view\``;
  if (output.code !== 0) {
    const stderr = new TextDecoder().decode(output.stderr).trim();
    const firstLine = stderr.split("\n", 1)[0].slice(0, 300);
    throw new KubeConfigError(
      `${runner.command} config view failed with exit code ${output.code}${
        firstLine ? `: ${firstLine}` : ""
      }`,
    );
  }
  const text = new TextDecoder().decode(output.stdout);
  const doc = parseJsonKubeconfig(text, origin);
  if (doc === undefined) {
    throw new KubeConfigError(`Kubeconfig ${origin} is not JSON`);
  }
  const kubeconfig = emptyKubeconfig(origin);
  mergeKubeconfig(kubeconfig, doc, { origin, baseDir: options.baseDir });
  return configFromKubeconfig(kubeconfig, options.context);
}
