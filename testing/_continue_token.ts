import { badRequest } from "./_status.ts";
import { FakeApiError } from "./fake_api_error.ts";

/** What a continue token carries: the list snapshot, where it stopped, and its generation. */
export interface ContinueToken {
  /** The resourceVersion of the list snapshot. */
  rv: number;
  /** The key of the last object returned; the next page starts after it. */
  after: string;
  /** Tokens from an older epoch are expired by `expireContinueTokens()`. */
  epoch: number;
}

/** Encodes a token like Kubernetes does: base64 of a small JSON document. */
export function encodeContinue(token: ContinueToken): string {
  const json = JSON.stringify({
    v: "meta.k8s.io/v1",
    rv: token.rv,
    start: token.after,
    epoch: token.epoch,
  });
  const bytes = new TextEncoder().encode(json);
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}

/** Decodes a token; a malformed one is a 400, as on a real server. */
export function decodeContinue(token: string): ContinueToken {
  try {
    const binary = atob(token);
    const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
    const doc = JSON.parse(
      new TextDecoder("utf-8", { fatal: true }).decode(bytes),
    );
    if (
      doc?.v === "meta.k8s.io/v1" && Number.isSafeInteger(doc.rv) &&
      doc.rv >= 0 &&
      typeof doc.start === "string" && Number.isSafeInteger(doc.epoch)
    ) {
      return { rv: doc.rv, after: doc.start, epoch: doc.epoch };
    }
  } catch {
    // Reported below with the token itself.
  }
  throw new FakeApiError(
    badRequest(
      `continue key is not valid: ${JSON.stringify(token.slice(0, 100))}`,
    ),
  );
}
