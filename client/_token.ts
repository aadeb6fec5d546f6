import type { Clock } from "../clock.ts";
import { KubeConfigError } from "./errors.ts";
import { fileFingerprint, fsErrorName, readTextFile } from "./_runtime.ts";

/**
 * Trims a bearer token and checks it can go in an HTTP header. The errors
 * never quote the token: the runtime's own header error would.
 */
export function checkToken(token: string, source: string): string {
  const trimmed = token.trim();
  if (trimmed === "") {
    throw new KubeConfigError(`Bearer token from ${source} is empty`);
  }
  if (/[^\t\x20-\x7e]/.test(trimmed)) {
    throw new KubeConfigError(
      `Bearer token from ${source} contains characters not allowed in an HTTP header`,
    );
  }
  return trimmed;
}

/**
 * A bearer token read from a file that may be rotated (a projected service
 * account token is replaced by the kubelet well before it expires). The file
 * is checked at most once per `refreshMs`, and re-read only when its
 * modification time, size or inode changed; `invalidate()` (after a 401)
 * forces a re-read on the next request.
 */
export class TokenFile {
  readonly path: string;
  #clock: Clock;
  #refreshMs: number;
  #token: string | undefined;
  #fingerprint = "";
  #checkedAt = 0;
  #mustRead = true;

  constructor(path: string, options: { clock: Clock; refreshMs: number }) {
    this.path = path;
    this.#clock = options.clock;
    this.#refreshMs = options.refreshMs;
  }

  async read(): Promise<string> {
    const now = this.#clock.now();
    if (
      this.#token !== undefined && !this.#mustRead &&
      now - this.#checkedAt < this.#refreshMs
    ) {
      return this.#token;
    }
    let text: string | undefined;
    try {
      const fingerprint = await fileFingerprint(this.path);
      if (this.#mustRead || fingerprint !== this.#fingerprint) {
        text = await readTextFile(this.path);
        this.#fingerprint = fingerprint;
      }
    } catch (error) {
      // A rotation in progress must not fail requests while the old token
      // is still valid; it is tried again on the next request.
      if (this.#token !== undefined) return this.#token;
      throw new KubeConfigError(
        `Cannot read the bearer token file ${this.path}: ${fsErrorName(error)}`,
      );
    }
    if (text !== undefined) {
      try {
        this.#token = checkToken(text, `file ${this.path}`);
      } catch (error) {
        // A file caught half-written: keep the old token, read it again next
        // time (its fingerprint is forgotten so it is not skipped).
        if (this.#token === undefined) throw error;
        this.#fingerprint = "";
        return this.#token;
      }
    }
    this.#checkedAt = now;
    this.#mustRead = false;
    return this.#token!;
  }

  invalidate(): void {
    this.#mustRead = true;
  }
}
