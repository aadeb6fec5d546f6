import type { Clock } from "../clock.ts";
import type { KubeObject } from "../types.ts";
import { decodeContinue, encodeContinue } from "./_continue_token.ts";
import { discovery } from "./_discovery.ts";
import type { FaultBook, RequestVerb } from "./_faults.ts";
import { applyJsonPatch, isJsonObject, JsonPatchError } from "./_json.ts";
import { buildFilter, type ObjectFilter } from "./_object_filter.ts";
import type { ResourceRegistry } from "./_registry.ts";
import {
  badRequest,
  continueExpired,
  failure,
  invalid,
  methodNotAllowed,
  reasonForCode,
  resourceNotFound,
  type StatusCause,
  statusResponse,
  tooLarge,
  tooOld,
} from "./_status.ts";
import type { ObjectStore } from "./_store.ts";
import {
  includeObjectParam,
  TABLE_CONTENT_TYPE,
  toTable,
  wantsTable,
} from "./_table.ts";
import { INITIAL_EVENTS_END, ServerWatch, type WatchHub } from "./_watch.ts";
import { FakeApiError } from "./fake_api_error.ts";
import type { FaultAction } from "./faults.ts";
import type { RequestRecord } from "./request_record.ts";
import type { ResourceInfo } from "./resources.ts";

/** The server state the HTTP layer works on. */
export interface ServerCore {
  readonly registry: ResourceRegistry;
  readonly store: ObjectStore;
  readonly hub: WatchHub;
  readonly faults: FaultBook;
  readonly clock: Clock;
  readonly bookmarkIntervalMs: number;
  readonly supportsWatchList: boolean;
  continueEpoch: number;
  readonly requests: RequestRecord[];
  /** Streams that answer nothing (stall faults), closed with the server. */
  readonly stalls: Set<{ close(): void }>;
}

type Route =
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

const JSON_HEADERS = { "content-type": "application/json" };
const TRUE = new Set(["1", "t", "T", "true", "TRUE", "True"]);

/** How a request's streams end besides the reader cancelling. */
export interface StreamSignals {
  /** Aborting errors the answer's stream, as a client abort errors a fetch body. */
  signal?: AbortSignal;
  /** Aborting closes the answer's stream cleanly (server shutdown). */
  closeSignal?: AbortSignal;
}

/** Answers one HTTP request against the server state. */
export async function handleRequest(
  core: ServerCore,
  request: Request,
  signals: StreamSignals,
): Promise<Response> {
  const url = new URL(request.url);
  let segments: string[];
  try {
    segments = url.pathname.split("/").filter((s) => s !== "").map(
      decodeURIComponent,
    );
  } catch {
    segments = [];
  }
  const route = parseRoute(segments, core.registry, url.host);
  const q = url.searchParams;
  const verb = verbOf(request.method, route, q);
  core.requests.push(record(request.method, url, verb, route));
  try {
    if (verb === "unknown") {
      return statusResponse(
        route.type === "unknown" ? resourceNotFound() : methodNotAllowed(),
      );
    }
    const resource = route.type === "resource" ? route.info : undefined;
    const action = core.faults.match(
      verb,
      resource
        ? `${resource.group}/${resource.version}/${resource.resource}`
        : undefined,
    );
    if (action?.kind === "status") return faultResponse(action);
    if (action?.kind === "stall") {
      return stall(core, signals);
    }

    let response: Response;
    if (route.type === "discovery") {
      response = json(200, route.body);
    } else if (route.type === "health") {
      response = new Response("ok", {
        headers: { "content-type": "text/plain" },
      });
    } else if (route.type === "resource") {
      if (verb === "watch") {
        return watch(core, route, q, request, signals, action);
      }
      response = await resourceRequest(core, verb, route, q, request);
    } else {
      response = statusResponse(resourceNotFound());
    }
    return action ? breakBody(response, action) : response;
  } catch (err) {
    if (err instanceof FakeApiError) return statusResponse(err.status);
    return statusResponse(
      failure(500, `fake API server failed: ${(err as Error)?.message ?? err}`),
    );
  }
}

function parseRoute(
  segments: string[],
  registry: ResourceRegistry,
  host: string,
): Route {
  if (
    segments.length === 1 &&
    (segments[0] === "healthz" || segments[0] === "livez" ||
      segments[0] === "readyz")
  ) return { type: "health" };
  const doc = discovery(segments, registry, host);
  if (doc !== undefined) return { type: "discovery", body: doc };

  let group: string;
  let version: string;
  let rest: string[];
  if (segments[0] === "api" && segments.length >= 3) {
    [group, version, rest] = ["", segments[1], segments.slice(2)];
  } else if (segments[0] === "apis" && segments.length >= 4) {
    [group, version, rest] = [segments[1], segments[2], segments.slice(3)];
  } else return { type: "unknown" };

  if (rest[0] === "namespaces" && rest.length >= 3 && rest.length <= 5) {
    const info = registry.get(group, version, rest[2]);
    if (info?.namespaced) {
      return {
        type: "resource",
        info,
        namespace: rest[1],
        name: rest[3],
        subresource: rest[4],
      };
    }
  }
  const info = registry.get(group, version, rest[0]);
  if (!info || rest.length > 3 || (info.namespaced && rest.length > 1)) {
    return { type: "unknown" };
  }
  return {
    type: "resource",
    info,
    namespace: undefined,
    name: rest[1],
    subresource: rest[2],
  };
}

function verbOf(
  method: string,
  route: Route,
  q: URLSearchParams,
): RequestVerb | "unknown" {
  if (route.type === "unknown") return "unknown";
  if (route.type !== "resource") {
    return method === "GET" ? "discovery" : "unknown";
  }
  const named = route.name !== undefined;
  switch (method) {
    case "GET":
      return TRUE.has(q.get("watch") ?? "") ? "watch" : named ? "get" : "list";
    case "POST":
      return named || (route.info.namespaced && route.namespace === undefined)
        ? "unknown"
        : "create";
    case "PUT":
      return named ? "update" : "unknown";
    case "PATCH":
      return named ? "patch" : "unknown";
    case "DELETE":
      return named ? "delete" : "deletecollection";
    default:
      return "unknown";
  }
}

function record(
  method: string,
  url: URL,
  verb: string,
  route: Route,
): RequestRecord {
  const rec: {
    -readonly [K in keyof RequestRecord]: RequestRecord[K];
  } = {
    method,
    path: url.pathname,
    query: Object.fromEntries(url.searchParams),
    verb,
  };
  if (route.type === "resource") {
    rec.resource = route.info.resource;
    if (route.namespace !== undefined) rec.namespace = route.namespace;
    if (route.name !== undefined) rec.name = route.name;
  }
  return rec;
}

// ---------------------------------------------------------------------------
// Faults

const FAULT_MESSAGES: Record<number, string> = {
  429: "Too many requests, please try again later.",
  500: "Internal error occurred: injected fault",
  503: "the server is currently unable to handle the request",
};

function faultResponse(
  action: Extract<FaultAction, { kind: "status" }>,
): Response {
  const details: Record<string, unknown> = {};
  const headers: Record<string, string> = {};
  if (action.retryAfterSeconds !== undefined) {
    details.retryAfterSeconds = action.retryAfterSeconds;
    headers["retry-after"] = String(action.retryAfterSeconds);
  }
  const status = failure(
    action.code,
    action.message ?? FAULT_MESSAGES[action.code] ??
      `injected fault ${action.code}`,
    {
      reason: action.reason ?? reasonForCode(action.code),
      details: action.retryAfterSeconds !== undefined ? details : undefined,
    },
  );
  return statusResponse(status, headers);
}

/** A response whose body never arrives, until the client aborts or the server closes. */
function stall(core: ServerCore, signals: StreamSignals): Response {
  const { signal, closeSignal } = signals;
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let done = false;
  const end = () => {
    done = true;
    core.stalls.delete(handle);
    signal?.removeEventListener("abort", onAbort);
    closeSignal?.removeEventListener("abort", onClose);
  };
  const handle = {
    close() {
      if (done) return;
      end();
      try {
        controller.close();
      } catch { /* cancelled */ }
    },
  };
  const onAbort = () => {
    if (done) return;
    end();
    try {
      controller.error(signal?.reason);
    } catch { /* cancelled */ }
  };
  const onClose = () => handle.close();
  const stream = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
    },
    cancel: end,
  });
  core.stalls.add(handle);
  signal?.addEventListener("abort", onAbort, { once: true });
  closeSignal?.addEventListener("abort", onClose, { once: true });
  if (signal?.aborted) onAbort();
  else if (closeSignal?.aborted) handle.close();
  return new Response(stream, { headers: JSON_HEADERS });
}

/** Applies a drop or truncate fault to a complete (non-watch) answer. */
async function breakBody(
  response: Response,
  action: FaultAction,
): Promise<Response> {
  const init = { status: response.status, headers: response.headers };
  if (action.kind === "truncate") {
    const bytes = new Uint8Array(await response.arrayBuffer());
    return new Response(bytes.slice(0, Math.floor(bytes.length / 2)), init);
  }
  await response.body?.cancel();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.error(
        new TypeError(
          "Connection reset by the fake API server (injected fault)",
        ),
      );
    },
  });
  return new Response(body, init);
}

// ---------------------------------------------------------------------------
// Resources

async function resourceRequest(
  core: ServerCore,
  verb: RequestVerb,
  route: Extract<Route, { type: "resource" }>,
  q: URLSearchParams,
  request: Request,
): Promise<Response> {
  const { info, name, subresource } = route;
  const namespace = route.namespace ?? "";
  const table = wantsTable(request.headers.get("accept"));
  const store = core.store;
  if (subresource !== undefined && subresource !== "status") {
    return statusResponse(resourceNotFound());
  }
  switch (verb) {
    case "list":
      return list(core, route, q, table);
    case "get": {
      const obj = store.get(info, namespace, name!);
      return table
        ? tableResponse(toTable(
          [obj],
          core.clock.now(),
          includeObjectParam(q.get("includeObject")),
          { resourceVersion: obj.metadata.resourceVersion },
        ))
        : json(200, obj);
    }
    case "create": {
      if (subresource) return statusResponse(methodNotAllowed());
      const body = await readJson(request);
      return json(
        201,
        store.create(info, body, { namespace, owned: true, strict: true }),
      );
    }
    case "update": {
      const body = await readJson(request);
      return json(
        200,
        store.update(info, body, { namespace, name, owned: true, subresource }),
      );
    }
    case "patch":
      return json(200, await patch(core, route, request));
    case "delete": {
      const options = await readDeleteOptions(request);
      return json(200, store.delete(info, namespace, name!, options));
    }
    case "deletecollection": {
      const filter = filterOf(info, q);
      const prefix = route.namespace !== undefined ? `${route.namespace}/` : "";
      const targets: KubeObject[] = [];
      for (
        const [, obj] of store.snapshot(
          store.table(info),
          store.rv,
          prefix,
          undefined,
        )
      ) {
        if (filter.matches(obj)) targets.push(obj);
      }
      const items = targets.map((obj) =>
        store.delete(info, obj.metadata.namespace ?? "", obj.metadata.name!)
      );
      return json(200, {
        kind: info.listKind,
        apiVersion: info.apiVersion,
        metadata: { resourceVersion: String(store.rv) },
        items,
      });
    }
    default:
      return statusResponse(methodNotAllowed());
  }
}

function filterOf(info: ResourceInfo, q: URLSearchParams): ObjectFilter {
  return buildFilter(info, q.get("labelSelector"), q.get("fieldSelector"));
}

function list(
  core: ServerCore,
  route: Extract<Route, { type: "resource" }>,
  q: URLSearchParams,
  wantTable: boolean,
): Response {
  const { info } = route;
  const store = core.store;
  const filter = filterOf(info, q);
  const limit = nonNegativeInt(q, "limit") ?? 0;
  const current = store.rv;
  const cont = q.get("continue");
  let snapshotRv = current;
  let after: string | undefined;
  if (cont) {
    const token = decodeContinue(cont);
    if (token.epoch !== core.continueEpoch || !store.history.covers(token.rv)) {
      throw new FakeApiError(continueExpired(encodeContinue({
        rv: current,
        after: token.after,
        epoch: core.continueEpoch,
      })));
    }
    snapshotRv = token.rv;
    after = token.after;
  } else {
    const rv = resourceVersionParam(q);
    const match = q.get("resourceVersionMatch") ?? "";
    validateListMatch(match, q.get("resourceVersion") ?? "");
    if (rv !== undefined) {
      if (rv > current) throw new FakeApiError(tooLarge(rv, current));
      if (match === "Exact") {
        if (!store.history.covers(rv)) {
          throw new FakeApiError(tooOld(rv, store.history.compactedThrough));
        }
        snapshotRv = rv;
      }
    }
  }
  const prefix = route.namespace !== undefined ? `${route.namespace}/` : "";
  const items: KubeObject[] = [];
  let lastKey: string | undefined;
  let more = false;
  for (
    const [key, obj] of store.snapshot(
      store.table(info),
      snapshotRv,
      prefix,
      after,
    )
  ) {
    if (!filter.matches(obj)) continue;
    if (limit > 0 && items.length === limit) {
      more = true;
      break;
    }
    items.push(obj);
    lastKey = key;
  }
  const metadata: Record<string, unknown> = {
    resourceVersion: String(snapshotRv),
  };
  if (more) {
    metadata.continue = encodeContinue({
      rv: snapshotRv,
      after: lastKey!,
      epoch: core.continueEpoch,
    });
  }
  if (wantTable) {
    return tableResponse(
      toTable(
        items,
        core.clock.now(),
        includeObjectParam(q.get("includeObject")),
        metadata,
      ),
    );
  }
  return json(200, {
    kind: info.listKind,
    apiVersion: info.apiVersion,
    metadata,
    items,
  });
}

function validateListMatch(match: string, rv: string): void {
  if (!match) return;
  const causes: Required<StatusCause>[] = [];
  if (!rv) {
    causes.push(forbidden(
      "resourceVersionMatch",
      "resourceVersionMatch is forbidden unless resourceVersion is provided",
    ));
  }
  if (match !== "Exact" && match !== "NotOlderThan") {
    causes.push({
      reason: "FieldValueNotSupported",
      field: "resourceVersionMatch",
      message:
        `Unsupported value: "${match}": supported values: "Exact", "NotOlderThan", ""`,
    });
  }
  if (match === "Exact" && rv === "0") {
    causes.push(forbidden(
      "resourceVersionMatch",
      'resourceVersionMatch "exact" is forbidden for resourceVersion "0"',
    ));
  }
  if (causes.length > 0) {
    throw new FakeApiError(invalid("ListOptions", "meta.k8s.io", "", causes));
  }
}

function forbidden(field: string, detail: string): Required<StatusCause> {
  return {
    reason: "FieldValueForbidden",
    field,
    message: `Forbidden: ${detail}`,
  };
}

function watch(
  core: ServerCore,
  route: Extract<Route, { type: "resource" }>,
  q: URLSearchParams,
  request: Request,
  signals: StreamSignals,
  action: FaultAction | undefined,
): Response {
  const info = route.info;
  const store = core.store;
  const match = q.get("resourceVersionMatch") ?? "";
  const sieParam = q.get("sendInitialEvents");
  const sendInitialEvents = sieParam === null ? undefined : TRUE.has(sieParam);
  // ValidateListOptions, watch branch, as of Kubernetes 1.27+.
  const causes: Required<StatusCause>[] = [];
  if (sendInitialEvents !== undefined) {
    if (match !== "NotOlderThan") {
      causes.push(forbidden(
        "resourceVersionMatch",
        "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan",
      ));
    }
    if (!core.supportsWatchList) {
      causes.push(forbidden(
        "sendInitialEvents",
        "sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled",
      ));
    }
  }
  if (match) {
    if (sendInitialEvents === undefined) {
      causes.push(forbidden(
        "resourceVersionMatch",
        "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided",
      ));
    }
    if (match !== "NotOlderThan") {
      causes.push({
        reason: "FieldValueNotSupported",
        field: "resourceVersionMatch",
        message:
          `Unsupported value: "${match}": supported values: "NotOlderThan"`,
      });
    }
  }
  if (causes.length > 0) {
    throw new FakeApiError(invalid("ListOptions", "meta.k8s.io", "", causes));
  }

  const filter = filterOf(info, q);
  const namespace = route.namespace ?? "";
  // A watch on a named object (the deprecated form) watches just that name.
  const named = route.name;
  const effectiveFilter: ObjectFilter = named === undefined ? filter : {
    everything: false,
    matches: (obj) => obj.metadata.name === named && filter.matches(obj),
  };
  const timeoutSeconds = nonNegativeInt(q, "timeoutSeconds");
  const allowBookmarks = TRUE.has(q.get("allowWatchBookmarks") ?? "");
  const rv = resourceVersionParam(q);
  const current = store.rv;
  const legacyInitial = sendInitialEvents === undefined && rv === undefined;
  const initial = sendInitialEvents === true || legacyInitial;
  // Servers with WatchList default such legacy watches to
  // sendInitialEvents=true, which brings the end bookmark along.
  const endBookmark = allowBookmarks &&
    (sendInitialEvents === true || (legacyInitial && core.supportsWatchList));
  const table = wantsTable(request.headers.get("accept"));
  const include = includeObjectParam(q.get("includeObject"));
  const clock = core.clock;
  const gvr = `${info.group}/${info.version}/${info.resource}`;

  const watcher = new ServerWatch({
    info,
    gvrKey: gvr,
    namespace,
    filter: effectiveFilter,
    allowBookmarks,
    clock,
    bookmarkIntervalMs: core.bookmarkIntervalMs,
    timeoutMs: timeoutSeconds !== undefined && timeoutSeconds > 0
      ? timeoutSeconds * 1000
      : undefined,
    currentRv: () => store.rv,
    signal: signals.signal,
    closeSignal: signals.closeSignal,
    transform: table
      ? (obj) => toTable([obj], clock.now(), include)
      : undefined,
    dropAfter: action?.kind === "drop" ? action.afterEvents ?? 0 : undefined,
    truncateAfter: action?.kind === "truncate"
      ? action.afterEvents ?? 0
      : undefined,
    onEnd: (w) => core.hub.remove(w),
  });
  core.hub.add(watcher);

  if (rv !== undefined && rv > current) {
    watcher.sendError(tooLarge(rv, current));
  } else if (initial) {
    const prefix = namespace ? `${namespace}/` : "";
    for (
      const [, obj] of store.snapshot(
        store.table(info),
        current,
        prefix,
        undefined,
      )
    ) {
      watcher.sendInitial(obj);
    }
    if (endBookmark) watcher.sendBookmark({ [INITIAL_EVENTS_END]: "true" });
  } else if (rv !== undefined) {
    if (!store.history.covers(rv)) {
      watcher.sendError(tooOld(rv, store.history.compactedThrough));
    } else {
      for (const entry of store.history.since(rv)) {
        if (entry.gvrKey === gvr) watcher.deliver(entry);
      }
    }
  }
  return new Response(watcher.stream, {
    headers: {
      "content-type": table ? TABLE_CONTENT_TYPE : "application/json",
    },
  });
}

async function patch(
  core: ServerCore,
  route: Extract<Route, { type: "resource" }>,
  request: Request,
): Promise<KubeObject> {
  const { info, name, subresource } = route;
  const namespace = route.namespace ?? "";
  const type = (request.headers.get("content-type") ?? "").split(";")[0].trim();
  const body = await readJson(request);
  switch (type) {
    case "application/merge-patch+json":
    // Strategic merge is approximated by a merge patch: lists are replaced.
    case "application/strategic-merge-patch+json":
      return core.store.patch(info, namespace, name!, body, { subresource });
    case "application/json-patch+json": {
      const existing = core.store.get(info, namespace, name!);
      let patched: unknown;
      try {
        patched = applyJsonPatch(existing, body);
      } catch (err) {
        if (err instanceof JsonPatchError) {
          throw new FakeApiError(
            failure(
              422,
              `the server rejected our request due to an error in our request: ${err.message}`,
            ),
          );
        }
        throw err;
      }
      return core.store.update(info, patched, {
        namespace,
        name,
        owned: true,
        subresource,
      });
    }
    default:
      throw new FakeApiError(failure(
        415,
        `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json (got ${
          JSON.stringify(type)
        })`,
      ));
  }
}

async function readJson(request: Request): Promise<unknown> {
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

async function readDeleteOptions(
  request: Request,
): Promise<{ resourceVersion?: string; uid?: string }> {
  const text = await request.text();
  if (!text.trim()) return {};
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new FakeApiError(badRequest("the DeleteOptions body is not JSON"));
  }
  const pre = isJsonObject(body) && isJsonObject(body.preconditions)
    ? body.preconditions
    : {};
  return {
    resourceVersion: typeof pre.resourceVersion === "string"
      ? pre.resourceVersion
      : undefined,
    uid: typeof pre.uid === "string" ? pre.uid : undefined,
  };
}

function resourceVersionParam(q: URLSearchParams): number | undefined {
  const raw = q.get("resourceVersion") ?? "";
  if (raw === "" || raw === "0") return undefined;
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(Number(raw))) {
    throw new FakeApiError(
      badRequest(`invalid resource version: ${JSON.stringify(raw)}`),
    );
  }
  return Number(raw);
}

function nonNegativeInt(q: URLSearchParams, name: string): number | undefined {
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

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: JSON_HEADERS });
}

function tableResponse(body: unknown): Response {
  return new Response(JSON.stringify(body), {
    headers: { "content-type": TABLE_CONTENT_TYPE },
  });
}
