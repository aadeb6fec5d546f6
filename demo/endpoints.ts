import { healthHandler, type HealthHandlerOptions } from "../health/mod.ts";
import { FetchClient } from "../client/mod.ts";
import { silentLogger } from "../logger.ts";
import { MetricsRegistry } from "../metrics/mod.ts";
import type { Printer } from "./output.ts";

/** The address the endpoints bind without `--metrics-host`. */
export const DEFAULT_METRICS_HOST = "127.0.0.1";

/** The demo's health and metrics server, or nothing without `--metrics-port`. */
export interface Endpoints extends AsyncDisposable {
  /** `http://<host>:<port>`, or `undefined` when none is served. */
  readonly url: string | undefined;
}

/** Where to serve: `--metrics-host` and `--metrics-port` (or a replica's). */
export interface EndpointsAddress {
  /** The address to bind (`undefined`: {@linkcode DEFAULT_METRICS_HOST}). */
  host: string | undefined;
  /** The port (0: a free one), or `undefined` to serve nothing. */
  port: number | undefined;
}

/** The endpoints could not be served there; the message says why. */
export class EndpointsError extends Error {
  constructor(host: string, port: number, cause: unknown) {
    super(
      `Cannot serve health and metrics on ${hostPort(host, port)}: ${
        reasonOf(cause)
      }`,
      { cause },
    );
    this.name = "EndpointsError";
  }
}

/** A replica's client and the options its parts share. */
export interface ReplicaConnection {
  readonly client: FetchClient;
  /** Its own registry while `--metrics-port` serves one. */
  readonly meter: MetricsRegistry | undefined;
  readonly options: { logger: typeof silentLogger; meter?: MetricsRegistry };
}

/**
 * A replica's client of the simulated cluster at `server`: a replica is a
 * process of its own, so it has its own registry when metrics are served.
 */
export function replicaConnection(
  name: string,
  server: string,
  metricsPort: number | undefined,
): ReplicaConnection {
  const meter = metricsPort === undefined ? undefined : new MetricsRegistry();
  const client = new FetchClient({ server }, { source: name, meter });
  return { client, meter, options: { logger: silentLogger, meter } };
}

/**
 * The port of replica `index` (from 0) under `--metrics-port port`: one
 * after another from `port`, so a replica's number says where it is; with
 * 0, a free port each.
 */
export function replicaPort(
  port: number | undefined,
  index: number,
): number | undefined {
  return port === undefined || port === 0 ? port : port + index;
}

/**
 * Serves `/healthz`, `/readyz` and `/metrics` at `address` and prints the
 * URL (after `who`, when several serve); nothing without a port.
 *
 * @throws {EndpointsError} When the address cannot be bound (a port in
 * use, an address not on this machine).
 */
export function serveEndpoints(
  address: EndpointsAddress,
  options: HealthHandlerOptions,
  printer: Printer,
  who?: string,
): Endpoints {
  const { port } = address;
  if (port === undefined) {
    return { url: undefined, [Symbol.asyncDispose]: () => Promise.resolve() };
  }
  const host = address.host ?? DEFAULT_METRICS_HOST;
  let server: Deno.HttpServer<Deno.NetAddr>;
  try {
    server = Deno.serve(
      { hostname: host, port, onListen: () => {} },
      healthHandler(options),
    );
  } catch (error) {
    throw new EndpointsError(host, port, error);
  }
  const url = `http://${hostPort(server.addr.hostname, server.addr.port)}`;
  printer.line(
    "serve",
    `${
      who ? `${who} ` : ""
    }health and metrics at ${url}: /healthz /readyz /metrics`,
  );
  let closed: Promise<void> | undefined;
  return {
    url,
    [Symbol.asyncDispose]: () => closed ??= server.shutdown(),
  };
}

/** `host:port`, an IPv6 address in brackets as URLs write it. */
function hostPort(host: string, port: number): string {
  return host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
}

function reasonOf(error: unknown): string {
  if (error instanceof Deno.errors.AddrInUse) return "the address is in use";
  if (error instanceof Deno.errors.AddrNotAvailable) {
    return "the address is not one of this machine's";
  }
  return error instanceof Error ? error.message : String(error);
}
