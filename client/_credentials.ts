/**
 * Credentials, which no error ever quotes: PEM text or base64-encoded PEM
 * (as in kubeconfig `*-data` fields); a bearer token checked for an HTTP
 * header, or read from a file that may be rotated; and credentials from an
 * exec credential plugin (`client.authentication.k8s.io` `v1` and
 * `v1beta1`), as kubectl runs them: the plugin prints an `ExecCredential`
 * whose status holds a token or a client certificate and key, valid until
 * `expirationTimestamp`.
 *
 * @module
 */
import { KubeConfigError } from "./errors.ts";
import type { Clock } from "../clock.ts";
import {
  allEnv,
  CommandNotFoundError,
  fileFingerprint,
  fsErrorName,
  readTextFile,
  run,
} from "./_runtime.ts";
import type { ExecPluginConfig } from "./fetch_client_config.ts";

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

/** The API versions of `ExecCredential` this client speaks. */
export const EXEC_API_VERSIONS = [
  "client.authentication.k8s.io/v1",
  "client.authentication.k8s.io/v1beta1",
] as const;

/**
 * Credentials are renewed this long before they expire (or halfway through
 * their life when it is shorter than twice this).
 */
export const EXEC_REFRESH_MARGIN_MS = 30_000;
/** How long a plugin may run by default. */
export const DEFAULT_EXEC_TIMEOUT_MS = 60_000;
const STDERR_TAIL_CHARS = 500;

/** What one run of the plugin gave. */
export interface ExecCredential {
  token?: string;
  cert?: string;
  key?: string;
  /** Epoch milliseconds, when the plugin said. */
  expiresAt?: number;
  /** When to run the plugin again instead of using this (epoch ms). */
  renewAt?: number;
}

/**
 * How a call of the plugin ended, in client-go's terms (its
 * `rest_client_exec_plugin_call_total`): the exit code, 0 only for a call
 * without error, and 1 when no process ran.
 */
export interface PluginCall {
  readonly code: number;
  readonly status:
    | "no_error"
    | "plugin_execution_error"
    | "plugin_not_found_error"
    | "client_internal_error";
}

const NO_ERROR: PluginCall = { code: 0, status: "no_error" };
const NOT_FOUND: PluginCall = { code: 1, status: "plugin_not_found_error" };
const INTERNAL_ERROR: PluginCall = { code: 1, status: "client_internal_error" };
/** Killed at the timeout or the client's close: Go's code for a signal. */
const KILLED: PluginCall = { code: -1, status: "plugin_execution_error" };

/** Options of {@linkcode ExecCredentialSource}. */
export interface ExecSourceOptions {
  clock: Clock;
  timeoutMs: number;
  /** The environment the plugin starts from (default: this process's). */
  env?: Record<string, string | undefined>;
  /** `spec.cluster` of `KUBERNETES_EXEC_INFO`, when the plugin asks for it. */
  cluster?: Record<string, unknown>;
  /** Told of each run: how it ended, and `ok` when it gave a credential. */
  onRun?: ((call: PluginCall, ok: boolean) => void) | undefined;
}

/**
 * Runs the plugin when a credential is needed and none is valid: at most
 * one run at a time, whatever the number of waiting requests.
 */
export class ExecCredentialSource {
  readonly #config: ExecPluginConfig;
  readonly #options: ExecSourceOptions;
  #current: ExecCredential | undefined;
  #running: Promise<ExecCredential> | undefined;
  /** Every token or key seen, to keep them out of error messages. */
  #secrets = new Set<string>();
  #closed = new AbortController();
  /** How the current (or last) run ended; one run at a time. */
  #call: PluginCall = INTERNAL_ERROR;

  constructor(config: ExecPluginConfig, options: ExecSourceOptions) {
    this.#config = config;
    this.#options = options;
  }

  /** The plugin's name for messages. */
  get #name(): string {
    return `Exec credential plugin ${this.#config.command}`;
  }

  /** A valid credential: the cached one, or a fresh run's. */
  get(): Promise<ExecCredential> {
    const current = this.#current;
    if (current && !this.#expiresSoon(current)) return Promise.resolve(current);
    const onRun = this.#options.onRun;
    return this.#running ??= this.#run().then((credential) => {
      onRun?.(this.#call, true);
      return credential;
    }, (error) => {
      onRun?.(this.#call, false);
      throw error;
    }).finally(() => {
      this.#running = undefined;
    });
  }

  /**
   * Forgets `used` after the server refused it (401), so the next `get()`
   * runs the plugin again. A credential already replaced is left alone, so
   * that many refused requests cause one run.
   */
  invalidate(used: ExecCredential): void {
    if (this.#current === used) this.#current = undefined;
  }

  /** Ends a running plugin. */
  close(): void {
    this.#closed.abort(new KubeConfigError(`${this.#name} was stopped`));
  }

  #expiresSoon(credential: ExecCredential): boolean {
    return credential.renewAt !== undefined &&
      this.#options.clock.now() >= credential.renewAt;
  }

  async #run(): Promise<ExecCredential> {
    const config = this.#config;
    const { clock, timeoutMs } = this.#options;
    this.#call = INTERNAL_ERROR;
    const timeout = new AbortController();
    const timer = clock.setTimeout(
      () =>
        timeout.abort(
          new KubeConfigError(
            `${this.#name} did not finish within ${timeoutMs} ms`,
          ),
        ),
      timeoutMs,
    );
    let output;
    try {
      output = await run(config.command, {
        args: config.args ?? [],
        env: this.#env(),
        signal: AbortSignal.any([timeout.signal, this.#closed.signal]),
      });
    } catch (error) {
      // The timeout's or close's reason: the process was killed.
      if (error instanceof KubeConfigError) {
        this.#call = KILLED;
        throw error;
      }
      if (error instanceof CommandNotFoundError) {
        this.#call = NOT_FOUND;
        throw new KubeConfigError(
          `${this.#name} was not found${
            config.command.includes("/") ? "" : " on PATH"
          }${config.installHint ? `. ${config.installHint.trim()}` : ""}`,
        );
      }
      throw new KubeConfigError(
        `${this.#name} could not be started: ${
          error instanceof Error ? error.message : String(error)
        }`,
      );
    } finally {
      clock.clearTimeout(timer);
    }
    if (output.code !== 0) {
      this.#call = { code: output.code, status: "plugin_execution_error" };
      const stderr = this.#redact(new TextDecoder().decode(output.stderr))
        .trim();
      const tail = stderr.length > STDERR_TAIL_CHARS
        ? `…${stderr.slice(-STDERR_TAIL_CHARS)}`
        : stderr;
      throw new KubeConfigError(
        `${this.#name} failed with exit code ${output.code}${
          tail ? `: ${tail}` : " and printed nothing on stderr"
        }`,
      );
    }
    // Exit code 0 is a call without error even when the output is no
    // credential, as client-go counts the process.
    this.#call = NO_ERROR;
    const credential = this.#parse(new TextDecoder().decode(output.stdout));
    this.#current = credential;
    return credential;
  }

  #env(): Record<string, string> {
    const base = this.#options.env ?? allEnv();
    const env: Record<string, string> = {};
    for (const [name, value] of Object.entries(base)) {
      if (value !== undefined) env[name] = value;
    }
    for (const { name, value } of this.#config.env ?? []) env[name] = value;
    env.KUBERNETES_EXEC_INFO = JSON.stringify({
      apiVersion: this.#config.apiVersion,
      kind: "ExecCredential",
      spec: {
        interactive: false,
        ...(this.#config.provideClusterInfo && this.#options.cluster
          ? { cluster: this.#options.cluster }
          : {}),
      },
    });
    return env;
  }

  /** The credential in the plugin's output; errors never quote it. */
  #parse(stdout: string): ExecCredential {
    const fail = (what: string): never => {
      throw new KubeConfigError(`${this.#name} ${what}`);
    };
    let doc: unknown;
    try {
      doc = JSON.parse(stdout);
    } catch {
      fail("did not print an ExecCredential as JSON");
    }
    const record = (value: unknown) =>
      typeof value === "object" && value !== null && !Array.isArray(value)
        ? value as Record<string, unknown>
        : undefined;
    const credential = record(doc) ?? fail("did not print a JSON object");
    if (credential.kind !== "ExecCredential") {
      fail("printed an object whose kind is not ExecCredential");
    }
    if (credential.apiVersion !== this.#config.apiVersion) {
      fail(
        `printed apiVersion ${
          JSON.stringify(credential.apiVersion)
        }, but the kubeconfig asks for ${this.#config.apiVersion}`,
      );
    }
    const status = record(credential.status) ??
      fail("printed an ExecCredential without a status");
    const text = (field: string) => {
      const value = status[field];
      if (value === undefined || value === null || value === "") {
        return undefined;
      }
      if (typeof value !== "string") {
        fail(`printed a ${field} that is not text`);
      }
      this.#secrets.add(value as string);
      return value as string;
    };
    const token = text("token");
    const cert = text("clientCertificateData");
    const key = text("clientKeyData");
    if (cert && !key) fail("printed a client certificate without its key");
    if (key && !cert) fail("printed a client key without its certificate");
    if (!token && !cert) {
      fail("printed neither a token nor a client certificate");
    }
    // checkToken's and pemFrom's messages name the field, never the value.
    const result: ExecCredential = {};
    if (token) result.token = checkToken(token, this.#name);
    if (cert && key) {
      result.cert = pemFrom(cert, `${this.#name} clientCertificateData`);
      result.key = pemFrom(key, `${this.#name} clientKeyData`);
    }
    const expiry = status.expirationTimestamp;
    if (expiry !== undefined && expiry !== null) {
      const at = typeof expiry === "string" ? Date.parse(expiry) : NaN;
      if (Number.isNaN(at)) {
        fail("printed an expirationTimestamp that is not a date");
      }
      result.expiresAt = at;
      const now = this.#options.clock.now();
      // A credential that expired already is used for this request only.
      result.renewAt = at <= now ? at : Math.max(
        at - EXEC_REFRESH_MARGIN_MS,
        now + (at - now) / 2,
      );
    }
    return result;
  }

  #redact(text: string): string {
    for (const secret of this.#secrets) {
      if (secret && text.includes(secret)) {
        text = text.replaceAll(secret, "[REDACTED]");
      }
    }
    return text;
  }
}
