/**
 * The errors `FetchClient` throws besides {@linkcode ApiError}. None of them
 * ever contains a bearer token or private key. And the error of a
 * `ResourceClient` whose options are wrong:
 * {@linkcode ResourceClientConfigError}.
 *
 * @module
 */

/**
 * A client configuration that cannot be used: a missing server URL, an
 * unreadable file, PEM data that is not PEM, YAML outside what the reader
 * supports (with its line and column), an unsupported kubeconfig feature,
 * or an exec credential plugin that is missing, fails, times out or prints
 * no usable credential (thrown by the request that needed it).
 *
 * @example Refusing a server URL that is not a URL
 * ```ts
 * import { FetchClient, KubeConfigError } from "@haptic/k8s-watcher";
 * import assert from "node:assert/strict";
 *
 * assert.throws(
 *   () => new FetchClient({ server: "not a url" }),
 *   (err) => err instanceof KubeConfigError && /server URL/.test(err.message),
 * );
 * ```
 */
export class KubeConfigError extends Error {
  /**
   * Creates the error.
   *
   * @example An unreadable file, with its cause
   * ```ts
   * import { KubeConfigError } from "@haptic/k8s-watcher";
   * import assert from "node:assert/strict";
   *
   * const cause = new Error("permission denied");
   * const err = new KubeConfigError("Kubeconfig ~/.kube/config cannot be read", { cause });
   * assert.equal(err.name, "KubeConfigError");
   * assert.equal(err.cause, cause);
   * ```
   *
   * @param message What is wrong, naming the setting or file.
   * @param options The underlying cause.
   */
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "KubeConfigError";
  }
}

/**
 * One configuration source `FetchClient.fromEnv` looked at, and why it was
 * not used.
 *
 * @example A source that did not apply
 * ```ts
 * import type { ConfigAttempt } from "@haptic/k8s-watcher/client";
 *
 * const attempt: ConfigAttempt = {
 *   source: "in-cluster",
 *   reason: "KUBERNETES_SERVICE_HOST is not set",
 * };
 * ```
 */
export interface ConfigAttempt {
  /** The source, e.g. `KUBECONFIG`, `in-cluster`, `~/.kube/config`. */
  source: string;
  /** Why it was rejected. */
  reason: string;
}

/**
 * No configuration source applied. The message and `attempts` list every
 * source that was tried and why it was rejected.
 *
 * @example No configuration anywhere
 * ```ts
 * import { FetchClient, NoKubeConfigError } from "@haptic/k8s-watcher";
 * import assert from "node:assert/strict";
 *
 * const empty = await Deno.makeTempDir();
 * try {
 *   assert.throws(
 *     () => FetchClient.fromEnv({ env: { HOME: empty }, inClusterDir: empty }),
 *     (err) => err instanceof NoKubeConfigError && err.attempts.length === 4,
 *   );
 * } finally {
 *   await Deno.remove(empty, { recursive: true });
 * }
 * ```
 */
export class NoKubeConfigError extends Error {
  /** Every source tried, in order, with the reason it was rejected. */
  readonly attempts: readonly ConfigAttempt[];

  /**
   * Creates the error.
   *
   * @example Every source and why it did not apply
   * ```ts
   * import { NoKubeConfigError } from "@haptic/k8s-watcher";
   * import assert from "node:assert/strict";
   *
   * const err = new NoKubeConfigError([
   *   { source: "KUBECONFIG", reason: "not set" },
   *   { source: "in-cluster", reason: "KUBERNETES_SERVICE_HOST is not set" },
   * ]);
   * assert.match(err.message, /KUBECONFIG: not set; in-cluster: KUBERNETES_SERVICE_HOST is not set/);
   * assert.equal(err.attempts.length, 2);
   * ```
   *
   * @param attempts The sources tried and why each was rejected.
   */
  constructor(attempts: readonly ConfigAttempt[]) {
    super(
      `No Kubernetes client configuration found: ${
        attempts.map((a) => `${a.source}: ${a.reason}`).join("; ")
      }`,
    );
    this.name = "NoKubeConfigError";
    this.attempts = attempts;
  }
}

/**
 * Options for {@linkcode ResponseDecodeError}.
 *
 * @example An HTML sign-in page instead of JSON
 * ```ts
 * import type { ResponseDecodeErrorOptions } from "@haptic/k8s-watcher/client";
 *
 * const options: ResponseDecodeErrorOptions = {
 *   code: 200,
 *   contentType: "text/html",
 *   preview: "<html>Sign in</html>",
 *   method: "GET",
 *   path: "/api/v1/pods",
 * };
 * ```
 */
export interface ResponseDecodeErrorOptions {
  /** The HTTP status code of the answer. */
  code: number;
  /** Its `Content-Type`, when it had one. */
  contentType?: string;
  /** The start of the body, as text. */
  preview: string;
  /** The request method. */
  method: string;
  /** The request path, without the query string. */
  path: string;
  /** The parse error. */
  cause?: unknown;
}

/**
 * A successful answer whose body could not be decoded as the JSON that was
 * expected: an HTML page from a proxy, an empty or truncated body. Non-2xx
 * answers become {@linkcode ApiError} instead, whatever their body.
 *
 * @example Telling a proxy's HTML page from an API answer
 * ```ts
 * import { ResponseDecodeError } from "@haptic/k8s-watcher/client";
 * import assert from "node:assert/strict";
 *
 * const err = new ResponseDecodeError({
 *   code: 200,
 *   contentType: "text/html",
 *   preview: "<html>Sign in</html>",
 *   method: "GET",
 *   path: "/api/v1/pods",
 * });
 * assert.match(err.message, /not JSON/);
 * assert.equal(err.contentType, "text/html");
 * ```
 */
export class ResponseDecodeError extends Error {
  /** The HTTP status code of the answer. */
  readonly code: number;
  /** Its `Content-Type`, when it had one. */
  readonly contentType: string | undefined;
  /** The start of the body, as text (at most 200 characters). */
  readonly preview: string;
  /** The request method. */
  readonly method: string;
  /** The request path, without the query string. */
  readonly path: string;

  /**
   * Creates the error.
   *
   * @example A proxy's sign-in page
   * ```ts
   * import { ResponseDecodeError } from "@haptic/k8s-watcher/client";
   * import assert from "node:assert/strict";
   *
   * const err = new ResponseDecodeError({
   *   code: 200,
   *   contentType: "text/html",
   *   preview: "<html>Sign in</html>",
   *   method: "GET",
   *   path: "/api/v1/pods",
   * });
   * assert.equal(err.preview, "<html>Sign in</html>");
   * ```
   *
   * @param options The answer that could not be decoded.
   */
  constructor(options: ResponseDecodeErrorOptions) {
    const { code, contentType, preview, method, path } = options;
    super(
      `Kubernetes API answer to ${method} ${path} is not JSON (${code}, ${
        contentType || "no content type"
      }): ${preview === "" ? "empty body" : JSON.stringify(preview)}`,
      { cause: options.cause },
    );
    this.name = "ResponseDecodeError";
    this.code = code;
    this.contentType = contentType;
    this.preview = preview;
    this.method = method;
    this.path = path;
  }
}

/**
 * Options for {@linkcode ApiConnectionError}.
 *
 * @example A refused connection
 * ```ts
 * import type { ApiConnectionErrorOptions } from "@haptic/k8s-watcher/client";
 *
 * const options: ApiConnectionErrorOptions = {
 *   server: "https://10.0.0.1:443",
 *   method: "GET",
 *   path: "/api/v1/pods",
 *   detail: "connection refused",
 * };
 * ```
 */
export interface ApiConnectionErrorOptions {
  /** The server URL. */
  server: string;
  /** The request method. */
  method: string;
  /** The request path, without the query string. */
  path: string;
  /** What went wrong, without credentials. */
  detail: string;
  /** The underlying error, with credentials removed. */
  cause?: unknown;
}

/**
 * The request got no HTTP answer: connection refused or reset, DNS or TLS
 * failure, a closed client. Retrying later may help.
 *
 * @example A connection failure has no HTTP status
 * ```ts
 * import { ApiConnectionError } from "@haptic/k8s-watcher";
 * import { httpStatusOf } from "@haptic/k8s-watcher/client";
 * import assert from "node:assert/strict";
 *
 * const err = new ApiConnectionError({
 *   server: "https://10.0.0.1:443",
 *   method: "GET",
 *   path: "/api/v1/pods",
 *   detail: "connection refused",
 * });
 * assert.deepEqual(httpStatusOf(err), {});
 * ```
 */
export class ApiConnectionError extends Error {
  /** The server URL. */
  readonly server: string;
  /** The request method. */
  readonly method: string;
  /** The request path, without the query string. */
  readonly path: string;

  /**
   * Creates the error.
   *
   * @example A refused connection, named with its server
   * ```ts
   * import { ApiConnectionError } from "@haptic/k8s-watcher";
   * import assert from "node:assert/strict";
   *
   * const err = new ApiConnectionError({
   *   server: "https://10.0.0.1:443",
   *   method: "GET",
   *   path: "/api/v1/pods",
   *   detail: "connection refused",
   * });
   * assert.equal(err.server, "https://10.0.0.1:443");
   * assert.match(err.message, /connection refused/);
   * ```
   *
   * @param options The request and what went wrong.
   */
  constructor(options: ApiConnectionErrorOptions) {
    super(
      `Cannot reach the Kubernetes API at ${options.server} for ${options.method} ${options.path}: ${options.detail}`,
      { cause: options.cause },
    );
    this.name = "ApiConnectionError";
    this.server = options.server;
    this.method = options.method;
    this.path = options.path;
  }
}

/**
 * Thrown when a `ResourceClient`'s options, or the options of one of its
 * calls, are wrong; the message names the option and what was wrong with
 * it, {@linkcode ResourceClientConfigError.field} holds its path. Nothing
 * was sent.
 *
 * @example An apply without a field manager
 * ```ts
 * import { ResourceClient, ResourceClientConfigError } from "@haptic/k8s-watcher/client";
 * import { FakeApiServer, mockFetch } from "@haptic/k8s-watcher/testing";
 * import { FetchClient } from "@haptic/k8s-watcher";
 * import assert from "node:assert/strict";
 *
 * await using server = new FakeApiServer();
 * using _fetch = mockFetch(server);
 * using client = new FetchClient({ server: server.url });
 * const configMaps = new ResourceClient({ client, gvr: { group: "", version: "v1", resource: "configmaps" } });
 * await assert.rejects(
 *   // A caller without types can leave the required field manager out.
 *   configMaps.apply(
 *     { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "a" } },
 *     {} as { fieldManager: string },
 *   ),
 *   (error: unknown) => error instanceof ResourceClientConfigError && error.field === "fieldManager",
 * );
 * ```
 */
export class ResourceClientConfigError extends TypeError {
  /** What took the options: `ResourceClient`, or a call such as `ResourceClient.apply`. */
  readonly component: string;
  /** The option's path, e.g. `gvr.resource` or `fieldManager`. */
  readonly field: string;

  /**
   * Creates the error.
   *
   * @example Naming the option
   * ```ts
   * import { ResourceClientConfigError } from "@haptic/k8s-watcher/client";
   * import assert from "node:assert/strict";
   *
   * const error = new ResourceClientConfigError("ResourceClient", "gvr.resource", "must be a non-empty string, got \"\"");
   * assert.equal(error.message, 'Invalid ResourceClient options: gvr.resource: must be a non-empty string, got ""');
   * ```
   *
   * @param component `ResourceClient`, or the call.
   * @param field The option's path.
   * @param message What is wrong with it, worded to follow the path.
   */
  constructor(component: string, field: string, message: string) {
    super(`Invalid ${component} options: ${field}: ${message}`);
    this.name = "ResourceClientConfigError";
    this.component = component;
    this.field = field;
  }
}
