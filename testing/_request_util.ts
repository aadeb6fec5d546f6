import type { Clock } from "../clock.ts";
import { buildFilter, type ObjectFilter } from "./_object_filter.ts";
import type { ResourceRegistry } from "./_registry.ts";
import { badRequest, type StatusCause } from "./_status.ts";
import type { ReactorChain } from "./_reactors.ts";
import type { ObjectStore } from "./_store.ts";
import { TABLE_CONTENT_TYPE } from "./kubectl/_table.ts";
import type { WatchHub } from "./_watch.ts";
import { FakeApiError } from "./fake_api_error.ts";
import type { RequestRecord } from "./request_record.ts";
import type { ResourceInfo } from "./resources.ts";
import { shardFilterOf, type ShardSelection } from "./_shard_selector.ts";

/** The server state the HTTP layer works on. */
export interface ServerCore {
  readonly registry: ResourceRegistry;
  readonly store: ObjectStore;
  readonly hub: WatchHub;
  readonly reactors: ReactorChain;
  readonly clock: Clock;
  readonly bookmarkIntervalMs: number;
  readonly supportsWatchList: boolean;
  /** Whether LIST and WATCH apply `shardSelector` (KEP-5866's gate). */
  readonly shardedListAndWatch: boolean;
  /** The bearer token every request must carry, if any. */
  readonly token: string | undefined;
  continueEpoch: number;
  readonly requests: RequestRecord[];
  /** Answers whose body never comes (`hold()`), closed with the server. */
  readonly stalls: Set<{ close(): void }>;
}

/** How a request's streams end besides the reader cancelling. */
export interface StreamSignals {
  /** Aborting errors the answer's stream, as a client abort errors a fetch body. */
  signal?: AbortSignal;
  /** Aborting closes the answer's stream cleanly (server shutdown). */
  closeSignal?: AbortSignal;
}

export type Route =
  | { type: "discovery"; body: unknown }
  | { type: "health" }
  | {
    type: "resource";
    info: ResourceInfo;
    namespace: string | undefined;
    name: string | undefined;
    subresource: string | undefined;
  }
  | { type: "unknown" };

/** A request for a resource (collection, object or subresource). */
export type ResourceRoute = Extract<Route, { type: "resource" }>;

export const JSON_HEADERS = { "content-type": "application/json" };

/** The spellings Go's strconv.ParseBool takes as true. */
export const TRUE = new Set(["1", "t", "T", "true", "TRUE", "True"]);

export function filterOf(
  info: ResourceInfo,
  q: URLSearchParams,
  core?: ServerCore,
): ObjectFilter {
  const filter = buildFilter(
    info,
    q.get("labelSelector"),
    q.get("fieldSelector"),
  );
  const shard = shardOf(core, q);
  if (shard === undefined) return filter;
  return {
    everything: false,
    matches: (obj) => shard.matches(obj) && filter.matches(obj),
  };
}

/**
 * The request's `shardSelector` when the fake serves it
 * (`shardedListAndWatch`); a server without the gate ignores it.
 */
export function shardOf(
  core: ServerCore | undefined,
  q: URLSearchParams,
): ShardSelection | undefined {
  if (core?.shardedListAndWatch !== true) return undefined;
  return shardFilterOf(q.get("shardSelector"));
}

export function forbidden(
  field: string,
  detail: string,
): Required<StatusCause> {
  return {
    reason: "FieldValueForbidden",
    field,
    message: `Forbidden: ${detail}`,
  };
}

export async function readJson(request: Request): Promise<unknown> {
  const text = await request.text();
  try {
    return JSON.parse(text);
  } catch {
    throw new FakeApiError(badRequest(
      `the body of the request was in an unknown format - accepted media types include: application/json (body starts with ${
        JSON.stringify(text.slice(0, 80))
      })`,
    ));
  }
}

export function resourceVersionParam(q: URLSearchParams): number | undefined {
  const raw = q.get("resourceVersion") ?? "";
  if (raw === "" || raw === "0") return undefined;
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(Number(raw))) {
    throw new FakeApiError(
      badRequest(`invalid resource version: ${JSON.stringify(raw)}`),
    );
  }
  return Number(raw);
}

export function nonNegativeInt(
  q: URLSearchParams,
  name: string,
): number | undefined {
  const raw = q.get(name);
  if (raw === null || raw === "") return undefined;
  if (!/^\d+$/.test(raw)) {
    throw new FakeApiError(
      badRequest(
        `${name} must be a non-negative integer, got ${JSON.stringify(raw)}`,
      ),
    );
  }
  return Number(raw);
}

/**
 * An integer query parameter as Go's `strconv.ParseInt` reads it (a sign,
 * then digits, within int64), or undefined when absent; anything else is
 * 400.
 */
export function integerParam(
  q: URLSearchParams,
  name: string,
): number | undefined {
  const raw = q.get(name);
  if (raw === null || raw === "") return undefined;
  if (!/^[+-]?\d+$/.test(raw) || !inInt64(BigInt(raw))) {
    throw new FakeApiError(
      badRequest(`${name} must be an integer, got ${JSON.stringify(raw)}`),
    );
  }
  return Number(raw);
}

function inInt64(value: bigint): boolean {
  return value >= -(2n ** 63n) && value < 2n ** 63n;
}

export function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: JSON_HEADERS });
}

export function tableResponse(body: unknown): Response {
  return new Response(JSON.stringify(body), {
    headers: { "content-type": TABLE_CONTENT_TYPE },
  });
}
