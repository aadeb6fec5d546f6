import { KubeConfigError } from "./errors.ts";

const PEM_START = "-----BEGIN ";

/**
 * Accepts PEM text or base64-encoded PEM (as in kubeconfig `*-data` fields)
 * and returns PEM text. `what` names the setting in the error, which never
 * quotes the value: it may be a private key.
 */
export function pemFrom(value: string, what: string): string {
  const trimmed = value.trim();
  if (trimmed.startsWith(PEM_START)) return trimmed + "\n";
  let decoded = "";
  try {
    const binary = atob(trimmed.replace(/\s+/g, ""));
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    decoded = new TextDecoder().decode(bytes).trim();
  } catch {
    // Reported below with the same message as base64 that is not PEM.
  }
  if (!decoded.startsWith(PEM_START)) {
    throw new KubeConfigError(
      `${what} is neither PEM text nor base64-encoded PEM`,
    );
  }
  return decoded + "\n";
}
