/**
 * The real kubectl for tests, run so that it can reach nothing: no HOME and
 * an empty PATH (kubectl config view runs exec plugins, and gcloud or aws
 * could be installed on the machine).
 */
import { kubectlPath } from "./requirements.ts";

/**
 * kubectl's absolute path: on this process's PATH, else the control
 * plane's (tests/requirements.ts).
 */
export function findKubectl(): string | undefined {
  return kubectlPath;
}

/** Runs kubectl (found by {@linkcode findKubectl}) and returns its stdout. */
export async function kubectl(...args: string[]): Promise<string> {
  const path = findKubectl();
  if (!path) throw new Error("kubectl is not installed");
  const out = await new Deno.Command(path, {
    args,
    env: { HOME: "/nonexistent", PATH: "/nonexistent" },
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  if (!out.success) {
    throw new Error(`kubectl ${args.join(" ")}: ${decoder.decode(out.stderr)}`);
  }
  return decoder.decode(out.stdout);
}

/** What `kubectl config view --raw` prints for the kubeconfig `path`. */
export function viewKubeconfig(
  path: string,
  format: "yaml" | "json",
): Promise<string> {
  return kubectl(
    "config",
    "view",
    "--raw",
    "-o",
    format,
    "--kubeconfig",
    path,
  );
}
