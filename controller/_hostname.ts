/**
 * The host's name, where it can be read without asking: an Event
 * recorder's default `reportingInstance` is named after it, as client-go's
 * is (in a pod, the host name is the pod's name).
 *
 * @module
 */
import { nodeBuiltin } from "../_internal/_node_builtin.ts";

interface DenoHost {
  hostname(): string;
  permissions: {
    querySync(descriptor: { name: "sys"; kind: "hostname" }): {
      state: string;
    };
  };
}

/**
 * The host name; undefined where reading it needs a permission not granted
 * (Deno without `--allow-sys`: asking would prompt, or throw) or fails.
 */
export function hostname(): string | undefined {
  try {
    const deno = (globalThis as { Deno?: DenoHost }).Deno;
    if (typeof deno === "object") {
      const state = deno.permissions.querySync({
        name: "sys",
        kind: "hostname",
      }).state;
      return state === "granted" ? deno.hostname() || undefined : undefined;
    }
    return nodeBuiltin<{ hostname(): string }>("node:os").hostname() ||
      undefined;
  } catch {
    return undefined;
  }
}
