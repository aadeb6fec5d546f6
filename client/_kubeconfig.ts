import { KubeConfigError } from "./errors.ts";
import type {
  ExecPluginConfig,
  FetchClientConfig,
} from "./fetch_client_config.ts";
import { EXEC_API_VERSIONS, pemFrom } from "./_credentials.ts";
import { fsErrorName, readTextFileSync } from "./_runtime.ts";
import { parseYaml, YamlError } from "./_yaml.ts";

/** A configuration and a description of where it came from. */
export interface ResolvedConfig {
  config: FetchClientConfig;
  source: string;
}

/** Parses YAML text: this package's reader, or e.g. `@std/yaml`'s `parse`. */
export type YamlParser = (text: string) => unknown;

type Entry = Record<string, unknown>;

function isEntry(value: unknown): value is Entry {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A named cluster, context or user, and the file it came from. */
interface Named {
  value: Entry;
  /** Relative paths in it resolve against this directory. */
  baseDir: string;
  /** The file, for messages. */
  origin: string;
}

/** One or several kubeconfig files merged as kubectl merges them. */
export interface Kubeconfig {
  /** The file(s), for messages. */
  origin: string;
  currentContext?: string;
  contexts: Map<string, Named>;
  clusters: Map<string, Named>;
  users: Map<string, Named>;
}

const SECTIONS = [
  ["clusters", "cluster"],
  ["contexts", "context"],
  ["users", "user"],
] as const;

/** Directory part of a path (`.` when there is none). */
export function dirname(path: string): string {
  const cut = Math.max(path.lastIndexOf("/"), path.lastIndexOf("\\"));
  return cut < 0 ? "." : cut === 0 ? "/" : path.slice(0, cut);
}

/** Resolves a kubeconfig file reference against the kubeconfig's directory. */
export function resolvePath(baseDir: string, path: string): string {
  if (
    path.startsWith("/") || path.startsWith("\\") || /^[A-Za-z]:/.test(path)
  ) {
    return path;
  }
  return `${baseDir}/${path}`;
}

/**
 * Parses kubeconfig text that is JSON. Returns `undefined` when the text is
 * not JSON at all (most likely YAML). The error for broken JSON gives only
 * the position: the parser's own message may quote a token.
 */
export function parseJsonKubeconfig(
  text: string,
  origin: string,
): unknown | undefined {
  if (!text.trimStart().startsWith("{")) return undefined;
  try {
    return JSON.parse(text);
  } catch (error) {
    const at = error instanceof Error
      ? / at position \d+(?: \(line \d+ column \d+\))?/.exec(error.message)
      : null;
    throw new KubeConfigError(
      `Kubeconfig ${origin} is not valid JSON${at ? at[0] : ""}`,
    );
  }
}

/**
 * Parses kubeconfig text, JSON or YAML. A YAML error names the line and
 * column; with a caller's parser, only a position found in its message is
 * kept (its message may quote the text, which may hold a token).
 */
export function parseKubeconfigText(
  text: string,
  origin: string,
  yamlParser?: YamlParser,
): unknown {
  const json = parseJsonKubeconfig(text, origin);
  if (json !== undefined) return json;
  try {
    return (yamlParser ?? parseYaml)(text);
  } catch (error) {
    if (error instanceof YamlError) {
      throw new KubeConfigError(`Kubeconfig ${origin} ${error.message}`);
    }
    const message = error instanceof Error ? error.message : "";
    const at = /line (\d+),? column (\d+)/i.exec(message);
    throw new KubeConfigError(
      `Kubeconfig ${origin} is not valid YAML${
        at ? ` (line ${at[1]} column ${at[2]})` : ""
      }`,
    );
  }
}

/** An empty kubeconfig, to merge files into. */
export function emptyKubeconfig(origin: string): Kubeconfig {
  return {
    origin,
    contexts: new Map(),
    clusters: new Map(),
    users: new Map(),
  };
}

/**
 * Adds a parsed kubeconfig document to `into` as kubectl merges the files
 * of `KUBECONFIG`: the first file that defines a name wins, and so does the
 * first `current-context`.
 */
export function mergeKubeconfig(
  into: Kubeconfig,
  doc: unknown,
  file: { origin: string; baseDir: string },
): void {
  if (doc === null || doc === undefined) return;
  if (!isEntry(doc)) {
    throw new KubeConfigError(`Kubeconfig ${file.origin} is not a mapping`);
  }
  const current = doc["current-context"];
  if (
    current !== undefined && current !== null && typeof current !== "string"
  ) {
    throw new KubeConfigError(
      `Kubeconfig ${file.origin} current-context is not a string`,
    );
  }
  if (!into.currentContext && current) into.currentContext = current;
  for (const [section, field] of SECTIONS) {
    const list = doc[section];
    if (list === undefined || list === null) continue;
    if (!Array.isArray(list)) {
      throw new KubeConfigError(
        `Kubeconfig ${file.origin} ${section} is not a list`,
      );
    }
    const seen = new Set<string>();
    list.forEach((item, index) => {
      const name = isEntry(item) ? item.name : undefined;
      if (typeof name !== "string" || name === "") {
        throw new KubeConfigError(
          `Kubeconfig ${file.origin} ${section} entry ${index + 1} has no name`,
        );
      }
      if (seen.has(name)) {
        throw new KubeConfigError(
          `Kubeconfig ${file.origin} ${section} has the name "${name}" twice`,
        );
      }
      seen.add(name);
      const value = (item as Entry)[field] ?? {};
      if (!isEntry(value)) {
        throw new KubeConfigError(
          `Kubeconfig ${file.origin} ${field} "${name}" is not a mapping`,
        );
      }
      const map = into[section];
      if (!map.has(name)) map.set(name, { value, ...file });
    });
  }
}

/**
 * Reads and merges kubeconfig files, JSON or YAML, in `KUBECONFIG` order.
 * Every file must exist and parse (as in kubectl, missing ones are the
 * caller's to skip).
 */
export function loadKubeconfig(
  paths: string[],
  yamlParser?: YamlParser,
): Kubeconfig {
  const merged = emptyKubeconfig(paths.join(", "));
  for (const path of paths) {
    let text: string;
    try {
      text = readTextFileSync(path);
    } catch (error) {
      throw new KubeConfigError(
        `Cannot read kubeconfig ${path}: ${fsErrorName(error)}`,
      );
    }
    mergeKubeconfig(merged, parseKubeconfigText(text, path, yamlParser), {
      origin: path,
      baseDir: dirname(path),
    });
  }
  return merged;
}

function stringField(entry: Entry, field: string, where: string) {
  const value = entry[field];
  if (value === undefined || value === null || value === "") return undefined;
  if (typeof value !== "string") {
    throw new KubeConfigError(
      `${where} field ${field} is not a string (quote it in YAML)`,
    );
  }
  return value;
}

function booleanField(entry: Entry, field: string, where: string): boolean {
  const value = entry[field];
  if (value === undefined || value === null) return false;
  if (typeof value !== "boolean") {
    throw new KubeConfigError(`${where} field ${field} is not true or false`);
  }
  return value;
}

function readFile(path: string, what: string): string {
  try {
    return readTextFileSync(path);
  } catch (error) {
    throw new KubeConfigError(
      `Cannot read ${what} file ${path}: ${fsErrorName(error)}`,
    );
  }
}

/**
 * The client configuration for the current context (or `context`). File
 * references are read now, relative to the file each entry came from; a
 * `tokenFile` stays a path so rotation is seen. Errors name the context,
 * cluster or user and the field, never a value.
 */
export function configFromKubeconfig(
  kubeconfig: Kubeconfig,
  context?: string,
): ResolvedConfig {
  const contextName = context ?? kubeconfig.currentContext ?? "";
  if (contextName === "") {
    throw new KubeConfigError(
      `Kubeconfig ${kubeconfig.origin} has no current context`,
    );
  }
  const contextEntry = kubeconfig.contexts.get(contextName);
  if (!contextEntry) {
    throw new KubeConfigError(
      `Kubeconfig ${kubeconfig.origin} has no context named "${contextName}"`,
    );
  }
  const ctx = contextEntry.value;
  const where = `Kubeconfig ${contextEntry.origin} context "${contextName}"`;
  const clusterName = stringField(ctx, "cluster", where);
  if (!clusterName) throw new KubeConfigError(`${where} names no cluster`);
  const clusterEntry = kubeconfig.clusters.get(clusterName);
  if (!clusterEntry) {
    throw new KubeConfigError(
      `${where} names a missing cluster "${clusterName}"`,
    );
  }
  const config = clusterConfig(clusterEntry, clusterName);
  const namespace = stringField(ctx, "namespace", where);
  if (namespace) config.namespace = namespace;

  const userName = stringField(ctx, "user", where);
  if (userName) {
    const userEntry = kubeconfig.users.get(userName);
    if (!userEntry) {
      throw new KubeConfigError(`${where} names a missing user "${userName}"`);
    }
    applyUser(config, userEntry, userName, clusterEntry.value);
  }
  return {
    config,
    source: `kubeconfig ${kubeconfig.origin} (context "${contextName}")`,
  };
}

function clusterConfig(entry: Named, name: string): FetchClientConfig {
  const cluster = entry.value;
  const where = `Kubeconfig ${entry.origin} cluster "${name}"`;
  const server = stringField(cluster, "server", where);
  if (!server) throw new KubeConfigError(`${where} has no server URL`);
  const config: FetchClientConfig = { server };
  const caData = pemOf(cluster, "certificate-authority", where, entry.baseDir);
  if (caData) config.caData = caData;
  if (booleanField(cluster, "insecure-skip-tls-verify", where)) {
    config.insecureSkipTlsVerify = true;
  }
  const tlsServerName = stringField(cluster, "tls-server-name", where);
  if (tlsServerName) config.tlsServerName = tlsServerName;
  const proxyUrl = stringField(cluster, "proxy-url", where);
  if (proxyUrl) config.proxyUrl = proxyUrl;
  return config;
}

function applyUser(
  config: FetchClientConfig,
  entry: Named,
  name: string,
  cluster: Entry,
): void {
  const user = entry.value;
  const where = `Kubeconfig ${entry.origin} user "${name}"`;
  const token = stringField(user, "token", where);
  const tokenFile = stringField(user, "tokenFile", where);
  // As in client-go, a token file wins over a token: it is what rotates.
  if (tokenFile) config.tokenFile = resolvePath(entry.baseDir, tokenFile);
  else if (token) config.token = token;
  for (const field of ["as", "as-uid", "as-groups", "as-user-extra"]) {
    if (user[field] !== undefined && user[field] !== null) {
      throw new KubeConfigError(
        `${where} impersonates with "${field}", which FetchClient does not support; run \`kubectl proxy\` and use FetchClient.kubectlProxy() instead`,
      );
    }
  }
  const certData = pemOf(user, "client-certificate", where, entry.baseDir);
  if (certData) config.certData = certData;
  const keyData = pemOf(user, "client-key", where, entry.baseDir);
  if (keyData) config.keyData = keyData;
  if (user.exec !== undefined && user.exec !== null) {
    config.exec = execConfig(user.exec, where, entry.baseDir, cluster);
  }
  if (!config.token && !config.tokenFile && !config.certData && !config.exec) {
    if (isEntry(user["auth-provider"])) {
      const provider = typeof user["auth-provider"].name === "string"
        ? ` (${user["auth-provider"].name})`
        : "";
      throw new KubeConfigError(
        `${where} authenticates with an auth-provider${provider}, which FetchClient does not support (kubectl dropped the gcp and azure ones in 1.26); use an exec credential plugin such as gke-gcloud-auth-plugin, kubelogin or aws eks get-token`,
      );
    }
    if (user.username !== undefined || user.password !== undefined) {
      throw new KubeConfigError(
        `${where} authenticates with a username and password, which FetchClient does not support; use a token or a client certificate`,
      );
    }
  }
}

function execConfig(
  exec: unknown,
  where: string,
  baseDir: string,
  cluster: Entry,
): ExecPluginConfig {
  const what = `${where} exec`;
  if (!isEntry(exec)) throw new KubeConfigError(`${what} is not a mapping`);
  const command = stringField(exec, "command", what);
  if (!command) throw new KubeConfigError(`${what} has no command`);
  const apiVersion = stringField(exec, "apiVersion", what);
  if (!EXEC_API_VERSIONS.includes(apiVersion as never)) {
    throw new KubeConfigError(
      `${what} apiVersion ${
        apiVersion ? JSON.stringify(apiVersion) : "is missing; it"
      } is not supported; use ${EXEC_API_VERSIONS.join(" or ")}`,
    );
  }
  const args = exec.args ?? [];
  if (!Array.isArray(args) || args.some((arg) => typeof arg !== "string")) {
    throw new KubeConfigError(`${what} args is not a list of strings`);
  }
  const envList = exec.env ?? [];
  if (
    !Array.isArray(envList) ||
    envList.some((item) =>
      !isEntry(item) || typeof item.name !== "string" ||
      typeof (item.value ?? "") !== "string"
    )
  ) {
    throw new KubeConfigError(
      `${what} env is not a list of name and value pairs`,
    );
  }
  const interactiveMode = stringField(exec, "interactiveMode", what) ??
    (apiVersion === "client.authentication.k8s.io/v1beta1"
      ? "IfAvailable"
      : undefined);
  if (interactiveMode === undefined) {
    // kubectl refuses this too, with the same words.
    throw new KubeConfigError(
      `${where}: interactiveMode must be specified to use exec authentication plugin`,
    );
  }
  if (interactiveMode === "Always") {
    throw new KubeConfigError(
      `${what} needs interactiveMode Always, but FetchClient never runs a plugin on a terminal`,
    );
  }
  if (interactiveMode !== "Never" && interactiveMode !== "IfAvailable") {
    throw new KubeConfigError(
      `${what} interactiveMode must be Never, IfAvailable or Always`,
    );
  }
  // As kubectl does, a command with a path separator is relative to the
  // kubeconfig; a bare name is looked up on PATH.
  const resolved = /[\\/]/.test(command)
    ? resolvePath(baseDir, command)
    : command;
  const config: ExecPluginConfig = {
    apiVersion: apiVersion as ExecPluginConfig["apiVersion"],
    command: resolved,
    args: args as string[],
    env: (envList as Entry[]).map((item) => ({
      name: item.name as string,
      value: (item.value ?? "") as string,
    })),
    interactiveMode,
    provideClusterInfo: booleanField(exec, "provideClusterInfo", what),
  };
  const installHint = stringField(exec, "installHint", what);
  if (installHint) config.installHint = installHint;
  if (config.provideClusterInfo) {
    const extension = Array.isArray(cluster.extensions)
      ? cluster.extensions.find((item) =>
        isEntry(item) && item.name === "client.authentication.k8s.io/exec"
      )
      : undefined;
    if (isEntry(extension) && extension.extension !== undefined) {
      config.clusterConfig = extension.extension;
    }
  }
  return config;
}

/**
 * PEM from `<field>-data` (inline, PEM or base64) or else from the file that
 * `<field>` names, as kubeconfig allows for the CA, client certificate and
 * key alike.
 */
function pemOf(
  entry: Entry,
  field: string,
  where: string,
  baseDir: string,
): string | undefined {
  const data = stringField(entry, `${field}-data`, where);
  if (data) return pemFrom(data, `${where} ${field}-data`);
  const file = stringField(entry, field, where);
  if (!file) return undefined;
  const path = resolvePath(baseDir, file);
  return pemFrom(
    readFile(path, `${where} ${field}`),
    `${where} ${field} file ${path}`,
  );
}
