/**
 * How a `FetchClient`'s request goes out and its answer comes
 * back: the credential valid now (a token, a token file, an exec plugin's
 * token or client certificate), one more try after a 401, the answer as
 * asked for (bytes, JSON, a stream, a stream of JSON lines), its duration,
 * and errors with every token sent redacted. `fetch_client.ts` builds the
 * parts from the configuration; this file holds what a request does with
 * them.
 *
 * @module
 */
import type { ClientMetrics } from "./_client_metrics.ts";
import {
  byobReader,
  ByteBuffer,
  chunkReader,
  parseJson,
  READ_BYTES,
} from "../_internal/_json.ts";
import { ApiConnectionError, ResponseDecodeError } from "./errors.ts";
import { readJsonLines } from "./json_lines.ts";
import type { JsonValue, RequestOptions } from "./rest_client.ts";
import type {
  ExecCredential,
  ExecCredentialSource,
  TokenFile,
} from "./_credentials.ts";
import {
  createTransport,
  type TlsSettings,
  type Transport,
} from "./_transport.ts";
import { ApiError, type KubeStatus } from "./api_error.ts";
import { parseRetryAfter } from "./_retry_after.ts";

/** What a client's requests are sent with, built from its configuration. */
export interface SenderParts {
  /** The server URL, without a trailing slash. */
  base: string;
  /** A bearer token from the configuration. */
  token: string | undefined;
  /** A token file, used when there is no `token`. */
  tokenFile: TokenFile | undefined;
  /** The exec credential plugin, when configured. */
  exec: ExecCredentialSource | undefined;
  /** The client's metrics, when it has a meter. */
  metrics: ClientMetrics | undefined;
  /** The TLS settings of the configuration. */
  tls: TlsSettings;
  /** The transport of those settings. */
  transport: Transport;
}

/**
 * One request sent: its answer, the exec plugin's credential it carried,
 * and the release of its timeout watch (see {@linkcode retireOnTimeout}).
 */
interface Attempt {
  response: Response;
  credential?: ExecCredential;
  release: () => void;
}

/** Sends the requests of one client until it is closed. */
export class RequestSender {
  #base: string;
  #token: string | undefined;
  #tokenFile: TokenFile | undefined;
  #exec: ExecCredentialSource | undefined;
  #metrics: ClientMetrics | undefined;
  #tls: TlsSettings;
  #transport: Transport;
  /** Transports for client certificates from the exec plugin, newest last. */
  #execTransports = new Map<string, Transport>();
  #closed = false;
  /** Every token sent so far (normally one), to keep them out of errors. */
  #sentTokens = new Set<string>();

  constructor(parts: SenderParts) {
    this.#base = parts.base;
    this.#token = parts.token;
    this.#tokenFile = parts.tokenFile;
    this.#exec = parts.exec;
    this.#metrics = parts.metrics;
    this.#tls = parts.tls;
    this.#transport = parts.transport;
  }

  /** One request sent, its answer as asked for (`performRequest`). */
  send(opts: RequestOptions): Promise<unknown> {
    const metrics = this.#metrics;
    // Timed as client-go times a request: to the end of its body (a LIST
    // read as a stream too), a retry included; a watch, which lasts
    // minutes, is not.
    if (!metrics || (opts?.expectStream && isWatch(opts.querystring))) {
      return this.#perform(opts);
    }
    return this.#timed(opts, metrics);
  }

  async #timed(opts: RequestOptions, metrics: ClientMetrics): Promise<unknown> {
    const started = metrics.started();
    const finished = () => metrics.finished(opts.method, started);
    let answer: unknown;
    try {
      answer = await this.#perform(opts);
    } catch (error) {
      finished();
      throw error;
    }
    if (!opts.expectStream) {
      finished();
      return answer;
    }
    return untilEnded(answer as ReadableStream<unknown>, finished);
  }

  async #perform(opts: RequestOptions): Promise<unknown> {
    const { method, path } = opts;
    if (this.#closed) {
      throw new ApiConnectionError({
        server: this.#base,
        method,
        path,
        detail: "the client was closed",
      });
    }
    const query = opts.querystring?.toString();
    const url = this.#base + path + (query ? `?${query}` : "");
    const headers = new Headers();
    const accept = opts.accept ??
      (opts.expectJson ? "application/json" : undefined);
    if (accept) headers.set("accept", accept);
    if (opts.expectStream && isWatch(opts.querystring)) {
      // kube-apiserver 1.37 gzips a watch with sendInitialEvents for a
      // client that accepts it, one gzip member per flush, and Deno's fetch
      // ends the body with the first member: the watch would look closed
      // after its first flush. Watch events are small and spread out, so
      // compression buys little there.
      headers.set("accept-encoding", "identity");
    }
    let body: string | Uint8Array | ReadableStream<Uint8Array> | undefined;
    if (opts.bodyStream) body = opts.bodyStream;
    else if (opts.bodyRaw) body = opts.bodyRaw;
    else if (opts.bodyJson !== undefined) body = JSON.stringify(opts.bodyJson);
    const contentType = opts.contentType ??
      (opts.bodyJson !== undefined ? "application/json" : undefined);
    if (contentType) headers.set("content-type", contentType);

    let attempt = await this.#attempt(opts, url, headers, body);
    try {
      if (attempt.response.status === 401) {
        attempt = await this.#afterUnauthorized(
          opts,
          attempt,
          () => this.#attempt(opts, url, headers, body),
        );
      }
      return await this.#answer(opts, attempt);
    } catch (error) {
      attempt.release();
      throw error;
    }
  }

  /**
   * A 401: the token file is read again at the next request, and a
   * credential of the exec plugin that was refused before it expired
   * (revoked, clock skew) is replaced: when the plugin gives a new one, the
   * request is sent once more. A streamed body cannot be sent twice.
   */
  async #afterUnauthorized(
    opts: RequestOptions,
    attempt: Attempt,
    again: () => Promise<Attempt>,
  ): Promise<Attempt> {
    this.#tokenFile?.invalidate();
    const { response, credential } = attempt;
    if (!credential || !this.#exec) return attempt;
    this.#exec.invalidate(credential);
    if (opts.bodyStream) return attempt;
    let fresh: ExecCredential;
    try {
      fresh = await untilAborted(this.#exec.get(), opts.abortSignal);
    } catch (error) {
      await response.body?.cancel().catch(() => {});
      throw error;
    }
    if (fresh === credential) return attempt;
    await response.body?.cancel().catch(() => {});
    attempt.release();
    return await again();
  }

  /**
   * The answer as asked for; the attempt is released once it is read (for
   * a stream, once the stream ends).
   */
  async #answer(opts: RequestOptions, attempt: Attempt): Promise<unknown> {
    const { method, path } = opts;
    const { response } = attempt;
    if (response.status < 200 || response.status >= 300) {
      // A proxy could echo the Authorization header back in its answer.
      throw await apiErrorFrom(response, method, path, this.#redactor);
    }
    if (opts.expectStream) {
      const stream = untilEnded(
        response.body ?? new Blob([]).stream(),
        attempt.release,
      );
      return opts.expectJson
        ? jsonLineStream(stream, opts.abortSignal)
        : stream;
    }
    let bytes: Uint8Array;
    try {
      bytes = new Uint8Array(await response.arrayBuffer());
    } catch (error) {
      throw this.#failure(opts, error);
    }
    attempt.release();
    if (!opts.expectJson) return bytes;
    const text = new TextDecoder().decode(bytes);
    try {
      return parseJson(text);
    } catch (cause) {
      throw new ResponseDecodeError({
        code: response.status,
        contentType: response.headers.get("content-type") ?? undefined,
        // Redacted before the cut, so no part of a token is left at the end.
        preview: this.#redact(text).slice(0, PREVIEW_CHARS),
        method,
        path,
        cause: this.#scrub(cause),
      });
    }
  }

  /** Sends the request once, with the credential valid now. */
  async #attempt(
    opts: RequestOptions,
    url: string,
    common: Headers,
    body: string | Uint8Array | ReadableStream<Uint8Array> | undefined,
  ): Promise<Attempt> {
    const headers = new Headers(common);
    let transport = this.#transport;
    let credential: ExecCredential | undefined;
    let token = this.#token ?? await this.#tokenFile?.read();
    // As in kubectl, a token or certificate in the configuration wins over
    // what the plugin gives.
    if (!token && this.#exec) {
      credential = await untilAborted(this.#exec.get(), opts.abortSignal);
      token = credential.token;
      if (credential.cert && credential.key && !this.#tls.cert) {
        transport = this.#execTransport(credential.cert, credential.key);
      }
    }
    if (token) {
      if (!this.#sentTokens.has(token)) {
        if (this.#sentTokens.size >= 4) this.#sentTokens.clear();
        this.#sentTokens.add(token);
      }
      headers.set("authorization", `Bearer ${token}`);
    }
    const metrics = this.#metrics;
    const release = retireOnTimeout(opts.abortSignal, transport);
    try {
      // fetch checks this too; mocks of fetch may not.
      opts.abortSignal?.throwIfAborted();
      opts.onSent?.();
      const response = await transport.fetch(url, {
        method: opts.method,
        headers,
        body,
        signal: opts.abortSignal,
      });
      metrics?.answered(opts.method, response.status);
      return { response, credential, release };
    } catch (error) {
      release();
      metrics?.answered(opts.method, undefined);
      throw this.#failure(opts, error);
    }
  }

  /**
   * The transport for a client certificate from the exec plugin. The two
   * newest stay open (streams opened with the previous one may still run);
   * older ones are closed.
   */
  #execTransport(cert: string, key: string): Transport {
    let transport = this.#execTransports.get(cert);
    if (!transport) {
      transport = createTransport({ ...this.#tls, cert, key });
      this.#execTransports.set(cert, transport);
      for (const [oldCert, old] of this.#execTransports) {
        if (this.#execTransports.size <= 2) break;
        old.close();
        this.#execTransports.delete(oldCert);
      }
    }
    return transport;
  }

  /**
   * Releases the TLS clients and stops a running exec plugin; requests
   * sent afterwards fail. Idempotent.
   */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#transport.close();
    for (const transport of this.#execTransports.values()) transport.close();
    this.#execTransports.clear();
    this.#exec?.close();
  }

  /** The error for a request that got no (complete) answer. */
  #failure(opts: RequestOptions, error: unknown): unknown {
    if (opts.abortSignal?.aborted) return opts.abortSignal.reason ?? error;
    let detail = describe(error);
    if (/certificate|UnknownIssuer|tls|altname/i.test(detail)) {
      const name = this.#tls.serverName ? ` for ${this.#tls.serverName}` : "";
      detail += this.#tls.ca
        ? `; the server certificate does not verify against the configured CA${name}`
        : `; the server certificate does not verify against the system roots${name} (set caData)`;
    }
    return new ApiConnectionError({
      server: this.#base,
      method: opts.method,
      path: opts.path,
      detail: this.#redact(detail),
      cause: this.#scrub(error),
    });
  }

  #redactor = (text: string): string => this.#redact(text);

  #redact(text: string): string {
    for (const token of this.#sentTokens) {
      if (text.includes(token)) text = text.replaceAll(token, "[REDACTED]");
    }
    return text;
  }

  /**
   * The error itself, or a copy without the token when it (or its cause
   * chain) quotes it.
   */
  #scrub(error: unknown, depth = 0): unknown {
    if (!(error instanceof Error) || depth > 4) return error;
    const cause = this.#scrub(error.cause, depth + 1);
    const text = `${error.message}\n${error.stack ?? ""}`;
    if (cause === error.cause && this.#redact(text) === text) return error;
    const copy = new Error(this.#redact(error.message), { cause });
    copy.name = error.name;
    copy.stack = this.#redact(error.stack ?? "");
    return copy;
  }
}

/** `promise`, or a rejection with the signal's reason once it aborts. */
function untilAborted<T>(
  promise: Promise<T>,
  signal: AbortSignal | undefined,
): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() =>
      signal.removeEventListener("abort", onAbort)
    );
  });
}

/**
 * The parsed lines of `body` as a stream. Unlike `ReadableStream.from` over
 * the generator, cancelling it cancels `body` (with the reason) even before
 * the first read: an unstarted generator never runs its cleanup.
 */
function jsonLineStream(
  body: ReadableStream<Uint8Array>,
  abortSignal: AbortSignal | undefined,
): ReadableStream<JsonValue> {
  const cancelled = new AbortController();
  const lines = readJsonLines(body, {
    signal: abortSignal
      ? AbortSignal.any([abortSignal, cancelled.signal])
      : cancelled.signal,
  });
  let started = false;
  return new ReadableStream<JsonValue>({
    async pull(controller) {
      started = true;
      const next = await lines.next();
      if (next.done) controller.close();
      else controller.enqueue(next.value as JsonValue);
    },
    async cancel(reason) {
      if (!started) {
        await lines.return();
        await body.cancel(reason);
        return;
      }
      cancelled.abort(reason);
      await lines.return().catch(() => {});
    },
  }, { highWaterMark: 0 });
}

function isWatch(query: URLSearchParams | undefined): boolean {
  const watch = query?.get("watch");
  return watch === "1" || watch === "true";
}

/**
 * Retires the pool of `transport` a request is sent to now if `signal`
 * aborts with a timeout before the returned release is called (once the
 * request and its body are done).
 *
 * A request that times out retires its transport's connections: the one it
 * ran on may be half-open (a wedged peer, a middlebox that swallows
 * packets), and on HTTP/2 every other request of the client would be one
 * more stream on it. A timeout is an abort whose reason is named
 * `TimeoutError`, as the loop's timers and `AbortSignal.timeout()` name it;
 * any other abort (a stop) says nothing about the connection.
 */
export function retireOnTimeout(
  signal: AbortSignal | undefined,
  transport: Transport,
): () => void {
  if (signal === undefined || signal.aborted) return () => {};
  const pool = transport.pool;
  const onAbort = () => {
    if (isTimeout(signal.reason)) transport.retire(pool);
  };
  signal.addEventListener("abort", onAbort, { once: true });
  return () => signal.removeEventListener("abort", onAbort);
}

function isTimeout(reason: unknown): boolean {
  return typeof reason === "object" && reason !== null &&
    (reason as { name?: unknown }).name === "TimeoutError";
}

/**
 * `stream`, calling `ended` once when it ends, fails or is cancelled.
 * Chunks are passed on as they are asked for; once over, `stream` is
 * unlocked, as it would be unwrapped. The life of a request whose answer is
 * streamed ends with its body's, for the timeout watch
 * ({@linkcode retireOnTimeout}) and the request's duration
 * (`_client_metrics.ts`) alike. A byte stream (a runtime's `fetch` body)
 * gives a byte stream: a reader's own buffer goes through to the runtime's
 * read, so that reading through this costs no buffer per chunk (see
 * `chunkReader`).
 */
export function untilEnded<T>(
  stream: ReadableStream<T>,
  ended: () => void,
): ReadableStream<T> {
  const bytes = byobReader(stream);
  const reader = bytes ?? stream.getReader();
  let open = true;
  const end = () => {
    if (!open) return;
    open = false;
    reader.releaseLock();
    ended();
  };
  async function read<R>(next: Promise<R>): Promise<R> {
    try {
      return await next;
    } catch (error) {
      end();
      throw error;
    }
  }
  async function cancel(reason: unknown): Promise<void> {
    try {
      await reader.cancel(reason);
    } finally {
      end();
    }
  }
  if (bytes === undefined) {
    // Not a byte stream: passed on chunk by chunk.
    const chunks = reader as ReadableStreamDefaultReader<T>;
    return new ReadableStream<T>({
      async pull(controller) {
        const next = await read(chunks.read());
        if (!open) return;
        if (next.done) {
          end();
          controller.close();
        } else controller.enqueue(next.value);
      },
      cancel,
    }, { highWaterMark: 0 });
  }
  const passed = new ReadableStream({
    type: "bytes",
    // Every pull has a BYOB request then, a plain read's included.
    autoAllocateChunkSize: READ_BYTES,
    async pull(controller) {
      const request = controller.byobRequest!;
      const { buffer, byteOffset, byteLength } = request.view!;
      const next = await read(
        bytes.read(new Uint8Array(buffer, byteOffset, byteLength)),
      );
      // Cancelled while reading: the stream is closed and the request void.
      if (!open) return;
      // The runtime wrote into the request's buffer, which came back in
      // `next.value` (empty at the end).
      if (next.done) {
        end();
        controller.close();
      }
      if (next.value !== undefined) request.respondWithNewView(next.value);
    },
    cancel,
  }, { highWaterMark: 0 });
  // Only a stream of bytes has a byte reader: T is Uint8Array here.
  return passed as unknown as ReadableStream<T>;
}

const ERROR_BODY_LIMIT = 64 * 1024;
/** How much of an unexpected body errors quote. */
export const PREVIEW_CHARS = 200;

/**
 * The ApiError for a non-2xx answer: its parsed `Status` when the body is
 * one, else the content type and the first characters of the body.
 * `redact` removes credentials from the body before anything quotes it.
 */
export async function apiErrorFrom(
  response: Response,
  method: string,
  path: string,
  redact: (text: string) => string,
): Promise<ApiError> {
  const contentType = response.headers.get("content-type") ?? undefined;
  const text = redact(await readPrefix(response, ERROR_BODY_LIMIT));
  let status: KubeStatus | undefined;
  if (text.trimStart().startsWith("{")) {
    try {
      const parsed: unknown = JSON.parse(text);
      if (typeof parsed === "object" && parsed !== null) {
        status = parsed as KubeStatus;
      }
    } catch {
      // A cut or broken body is described by its preview below.
    }
  }
  const header = response.headers.get("retry-after");
  const detailSeconds = status?.details?.retryAfterSeconds;
  const retryAfterSeconds =
    (header !== null ? parseRetryAfter(header) : undefined) ??
      (typeof detailSeconds === "number" ? detailSeconds : undefined);
  const preview = text.slice(0, PREVIEW_CHARS);
  return new ApiError({
    code: response.status,
    status,
    method,
    path,
    retryAfterSeconds,
    message: status?.message || status?.reason
      ? undefined
      : `Kubernetes API answered ${response.status} for ${method} ${path} (${
        contentType || "no content type"
      }): ${preview === "" ? "empty body" : JSON.stringify(preview)}`,
  });
}

/** The messages down an error's cause chain (Deno puts the reason in `cause`). */
export function describe(error: unknown): string {
  const messages: string[] = [];
  let current = error;
  for (let depth = 0; depth < 4 && current !== undefined; depth++) {
    const message = current instanceof Error
      ? current.message
      : String(current);
    if (message && !messages.includes(message)) messages.push(message);
    current = current instanceof Error ? current.cause : undefined;
  }
  return messages.join(": ") || "unknown error";
}

/** Up to `limit` bytes of the body as text; the rest is cancelled. */
async function readPrefix(response: Response, limit: number): Promise<string> {
  if (!response.body) return "";
  const reader = chunkReader(response.body);
  const received = new ByteBuffer();
  try {
    while (received.byteLength < limit) {
      const { done, value } = await reader.read();
      if (done) break;
      received.push(value);
    }
  } catch {
    // Whatever arrived before the failure still describes the answer.
  } finally {
    await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
  return new TextDecoder().decode(received.bytes().subarray(0, limit));
}
