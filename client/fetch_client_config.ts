/**
 * How {@linkcode FetchClient} reaches a cluster. PEM fields accept PEM text
 * or base64-encoded PEM (the form of kubeconfig `*-data` fields).
 *
 * @example
 * ```ts
 * import type { FetchClientConfig } from "@haptic/k8s-watcher";
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
  /** The namespace to use when none is given (default `default`). */
  namespace?: string;
}
