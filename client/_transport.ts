/**
 * How requests leave the process. Without TLS settings: the global `fetch`
 * (looked up at every request, so tests can replace it). On Deno with a CA,
 * client certificate or proxy: `fetch` with a `Deno.createHttpClient`. For
 * what Deno's client cannot do (a TLS server name, skipping verification)
 * and for any TLS setting on Node and Bun: `node:https`, with HTTP CONNECT
 * for a proxy.
 */
import type * as NodeHttp from "node:http";
import type * as NodeHttps from "node:https";
import type * as NodeNet from "node:net";
import type * as NodeStream from "node:stream";
import type * as NodeTls from "node:tls";
import { KubeConfigError } from "./errors.ts";
import { runtimeName } from "./_runtime.ts";
import { nodeBuiltin } from "../_internal/_node_builtin.ts";

/** TLS and proxy settings of one client. */
export interface TlsSettings {
  /** PEM CA certificates. */
  ca?: string;
  /** PEM client certificate (with `key`). */
  cert?: string;
  /** PEM client key. */
  key?: string;
  /** The name to verify the server certificate against (and send as SNI). */
  serverName?: string;
  /** An `http://` proxy reached with CONNECT (Deno also takes https and socks5). */
  proxyUrl?: string;
  /** Accept any server certificate. */
  insecure?: boolean;
}

/** What a request needs besides its URL. */
export interface TransportInit {
  method: string;
  headers: Headers;
  body?: string | Uint8Array | ReadableStream<Uint8Array>;
  signal?: AbortSignal;
}

/** Sends requests with one set of TLS settings. */
export interface Transport {
  /** `deno`, `node` or `fetch` (the global fetch, untouched). */
  readonly kind: "fetch" | "deno" | "node";
  fetch(url: string, init: TransportInit): Promise<Response>;
  /**
   * Which pool a request sent now goes to: it changes at each `retire`.
   */
  readonly pool: number;
  /**
   * A request sent to `pool` timed out: the connections of that pool take
   * no new request. Requests in flight on them go on (each has its own
   * timers), and a connection closes once its last one ends. Without this,
   * a half-open HTTP/2 connection takes every retry as one more stream and
   * no request of the client is answered again. A pool already retired is
   * left alone, so the timeouts of several requests on one dead connection
   * retire it once, and not the fresh pool their retries went to.
   */
  retire(pool: number): void;
  close(): void;
}

/**
 * Whether this runtime's own `fetch` can honour `settings`, or `node:https`
 * is needed.
 */
function needsNode(settings: TlsSettings): boolean {
  if (runtimeName !== "deno") return true;
  return settings.serverName !== undefined || settings.insecure === true;
}

/** The transport for `settings`. */
export function createTransport(settings: TlsSettings): Transport {
  const { ca, cert, serverName, proxyUrl, insecure } = settings;
  if (!ca && !cert && !serverName && !proxyUrl && !insecure) {
    return globalFetch();
  }
  if (proxyUrl) checkProxyUrl(proxyUrl, needsNode(settings));
  return needsNode(settings)
    ? new NodeTransport(settings)
    : denoTransport(settings);
}

function checkProxyUrl(proxyUrl: string, node: boolean): void {
  let url: URL;
  try {
    url = new URL(proxyUrl);
  } catch {
    throw new KubeConfigError("The proxy URL is not a valid URL");
  }
  const allowed = node ? ["http:"] : ["http:", "https:", "socks5:", "socks5h:"];
  if (!allowed.includes(url.protocol)) {
    throw new KubeConfigError(
      `The proxy URL scheme ${url.protocol} is not supported here; use ${
        allowed.map((p) => `${p}//`).join(", ")
      }`,
    );
  }
}

function denoTransport(settings: TlsSettings): Transport {
  let proxy: Deno.Proxy | undefined;
  if (settings.proxyUrl) {
    const url = new URL(settings.proxyUrl);
    const basicAuth = url.username
      ? {
        username: decodeURIComponent(url.username),
        password: decodeURIComponent(url.password),
      }
      : undefined;
    const transport = url.protocol.startsWith("socks5")
      ? "socks5"
      : url.protocol === "https:"
      ? "https"
      : "http";
    url.username = "";
    url.password = "";
    proxy = { transport, url: url.href, basicAuth };
  }
  const options: Deno.CreateHttpClientOptions = {
    ...(settings.ca ? { caCerts: [settings.ca] } : {}),
    ...(settings.cert && settings.key
      ? { cert: settings.cert, key: settings.key }
      : {}),
    ...(proxy ? { proxy } : {}),
  };
  try {
    return globalFetch(() => Deno.createHttpClient(options), true);
  } catch (error) {
    throw unusableTls(error);
  }
}

/**
 * The global `fetch`, with a Deno `client` from `makeClient` when there is
 * one: made at once with `eager` (TLS settings), else at the first
 * `retire()`, so that a client without TLS settings holds no resource until
 * a request of it timed out. Retiring closes the client in use, which stops
 * its pool from taking new requests and leaves its streams running (Deno
 * closes a connection when its last stream ends), and the next request gets
 * a new one.
 */
function globalFetch(
  makeClient?: () => Deno.HttpClient,
  eager = false,
): Transport {
  let client = eager ? makeClient?.() : undefined;
  const canRetire = makeClient !== undefined ||
    (runtimeName === "deno" && typeof Deno.createHttpClient === "function");
  const make = makeClient ?? (() => Deno.createHttpClient({}));
  let retired = false;
  let pool = 0;
  return {
    kind: eager ? "deno" : "fetch",
    get pool() {
      return pool;
    },
    fetch: (url, init) => {
      if (retired) {
        retired = false;
        client = make();
      }
      return globalThis.fetch(url, {
        ...init,
        body: init.body as BodyInit | undefined,
        // A redirect could carry the token elsewhere; the API never sends one.
        redirect: "manual",
        ...(client ? { client } : {}),
      });
    },
    retire: (of) => {
      // Node's and Bun's fetch close an aborted request's connection, and
      // their pools are not ours to empty.
      if (!canRetire || of !== pool) return;
      pool++;
      client?.close();
      client = undefined;
      retired = true;
    },
    close: () => {
      client?.close();
      client = undefined;
      retired = false;
    },
  };
}

function unusableTls(error: unknown): KubeConfigError {
  return new KubeConfigError(
    `The TLS certificates or key are not usable: ${
      error instanceof Error ? error.message : "unknown error"
    }`,
  );
}

interface NodeModules {
  http: typeof NodeHttp;
  https: typeof NodeHttps;
  tls: typeof NodeTls;
  net: typeof NodeNet;
  stream: typeof NodeStream;
}

/** Requests through `node:https` (or `node:http`), one agent per client. */
class NodeTransport implements Transport {
  readonly kind = "node";
  #settings: TlsSettings;
  #modules: NodeModules;
  #tls: NodeTls.ConnectionOptions;
  #agent: NodeHttps.Agent;
  /** Agents retired with sockets still in use (closed with the client). */
  #retired = new Set<NodeHttps.Agent>();
  #pool = 0;
  #sockets = new Set<NodeNet.Socket>();

  constructor(settings: TlsSettings) {
    this.#settings = settings;
    this.#modules = {
      http: nodeBuiltin("node:http"),
      https: nodeBuiltin("node:https"),
      tls: nodeBuiltin("node:tls"),
      net: nodeBuiltin("node:net"),
      stream: nodeBuiltin("node:stream"),
    };
    this.#tls = {
      ...(settings.ca ? { ca: settings.ca } : {}),
      ...(settings.cert && settings.key
        ? { cert: settings.cert, key: settings.key }
        : {}),
      ...(settings.serverName ? { servername: settings.serverName } : {}),
      rejectUnauthorized: settings.insecure !== true,
    };
    try {
      this.#modules.tls.createSecureContext(this.#tls);
    } catch (error) {
      throw unusableTls(error);
    }
    this.#agent = this.#newAgent();
  }

  #newAgent(): NodeHttps.Agent {
    return new this.#modules.https.Agent({ ...this.#tls, keepAlive: true });
  }

  get pool(): number {
    return this.#pool;
  }

  retire(pool: number): void {
    if (pool !== this.#pool) return;
    this.#pool++;
    const old = this.#agent;
    this.#agent = this.#newAgent();
    // Idle sockets could be as dead as the one that timed out; sockets in
    // use close when their request is done instead of going back idle.
    old.on("free", (socket: NodeNet.Socket) => socket.destroy());
    for (const sockets of Object.values(old.freeSockets)) {
      for (const socket of sockets ?? []) socket.destroy();
    }
    this.#retired.add(old);
    for (const agent of this.#retired) {
      if (Object.keys(agent.sockets).length === 0) {
        agent.destroy();
        this.#retired.delete(agent);
      }
    }
  }

  async fetch(url: string, init: TransportInit): Promise<Response> {
    init.signal?.throwIfAborted();
    const target = new URL(url);
    const secure = target.protocol === "https:";
    const host = target.hostname.replace(/^\[(.*)\]$/, "$1");
    const port = Number(target.port) || (secure ? 443 : 80);
    const headers: Record<string, string> = {};
    init.headers.forEach((value, name) => headers[name] = value);
    const options: NodeHttps.RequestOptions = {
      method: init.method,
      host,
      port,
      path: target.pathname + target.search,
      headers,
    };
    const proxy = this.#settings.proxyUrl
      ? new URL(this.#settings.proxyUrl)
      : undefined;
    if (proxy && secure) {
      const tunnel = await this.#connect(proxy, host, port, init.signal);
      const servername = this.#settings.serverName ??
        (this.#modules.net.isIP(host) ? undefined : host);
      const socket = this.#modules.tls.connect({
        ...this.#tls,
        socket: tunnel,
        host,
        ...(servername ? { servername } : {}),
      });
      this.#track(socket);
      // No agent: with one, Node would open its own connection instead.
      options.createConnection = () => socket;
    } else if (proxy) {
      // A plain HTTP request goes to the proxy with the absolute URL.
      options.host = proxy.hostname;
      options.port = Number(proxy.port) || 80;
      options.path = target.href;
      const auth = proxyAuthorization(proxy);
      if (auth) headers["proxy-authorization"] = auth;
      options.agent = false;
    } else if (secure) {
      options.agent = this.#agent;
    }
    const module = secure ? this.#modules.https : this.#modules.http;
    return await new Promise<Response>((resolve, reject) => {
      const request = module.request(options, (response) => {
        resolve(this.#toResponse(response, init.method));
      });
      const onAbort = () => request.destroy(init.signal!.reason);
      init.signal?.addEventListener("abort", onAbort, { once: true });
      request.on("close", () => {
        init.signal?.removeEventListener("abort", onAbort);
      });
      request.on("error", reject);
      this.#send(request, init.body).catch((error) => request.destroy(error));
    });
  }

  async #send(
    request: NodeHttp.ClientRequest,
    body: TransportInit["body"],
  ): Promise<void> {
    if (body === undefined) return void request.end();
    if (!(body instanceof ReadableStream)) return void request.end(body);
    const reader = body.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        request.write(value);
      }
      request.end();
    } finally {
      reader.releaseLock();
    }
  }

  #toResponse(response: NodeHttp.IncomingMessage, method: string): Response {
    const headers = new Headers();
    for (const [name, value] of Object.entries(response.headers)) {
      if (Array.isArray(value)) {
        for (const item of value) headers.append(name, item);
      } else if (value !== undefined) headers.set(name, value);
    }
    const status = response.statusCode ?? 0;
    const noBody = method === "HEAD" || status === 204 || status === 304 ||
      (status >= 100 && status < 200);
    if (noBody) response.resume();
    const body = noBody
      ? null
      : this.#modules.stream.Readable.toWeb(response) as ReadableStream<
        Uint8Array
      >;
    return new Response(body, {
      status,
      statusText: response.statusMessage,
      headers,
    });
  }

  /** An HTTP CONNECT tunnel to `host:port` through the proxy. */
  #connect(
    proxy: URL,
    host: string,
    port: number,
    signal: AbortSignal | undefined,
  ): Promise<NodeNet.Socket> {
    const authority = `${host.includes(":") ? `[${host}]` : host}:${port}`;
    const headers: Record<string, string> = { host: authority };
    const auth = proxyAuthorization(proxy);
    if (auth) headers["proxy-authorization"] = auth;
    return new Promise((resolve, reject) => {
      const request = this.#modules.http.request({
        host: proxy.hostname.replace(/^\[(.*)\]$/, "$1"),
        port: Number(proxy.port) || 80,
        method: "CONNECT",
        path: authority,
        headers,
        agent: false,
        signal,
      });
      request.on("connect", (response, socket) => {
        if (response.statusCode === 200) {
          this.#track(socket);
          resolve(socket);
          return;
        }
        socket.destroy();
        reject(
          new Error(
            `the proxy ${proxy.host} answered ${response.statusCode} to CONNECT ${authority}`,
          ),
        );
      });
      request.on("error", reject);
      request.end();
    });
  }

  #track(socket: NodeNet.Socket): void {
    this.#sockets.add(socket);
    socket.on("close", () => this.#sockets.delete(socket));
  }

  close(): void {
    this.#agent.destroy();
    for (const agent of this.#retired) agent.destroy();
    this.#retired.clear();
    for (const socket of this.#sockets) socket.destroy();
    this.#sockets.clear();
  }
}

function proxyAuthorization(proxy: URL): string | undefined {
  if (!proxy.username) return undefined;
  const user = decodeURIComponent(proxy.username);
  const password = decodeURIComponent(proxy.password);
  const bytes = new TextEncoder().encode(`${user}:${password}`);
  return `Basic ${btoa(String.fromCharCode(...bytes))}`;
}
