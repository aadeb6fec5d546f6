import { type Clock, systemClock } from "../clock.ts";
import type { Meter } from "../metrics/meter.ts";
import { meterProblem } from "../_internal/_metrics.ts";
import { ClientMetrics } from "./_client_metrics.ts";
import {
  durationProblem,
  invalidOptionsMessage,
  type OptionArgument,
  optionNamesProblem,
} from "../_internal/_option_checks.ts";
import { KubeConfigError } from "./errors.ts";
import type {
  ExecPluginConfig,
  FetchClientConfig,
} from "./fetch_client_config.ts";
import type { JsonValue, RequestOptions, RestClient } from "./rest_client.ts";
import {
  checkToken,
  DEFAULT_EXEC_TIMEOUT_MS,
  ExecCredentialSource,
  pemFrom,
  TokenFile,
} from "./_credentials.ts";
import {
  detectConfig,
  envReader,
  inClusterConfig,
  KUBECTL_PROXY_URL,
  kubectlConfigView,
  kubeDir,
  SERVICE_ACCOUNT_DIR,
} from "./_config_sources.ts";
import {
  configFromKubeconfig,
  dirname,
  loadKubeconfig,
} from "./_kubeconfig.ts";
import { createTransport, type TlsSettings } from "./_transport.ts";
import { RequestSender } from "./_request_sender.ts";

const DEFAULT_TOKEN_REFRESH_MS = 60_000;

/**
 * Runtime options of a {@linkcode FetchClient}.
 *
 * @example Checking a token file twice as often
 * ```ts
 * import type { FetchClientOptions } from "@haptic/k8s-watcher/client";
 *
 * const options: FetchClientOptions = { tokenRefreshMs: 30_000 };
 * ```
 */
export interface FetchClientOptions {
  /**
   * Clock for the token file refresh interval and exec plugin timeouts.
   *
   * @default {systemClock}
   */
  clock?: Clock;
  /**
   * How often, at most, a `tokenFile` is checked for changes, in ms (as
   * client-go). A 401 answer forces a re-read on the next request.
   *
   * @default {60000}
   */
  tokenRefreshMs?: number;
  /**
   * Describes where the configuration came from.
   *
   * @default {"explicit config"}
   */
  source?: string;
  /**
   * The environment variables to use instead of the process's: exec
   * credential plugins run with exactly these (plus their own `env`), so
   * `PATH` decides which plugin runs. `fromEnv()` also reads `KUBECONFIG`,
   * `KUBERNETES_SERVICE_HOST`/`_PORT` and `HOME` from them.
   *
   * @default {Deno.env (process.env on Node and Bun)}
   */
  env?: Record<string, string | undefined>;
  /**
   * How long an exec credential plugin may run before it is stopped and
   * the request fails, in ms on `clock`: positive, at most 2³¹−1 (the
   * longest a timer can wait).
   *
   * @default {60000}
   */
  execTimeoutMs?: number;
  /**
   * Where the client's metrics go (see `@haptic/k8s-watcher/metrics`), under
   * client-go's names: `rest_client_requests_total` by code (`<error>` when
   * no answer came), method and host; `rest_client_request_duration_seconds`
   * of requests read whole (not watches), by verb and host; and
   * `rest_client_exec_plugin_call_total` by exit code and call status.
   */
  meter?: Meter;
}

/**
 * Where {@linkcode FetchClient.fromEnv} and friends look. Every field
 * defaults to the real environment; tests inject their own.
 *
 * @example Another context, with kubectl proxy as the last resort
 * ```ts
 * import type { FromEnvOptions } from "@haptic/k8s-watcher/client";
 *
 * const options: FromEnvOptions = { context: "kind-dev", kubectlProxy: true };
 * ```
 */
export interface FromEnvOptions extends Omit<FetchClientOptions, "source"> {
  /**
   * The service account directory.
   *
   * @default {"/var/run/secrets/kubernetes.io/serviceaccount"}
   */
  inClusterDir?: string;
  /**
   * Falls back to `kubectl proxy` (`true`: `http://127.0.0.1:8001`, or the
   * given URL) when no other source applies. Off by default: it cannot be
   * detected without a request.
   *
   * @default {false}
   */
  kubectlProxy?: boolean | string;
  /** The kubeconfig context to use instead of the current one. */
  context?: string;
  /**
   * Parses YAML kubeconfigs instead of the built-in reader, e.g. `parse`
   * from `@std/yaml`. The built-in reader covers what kubectl, cloud CLIs
   * and cluster tools write, and names the line and column of anything
   * else.
   */
  parseYaml?: (text: string) => unknown;
}

/**
 * A {@linkcode RestClient} over `fetch`, for Deno, Node (22.18 or later)
 * and Bun.
 *
 * Without TLS settings, requests go through the global `fetch`, looked up
 * at every request so tests can replace `globalThis.fetch`. A custom CA,
 * client certificate or proxy goes through `Deno.createHttpClient` on
 * Deno; a TLS server name or `insecureSkipTlsVerify` on Deno, and any TLS
 * setting on Node and Bun, through `node:https`.
 * {@linkcode FetchClient.close} releases them. TLS verification is on
 * unless `insecureSkipTlsVerify` is set. Bearer tokens travel only in the
 * `Authorization` header and never appear in an error message or log line.
 *
 * An exec credential plugin (`exec`) runs when the first request needs a
 * credential, again 30 s before the credential expires (halfway through a
 * shorter life), and once more after a 401; one run at a time, however
 * many requests wait.
 *
 * Errors: a non-2xx answer is an {@linkcode ApiError} (code, parsed
 * `Status`, `Retry-After`); a 2xx answer that is not the JSON expected is a
 * {@linkcode ResponseDecodeError}; no answer at all is an
 * {@linkcode ApiConnectionError}; an abort rejects with the signal's reason.
 *
 * @example Against a server that answers JSON
 * ```ts
 * import { FetchClient } from "@haptic/k8s-watcher";
 * import assert from "node:assert/strict";
 *
 * await using server = Deno.serve(
 *   { hostname: "127.0.0.1", port: 0, onListen() {} },
 *   (req) => Response.json({ kind: "PodList", items: [], path: new URL(req.url).pathname }),
 * );
 * using client = new FetchClient({ server: `http://127.0.0.1:${server.addr.port}` });
 * const list = await client.performRequest({
 *   method: "GET",
 *   path: "/api/v1/pods",
 *   querystring: new URLSearchParams({ limit: "500" }),
 *   expectJson: true,
 * });
 * assert.deepEqual(list, { kind: "PodList", items: [], path: "/api/v1/pods" });
 * assert.equal(client.defaultNamespace, "default");
 * ```
 */
export class FetchClient implements RestClient, Disposable {
  /** Where the configuration came from, e.g. `kubeconfig ... (context "x")`. */
  readonly source: string;
  /** The API server URL. */
  readonly server: string;
  /** The configured namespace, or `default`. */
  readonly defaultNamespace: string;
  /**
   * The meter of {@linkcode FetchClientOptions.meter}, where the client's
   * own metrics go and, unless they are given their own, those of every
   * watcher, elector and `DebounceGroup` built on the client (see
   * {@linkcode RestClient.meter}).
   *
   * @example One meter for the client and its watchers
   * ```ts
   * import { FetchClient, Watcher } from "@haptic/k8s-watcher";
   * import { MetricsRegistry } from "@haptic/k8s-watcher/metrics";
   * import { FakeApiServer, mockFetch } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * await using server = new FakeApiServer();
   * using _fetch = mockFetch(server);
   * const meter = new MetricsRegistry();
   * using client = new FetchClient({ server: server.url }, { meter });
   * assert.equal(client.meter, meter);
   * const watcher = new Watcher({
   *   gvr: { group: "", version: "v1", resource: "configmaps" },
   *   indexBy: ["metadata.name"],
   *   onChange: () => {},
   * }, client); // no meter here: the client's
   * watcher.start();
   * await watcher.waitForSync();
   * assert.match(meter.render(), /^k8s_watcher_synced\{.*\} 1$/m);
   * await watcher.stop();
   * ```
   */
  readonly meter: Meter | undefined;
  /**
   * `true`: {@linkcode FetchClient.performRequest} calls
   * `RequestOptions.onSent` when a request goes out, after its credentials
   * are ready (see {@linkcode RestClient.callsOnSent}).
   *
   * @example Timing an answer from the send
   * ```ts
   * import { FetchClient } from "@haptic/k8s-watcher";
   * import { FakeApiServer, mockFetch } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * await using server = new FakeApiServer();
   * using _fetch = mockFetch(server);
   * using client = new FetchClient({ server: server.url });
   * let sentAt: number | undefined;
   * assert.equal(client.callsOnSent, true);
   * await client.performRequest({
   *   method: "GET",
   *   path: "/version",
   *   onSent: () => sentAt = performance.now(),
   * });
   * assert.ok(sentAt !== undefined);
   * ```
   */
  readonly callsOnSent = true;
  /** Where requests go out and answers come back (`_request_sender.ts`). */
  #sender: RequestSender;

  /**
   * Creates a client from an explicit configuration.
   *
   * @example A server and a token, as from a secret store
   * ```ts
   * import { FetchClient } from "@haptic/k8s-watcher";
   * import assert from "node:assert/strict";
   *
   * using client = new FetchClient(
   *   { server: "https://10.96.0.1:443", token: "s3cr3t", namespace: "haptic" },
   *   { source: "vault" },
   * );
   * assert.equal(client.defaultNamespace, "haptic");
   * assert.equal(client.source, "vault");
   * ```
   *
   * @param config The server, credentials and TLS material.
   * @param options Clock, token refresh interval and source description.
   * @throws {KubeConfigError} When the server URL, token or PEM data is
   * unusable, a client certificate comes without its key, or
   * `execTimeoutMs` is not a positive number of milliseconds up to 2³¹−1.
   */
  constructor(config: FetchClientConfig, options?: FetchClientOptions) {
    if (options === undefined) options = {};
    checkNames("FetchClient config", {
      known: CONFIG_NAMES,
      value: config,
      type: "FetchClientConfig",
      place: "the config (the first argument)",
      short: "the config",
    }, {
      known: EXEC_NAMES,
      value: (config as { exec?: unknown } | null)?.exec,
      type: "ExecPluginConfig",
      prefix: "exec.",
    }, {
      known: OPTION_NAMES,
      value: options,
      type: "FetchClientOptions",
      place: "the second argument (FetchClientOptions)",
    });
    if (options.execTimeoutMs !== undefined) {
      const problem = durationProblem(options.execTimeoutMs);
      if (problem !== undefined) {
        throw new KubeConfigError(`execTimeoutMs ${problem}`);
      }
    }
    let metrics: ClientMetrics | undefined;
    if (options.meter !== undefined) {
      const problem = meterProblem(options.meter);
      if (problem !== undefined) {
        throw new KubeConfigError(`meter ${problem}`);
      }
      this.meter = options.meter;
      metrics = new ClientMetrics(
        options.meter,
        options.clock ?? systemClock,
        config.server,
      );
    }
    const base = serverBase(config.server);
    this.source = options.source ?? "explicit config";
    this.server = base;
    this.defaultNamespace = config.namespace || "default";
    let token: string | undefined;
    let tokenFile: TokenFile | undefined;
    if (config.token !== undefined) {
      token = checkToken(config.token, "the token setting");
    } else if (config.tokenFile) {
      tokenFile = new TokenFile(config.tokenFile, {
        clock: options.clock ?? systemClock,
        refreshMs: options.tokenRefreshMs ?? DEFAULT_TOKEN_REFRESH_MS,
      });
    }
    const { tls, ca, insecure } = tlsOf(config);
    const transport = createTransport(tls);
    let exec: ExecCredentialSource | undefined;
    if (config.exec) {
      if (config.exec.interactiveMode === "Always") {
        transport.close();
        throw new KubeConfigError(
          "The exec credential plugin needs interactiveMode Always, but FetchClient never runs a plugin on a terminal",
        );
      }
      exec = new ExecCredentialSource(config.exec, {
        clock: options.clock ?? systemClock,
        timeoutMs: options.execTimeoutMs ?? DEFAULT_EXEC_TIMEOUT_MS,
        env: options.env,
        onRun: metrics && ((call, ok) => metrics?.execRan(call, ok)),
        cluster: execCluster(config, base, insecure, ca),
      });
    }
    this.#sender = new RequestSender({
      base,
      token,
      tokenFile,
      exec,
      metrics,
      tls,
      transport,
    });
  }

  /**
   * Picks the first configuration source that applies, in this order:
   *
   * 1. `KUBECONFIG`: its files merged as kubectl merges them (the first
   *    file that names a cluster, context or user wins, and so does the
   *    first `current-context`; missing files are skipped);
   * 2. in-cluster: `KUBERNETES_SERVICE_HOST`/`_PORT` and the service
   *    account token, CA and namespace files;
   * 3. `~/.kube/config`;
   * 4. `kubectl proxy`, only when `kubectlProxy` is set.
   *
   * Kubeconfig files are read as JSON or YAML without kubectl (see
   * `parseYaml` to use another YAML parser). A source that exists but
   * cannot be used is skipped; its
   * reason is listed in the {@linkcode NoKubeConfigError} thrown when none
   * applies. The chosen one is described in `source`.
   *
   * @example Reading KUBECONFIG
   * ```ts
   * import { FetchClient } from "@haptic/k8s-watcher";
   * import assert from "node:assert/strict";
   *
   * const dir = await Deno.makeTempDir();
   * try {
   *   await Deno.writeTextFile(`${dir}/config.json`, JSON.stringify({
   *     "current-context": "dev",
   *     contexts: [{ name: "dev", context: { cluster: "c", user: "u", namespace: "web" } }],
   *     clusters: [{ name: "c", cluster: { server: "https://127.0.0.1:6443" } }],
   *     users: [{ name: "u", user: { token: "secret" } }],
   *   }));
   *   using client = FetchClient.fromEnv({ env: { KUBECONFIG: `${dir}/config.json` } });
   *   assert.equal(client.defaultNamespace, "web");
   *   assert.match(client.source, /context "dev"/);
   * } finally {
   *   await Deno.remove(dir, { recursive: true });
   * }
   * ```
   *
   * @param options Where to look (defaults: the real environment).
   * @returns A client for the first source that applies.
   * @throws {NoKubeConfigError} When none applies.
   */
  static fromEnv(options?: FromEnvOptions): FetchClient {
    if (options === undefined) options = {};
    checkFactoryOptions(options, FROM_ENV_NAMES, "FetchClient.fromEnv()");
    const { config, source } = detectConfig(options);
    return new FetchClient(config, { ...clientOptions(options), source });
  }

  /**
   * The client of a pod: `KUBERNETES_SERVICE_HOST`/`_PORT` and the service
   * account's token (re-read when it changes), CA and namespace.
   *
   * @example Outside a pod there is no in-cluster config
   * ```ts
   * import { FetchClient, KubeConfigError } from "@haptic/k8s-watcher";
   * import assert from "node:assert/strict";
   *
   * assert.throws(() => FetchClient.inCluster({ env: {} }), KubeConfigError);
   * ```
   *
   * @param options The environment and service account directory to read;
   * the clock, token refresh interval and meter, as for any client.
   * @returns The client.
   * @throws {KubeConfigError} When not running in a pod.
   */
  static inCluster(
    options?: Pick<
      FromEnvOptions,
      "env" | "inClusterDir" | "clock" | "tokenRefreshMs" | "meter"
    >,
  ): FetchClient {
    if (options === undefined) options = {};
    checkFactoryOptions(options, IN_CLUSTER_NAMES, "FetchClient.inCluster()");
    const { config, source } = inClusterConfig(
      envReader(options.env),
      options.inClusterDir ?? SERVICE_ACCOUNT_DIR,
    );
    return new FetchClient(config, { ...clientOptions(options), source });
  }

  /**
   * A client for one kubeconfig file, JSON or YAML, read without kubectl.
   * Supports `token`, `tokenFile`, exec credential plugins, client
   * certificates and keys (data or files), CA (data or file),
   * `tls-server-name`, `proxy-url`, `insecure-skip-tls-verify` and the
   * context namespace (the README lists what is refused, and why).
   *
   * @example A kubeconfig that is not there
   * ```ts
   * import { FetchClient, KubeConfigError } from "@haptic/k8s-watcher";
   * import assert from "node:assert/strict";
   *
   * assert.throws(() => FetchClient.fromKubeconfig("/nonexistent/config"), KubeConfigError);
   * ```
   *
   * @param path The kubeconfig file.
   * @param options Context, YAML parser, environment for exec plugins.
   * @returns The client.
   * @throws {KubeConfigError} When the file cannot be used.
   */
  static fromKubeconfig(
    path: string,
    options?: Omit<FromEnvOptions, "inClusterDir" | "kubectlProxy">,
  ): FetchClient {
    if (options === undefined) options = {};
    checkFactoryOptions(
      options,
      KUBECONFIG_NAMES,
      "FetchClient.fromKubeconfig()",
    );
    const { config, source } = configFromKubeconfig(
      loadKubeconfig([path], options.parseYaml),
      options.context,
    );
    return new FetchClient(config, { ...clientOptions(options), source });
  }

  /**
   * A client for the configuration kubectl itself would use, from
   * `kubectl config view --raw --minify --flatten -o json`.
   *
   * @example A kubectl that is not there
   * ```ts
   * import { FetchClient, KubeConfigError } from "@haptic/k8s-watcher";
   * import assert from "node:assert/strict";
   *
   * assert.throws(
   *   () => FetchClient.fromKubectl({ kubectl: "/nonexistent/kubectl" }),
   *   KubeConfigError,
   * );
   * ```
   *
   * @param options Context, kubectl command and environment.
   * @returns The client.
   * @throws {KubeConfigError} When kubectl is missing, fails, or its
   * configuration cannot be used.
   */
  static fromKubectl(
    options?:
      & Omit<FromEnvOptions, "inClusterDir" | "kubectlProxy" | "parseYaml">
      & {
        /**
         * The kubectl command, looked up on `PATH` unless it has a `/`.
         *
         * @default {"kubectl"}
         */
        kubectl?: string;
      },
  ): FetchClient {
    if (options === undefined) options = {};
    checkFactoryOptions(options, KUBECTL_NAMES, "FetchClient.fromKubectl()");
    const { config, source } = kubectlConfigView(
      { command: options.kubectl ?? "kubectl", env: options.env },
      {
        baseDir: kubeDir(envReader(options.env)) ?? dirname("."),
        context: options.context,
      },
    );
    return new FetchClient(config, { ...clientOptions(options), source });
  }

  /**
   * A client for `kubectl proxy`, which adds the credentials itself.
   *
   * @example Talking to kubectl proxy
   * ```ts
   * import { FetchClient } from "@haptic/k8s-watcher";
   * import assert from "node:assert/strict";
   *
   * using client = FetchClient.kubectlProxy();
   * assert.equal(client.server, "http://127.0.0.1:8001");
   * ```
   *
   * @example Another port, with the client's metrics
   * ```ts
   * import { FetchClient } from "@haptic/k8s-watcher";
   * import { MetricsRegistry } from "@haptic/k8s-watcher/metrics";
   * import assert from "node:assert/strict";
   *
   * const registry = new MetricsRegistry();
   * using client = FetchClient.kubectlProxy("http://127.0.0.1:8002", { meter: registry });
   * assert.equal(client.source, "kubectl proxy at http://127.0.0.1:8002");
   * ```
   *
   * @param url The proxy address (default `http://127.0.0.1:8001`).
   * @param options The meter for the client's metrics and the clock that
   * times its requests.
   * @returns The client.
   * @throws {KubeConfigError} When the URL is unusable, `options` has a
   * name it does not take, or `meter` is not a meter.
   */
  static kubectlProxy(
    url?: string,
    options?: Pick<FromEnvOptions, "clock" | "meter">,
  ): FetchClient {
    if (url === undefined) url = KUBECTL_PROXY_URL;
    if (options === undefined) options = {};
    checkFactoryOptions(
      options,
      KUBECTL_PROXY_NAMES,
      "FetchClient.kubectlProxy()",
    );
    return new FetchClient({ server: url }, {
      ...clientOptions(options),
      source: `kubectl proxy at ${url}`,
    });
  }

  /**
   * Sends one request; with `expectStream` and `expectJson` together (beyond
   * {@linkcode RestClient}), a stream of parsed JSON lines. Every parameter
   * goes in `querystring`.
   *
   * @example A watch as parsed lines
   * ```ts
   * import { FetchClient } from "@haptic/k8s-watcher";
   * import { FakeApiServer, mockFetch } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * await using server = new FakeApiServer();
   * using _fetch = mockFetch(server);
   * using client = new FetchClient({ server: server.url });
   * const controller = new AbortController();
   * const lines = await client.performRequest({
   *   method: "GET",
   *   path: "/api/v1/namespaces/shop/configmaps",
   *   querystring: new URLSearchParams({ watch: "true" }),
   *   expectStream: true,
   *   expectJson: true,
   *   abortSignal: controller.signal,
   * });
   * server.create("configmaps", { metadata: { name: "a", namespace: "shop" } });
   * const reader = lines.getReader();
   * const { value } = await reader.read();
   * assert.equal((value as { type: string }).type, "ADDED");
   * await reader.cancel();
   * ```
   *
   * @param opts The request; `expectStream` gives the body as a byte stream
   * (aborting `abortSignal` cancels it), `expectJson` the parsed body, and
   * both together a stream of parsed lines. `accept` is sent as the
   * `Accept` header in all three cases (default: `application/json` with
   * `expectJson`, none otherwise).
   * @returns The answer, as asked for.
   */
  performRequest(
    opts: RequestOptions & { expectStream: true; expectJson: true },
  ): Promise<ReadableStream<JsonValue>>;
  /** Sends one request; a stream of bytes: {@linkcode RestClient.performRequest}. */
  performRequest(
    opts: RequestOptions & { expectStream: true; expectJson?: false },
  ): Promise<ReadableStream<Uint8Array>>;
  /** Sends one request; the body parsed as JSON: {@linkcode RestClient.performRequest}. */
  performRequest(
    opts: RequestOptions & { expectJson: true; expectStream?: false },
  ): Promise<JsonValue>;
  /** Sends one request; the raw body: {@linkcode RestClient.performRequest}. */
  performRequest(opts: RequestOptions): Promise<Uint8Array>;
  performRequest(opts: RequestOptions): Promise<unknown> {
    return this.#sender.send(opts);
  }

  /**
   * Releases the TLS clients and stops a running exec plugin. Requests
   * made afterwards fail; streams already returned may end. Idempotent.
   *
   * @example Closing a client
   * ```ts
   * import { FetchClient } from "@haptic/k8s-watcher";
   *
   * const client = FetchClient.kubectlProxy();
   * client.close();
   * ```
   */
  close(): void {
    this.#sender.close();
  }

  /**
   * Same as {@linkcode FetchClient.close}, for `using`.
   *
   * @example Closed at the end of a block
   * ```ts
   * import { FetchClient } from "@haptic/k8s-watcher";
   *
   * {
   *   using client = FetchClient.kubectlProxy();
   *   console.log(client.server);
   * } // closed here
   * ```
   */
  [Symbol.dispose](): void {
    this.close();
  }
}

// The names each options object takes: records over the interfaces' keys,
// so a field added to an interface and not here does not compile.
const CONFIG_NAMES: Record<keyof FetchClientConfig, true> = {
  server: true,
  token: true,
  tokenFile: true,
  caData: true,
  certData: true,
  keyData: true,
  insecureSkipTlsVerify: true,
  namespace: true,
  tlsServerName: true,
  proxyUrl: true,
  exec: true,
};
const EXEC_NAMES: Record<keyof ExecPluginConfig, true> = {
  apiVersion: true,
  command: true,
  args: true,
  env: true,
  installHint: true,
  provideClusterInfo: true,
  clusterConfig: true,
  interactiveMode: true,
};
const OPTION_NAMES: Record<keyof FetchClientOptions, true> = {
  clock: true,
  tokenRefreshMs: true,
  source: true,
  env: true,
  execTimeoutMs: true,
  meter: true,
};
const FROM_ENV_NAMES: Record<keyof FromEnvOptions, true> = {
  clock: true,
  tokenRefreshMs: true,
  env: true,
  execTimeoutMs: true,
  inClusterDir: true,
  kubectlProxy: true,
  context: true,
  parseYaml: true,
  meter: true,
};
const IN_CLUSTER_NAMES: Record<
  keyof NonNullable<Parameters<typeof FetchClient.inCluster>[0]>,
  true
> = {
  env: true,
  inClusterDir: true,
  clock: true,
  tokenRefreshMs: true,
  meter: true,
};
const KUBECONFIG_NAMES: Record<
  keyof NonNullable<Parameters<typeof FetchClient.fromKubeconfig>[1]>,
  true
> = {
  clock: true,
  tokenRefreshMs: true,
  env: true,
  execTimeoutMs: true,
  context: true,
  parseYaml: true,
  meter: true,
};
const KUBECTL_PROXY_NAMES: Record<
  keyof NonNullable<Parameters<typeof FetchClient.kubectlProxy>[1]>,
  true
> = { clock: true, meter: true };
const KUBECTL_NAMES: Record<
  keyof NonNullable<Parameters<typeof FetchClient.fromKubectl>[0]>,
  true
> = {
  clock: true,
  tokenRefreshMs: true,
  env: true,
  execTimeoutMs: true,
  context: true,
  kubectl: true,
  meter: true,
};

/** Refuses unknown names, as every options object does (`_option_checks.ts`). */
function checkNames(what: string, ...args: OptionArgument[]): void {
  const problem = optionNamesProblem(...args);
  if (problem) throw new KubeConfigError(invalidOptionsMessage(what, problem));
}

function checkFactoryOptions(
  options: object,
  known: Readonly<Record<string, true>>,
  type: string,
): void {
  checkNames("FetchClient options", { known, value: options, type });
}

/** What a factory's options hand on to the constructor. */
function clientOptions(options: Omit<FetchClientOptions, "source">): Omit<
  FetchClientOptions,
  "source"
> {
  const { clock, tokenRefreshMs, env, execTimeoutMs, meter } = options;
  return { clock, tokenRefreshMs, env, execTimeoutMs, meter };
}

/** The server URL checked, without its trailing slashes. */
function serverBase(server: string): string {
  let url: URL;
  try {
    url = new URL(server);
  } catch {
    throw new KubeConfigError(
      `The server URL ${JSON.stringify(server)} is not a valid URL`,
    );
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new KubeConfigError(
      `The server URL ${
        JSON.stringify(server)
      } must start with https:// or http://`,
    );
  }
  if (url.username || url.password || url.search || url.hash) {
    throw new KubeConfigError(
      "The server URL must not contain credentials, a query or a fragment",
    );
  }
  return url.href.replace(/\/+$/, "");
}

/** The TLS settings of `config` (an insecure flag drops the CA). */
function tlsOf(
  config: FetchClientConfig,
): { tls: TlsSettings; ca: string | undefined; insecure: boolean } {
  if (config.certData && !config.keyData) {
    throw new KubeConfigError("A client certificate is set without its key");
  }
  if (config.keyData && !config.certData) {
    throw new KubeConfigError("A client key is set without its certificate");
  }
  const insecure = config.insecureSkipTlsVerify === true;
  // kubectl refuses a CA together with insecure-skip-tls-verify; the flag
  // wins here, as the CA could not make an unverifiable server pass.
  const ca = config.caData && !insecure
    ? pemFrom(config.caData, "caData")
    : undefined;
  const tls: TlsSettings = {
    ...(ca ? { ca } : {}),
    ...(config.certData && config.keyData
      ? {
        cert: pemFrom(config.certData, "certData"),
        key: pemFrom(config.keyData, "keyData"),
      }
      : {}),
    ...(config.tlsServerName ? { serverName: config.tlsServerName } : {}),
    ...(config.proxyUrl ? { proxyUrl: config.proxyUrl } : {}),
    ...(insecure ? { insecure } : {}),
  };
  return { tls, ca, insecure };
}

/** The cluster an exec plugin is told of (`KUBERNETES_EXEC_INFO`). */
function execCluster(
  config: FetchClientConfig,
  base: string,
  insecure: boolean,
  ca: string | undefined,
): Record<string, unknown> {
  return {
    server: base,
    ...(config.tlsServerName
      ? { "tls-server-name": config.tlsServerName }
      : {}),
    ...(insecure ? { "insecure-skip-tls-verify": true } : {}),
    ...(ca ? { "certificate-authority-data": btoa(ca) } : {}),
    ...(config.proxyUrl ? { "proxy-url": config.proxyUrl } : {}),
    ...(config.exec?.clusterConfig !== undefined
      ? { config: config.exec.clusterConfig }
      : {}),
  };
}
