import { KubeConfigError } from "./errors.ts";
import type { FetchClientConfig } from "./fetch_client_config.ts";
import { pemFrom } from "./_pem.ts";

/** A configuration and a description of where it came from. */
export interface ResolvedConfig {
  config: FetchClientConfig;
  source: string;
}

type Entry = Record<string, unknown>;

function isEntry(value: unknown): value is Entry {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

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

function named(list: unknown, name: string, key: string): Entry | undefined {
  if (!Array.isArray(list)) return undefined;
  for (const item of list) {
    if (isEntry(item) && item.name === name && isEntry(item[key])) {
      return item[key] as Entry;
    }
  }
  return undefined;
}

function stringField(entry: Entry, field: string, where: string) {
  const value = entry[field];
  if (value === undefined || value === null || value === "") return undefined;
  if (typeof value !== "string") {
    throw new KubeConfigError(`${where} field ${field} is not a string`);
  }
  return value;
}

function readFile(path: string, what: string): string {
  try {
    return Deno.readTextFileSync(path);
  } catch (error) {
    throw new KubeConfigError(
      `Cannot read ${what} file ${path}: ${
        error instanceof Error ? error.name : "unknown error"
      }`,
    );
  }
}

/**
 * Turns a parsed kubeconfig (the JSON form of `kubectl config view`) into a
 * client configuration for its current context (or `context`). File
 * references are read now, relative to `baseDir`; a `tokenFile` stays a
 * path so rotation is seen. Errors name the context, cluster or user and
 * the field, never a value.
 */
export function configFromKubeconfig(
  doc: unknown,
  options: { origin: string; baseDir: string; context?: string },
): ResolvedConfig {
  const { origin, baseDir } = options;
  if (!isEntry(doc)) {
    throw new KubeConfigError(`Kubeconfig ${origin} is not a JSON object`);
  }
  const contextName = options.context ??
    (typeof doc["current-context"] === "string" ? doc["current-context"] : "");
  if (contextName === "") {
    throw new KubeConfigError(`Kubeconfig ${origin} has no current context`);
  }
  const context = named(doc.contexts, contextName, "context");
  if (!context) {
    throw new KubeConfigError(
      `Kubeconfig ${origin} has no context named "${contextName}"`,
    );
  }
  const where = `Kubeconfig ${origin} context "${contextName}"`;
  const clusterName = stringField(context, "cluster", where);
  if (!clusterName) throw new KubeConfigError(`${where} names no cluster`);
  const cluster = named(doc.clusters, clusterName, "cluster");
  if (!cluster) {
    throw new KubeConfigError(
      `${where} names a missing cluster "${clusterName}"`,
    );
  }
  const clusterWhere = `Kubeconfig ${origin} cluster "${clusterName}"`;
  const server = stringField(cluster, "server", clusterWhere);
  if (!server) throw new KubeConfigError(`${clusterWhere} has no server URL`);
  for (const unsupported of ["proxy-url", "tls-server-name"]) {
    if (cluster[unsupported] !== undefined) {
      throw new KubeConfigError(
        `${clusterWhere} sets ${unsupported}, which FetchClient does not support`,
      );
    }
  }
  const config: FetchClientConfig = { server };
  const caData = pemOf(
    cluster,
    "certificate-authority",
    "Certificate authority file",
    clusterWhere,
    baseDir,
  );
  if (caData) config.caData = caData;
  if (cluster["insecure-skip-tls-verify"] === true) {
    config.insecureSkipTlsVerify = true;
  }
  const namespace = stringField(context, "namespace", where);
  if (namespace) config.namespace = namespace;

  const userName = stringField(context, "user", where);
  if (userName) {
    const user = named(doc.users, userName, "user");
    if (!user) {
      throw new KubeConfigError(`${where} names a missing user "${userName}"`);
    }
    applyUser(config, user, `Kubeconfig ${origin} user "${userName}"`, baseDir);
  }
  return {
    config,
    source: `kubeconfig ${origin} (context "${contextName}")`,
  };
}

function applyUser(
  config: FetchClientConfig,
  user: Entry,
  where: string,
  baseDir: string,
): void {
  const token = stringField(user, "token", where);
  const tokenFile = stringField(user, "tokenFile", where);
  // As in client-go, a token file wins over a token: it is what rotates.
  if (tokenFile) config.tokenFile = resolvePath(baseDir, tokenFile);
  else if (token) config.token = token;
  for (const field of ["as", "as-uid", "as-groups", "as-user-extra"]) {
    if (user[field] !== undefined) {
      throw new KubeConfigError(
        `${where} impersonates with "${field}", which FetchClient does not support; run \`kubectl proxy\` and use FetchClient.kubectlProxy() instead`,
      );
    }
  }

  const certData = pemOf(
    user,
    "client-certificate",
    "Client certificate file",
    where,
    baseDir,
  );
  if (certData) config.certData = certData;
  const keyData = pemOf(user, "client-key", "Client key file", where, baseDir);
  if (keyData) config.keyData = keyData;
  if (!config.token && !config.tokenFile && !config.certData) {
    const plugin = isEntry(user.exec)
      ? `an exec credential plugin (${
        typeof user.exec.command === "string" ? user.exec.command : "unnamed"
      })`
      : isEntry(user["auth-provider"])
      ? "an auth-provider"
      : user.username !== undefined
      ? "a username and password"
      : undefined;
    if (plugin) {
      throw new KubeConfigError(
        `${where} authenticates with ${plugin}, which FetchClient does not support; run \`kubectl proxy\` and use FetchClient.kubectlProxy() instead`,
      );
    }
  }
}

/**
 * PEM from `<field>-data` (inline, PEM or base64) or else from the file that
 * `<field>` names, as kubeconfig allows for the CA, client certificate and
 * key alike.
 */
function pemOf(
  entry: Entry,
  field: string,
  fileWhat: string,
  where: string,
  baseDir: string,
): string | undefined {
  const data = stringField(entry, `${field}-data`, where);
  if (data) return pemFrom(data, `${where} ${field}-data`);
  const file = stringField(entry, field, where);
  if (!file) return undefined;
  const path = resolvePath(baseDir, file);
  return pemFrom(readFile(path, `${where} ${field}`), `${fileWhat} ${path}`);
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
