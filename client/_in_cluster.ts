import { KubeConfigError } from "./errors.ts";
import type { ResolvedConfig } from "./_kubeconfig.ts";
import { pemFrom } from "./_pem.ts";
import { exists, fsErrorName, readTextFileSync } from "./_runtime.ts";

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
