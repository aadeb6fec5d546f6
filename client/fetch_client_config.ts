/**
 * How {@linkcode FetchClient} reaches a cluster. PEM fields accept PEM text
 * or base64-encoded PEM (the form of kubeconfig `*-data` fields).
 *
 * @example A service account's configuration
 * ```ts
 * import type { FetchClientConfig } from "@haptic/k8s-watcher/client";
 *
 * const config: FetchClientConfig = {
 *   server: "https://10.96.0.1:443",
 *   tokenFile: "/var/run/secrets/kubernetes.io/serviceaccount/token",
 *   caData: "-----BEGIN CERTIFICATE-----\n...\n-----END CERTIFICATE-----\n",
 *   namespace: "haptic",
 * };
 * ```
 */
export interface FetchClientConfig {
  /** The API server URL (`https://host:port`, optionally with a path prefix). */
  server: string;
  /** A bearer token. */
  token?: string;
  /**
   * A file holding the bearer token, re-read when it changes (see
   * `FetchClientOptions.tokenRefreshMs`). Used when `token` is not set.
   */
  tokenFile?: string;
  /** The CA certificate(s) that sign the server certificate. */
  caData?: string;
  /** A client certificate for mutual TLS (needs `keyData`). */
  certData?: string;
  /** The private key of `certData`. */
  keyData?: string;
  /**
   * Accepts a server certificate that does not verify. Deno has no
   * per-client switch for this: the process must also run with
   * `--unsafely-ignore-certificate-errors`; otherwise requests fail with a
   * certificate error that says so.
   */
  insecureSkipTlsVerify?: boolean;
  /**
   * The namespace to use when none is given.
   *
   * @default {"default"}
   */
  namespace?: string;
  /**
   * The name the server certificate is verified against (and sent as SNI),
   * when it differs from the host in `server` (kubeconfig
   * `tls-server-name`).
   */
  tlsServerName?: string;
  /**
   * A proxy for every request (kubeconfig `proxy-url`): `http://` (HTTP
   * CONNECT for `https` servers) everywhere; on Deno also `https://` and
   * `socks5://`.
   */
  proxyUrl?: string;
  /**
   * An exec credential plugin that supplies the token or client certificate
   * (kubeconfig `user.exec`). A `token`, `tokenFile` or `certData` set here
   * takes precedence, as in kubectl.
   */
  exec?: ExecPluginConfig;
}

/**
 * An exec credential plugin, as in a kubeconfig's `user.exec`: the command
 * prints an `ExecCredential` whose status holds a token, or a client
 * certificate and key, and optionally when they expire.
 *
 * @example An EKS token from the AWS CLI
 * ```ts
 * import type { ExecPluginConfig } from "@haptic/k8s-watcher/client";
 *
 * const exec: ExecPluginConfig = {
 *   apiVersion: "client.authentication.k8s.io/v1beta1",
 *   command: "aws",
 *   args: ["eks", "get-token", "--cluster-name", "prod"],
 *   env: [{ name: "AWS_PROFILE", value: "ops" }],
 *   installHint: "Install the AWS CLI: https://aws.amazon.com/cli/",
 * };
 * ```
 */
export interface ExecPluginConfig {
  /** `client.authentication.k8s.io/v1` or `client.authentication.k8s.io/v1beta1`. */
  apiVersion:
    | "client.authentication.k8s.io/v1"
    | "client.authentication.k8s.io/v1beta1";
  /** The program, looked up on `PATH` unless it contains a `/`. */
  command: string;
  /** Its arguments. */
  args?: string[];
  /** Variables added to the environment it runs with. */
  env?: { name: string; value: string }[];
  /** Shown when the command is not found. */
  installHint?: string;
  /**
   * Passes the cluster (server, CA, TLS server name, proxy and
   * `clusterConfig`) to the plugin in `KUBERNETES_EXEC_INFO`.
   */
  provideClusterInfo?: boolean;
  /**
   * The kubeconfig cluster's `client.authentication.k8s.io/exec` extension,
   * passed as `spec.cluster.config` when `provideClusterInfo` is set.
   */
  clusterConfig?: unknown;
  /**
   * `Never` or `IfAvailable`: the plugin runs without a terminal.
   * `Always` is refused: FetchClient never gives a plugin the terminal.
   *
   * @default {"IfAvailable"}
   */
  interactiveMode?: "Never" | "IfAvailable" | "Always";
}
