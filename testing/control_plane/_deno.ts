/**
 * The control plane starts processes, listens on ports and writes files
 * through the `Deno` namespace; on Node and Bun it says so instead of
 * failing on an undefined global. Nothing here touches `Deno` at load time,
 * so the module still loads everywhere.
 */
export function requireDeno(what: string): void {
  if (typeof (globalThis as { Deno?: unknown }).Deno !== "object") {
    throw new Error(
      `${what} runs on Deno only: it starts etcd and kube-apiserver with Deno.Command`,
    );
  }
}
