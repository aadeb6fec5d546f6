import type { KubeObject } from "../types.ts";
import { discovery } from "./kubectl/_discovery.ts";
import { openApi } from "./kubectl/_openapi.ts";
import type { RequestVerb } from "./_reactors.ts";
import { stall } from "./_fault_responses.ts";
import { list } from "./_list_request.ts";
import { gvrKey, type ResourceRegistry } from "./_registry.ts";
import {
  filterOf,
  json,
  readJson,
  type ResourceRoute,
  type Route,
  type ServerCore,
  type StreamSignals,
  tableResponse,
  TRUE,
} from "./_request_util.ts";
import {
  failure,
  methodNotAllowed,
  resourceNotFound,
  statusResponse,
} from "./_status.ts";
import {
  convertAnswer,
  negotiateOutput,
  type OutputForm,
} from "./_media_type.ts";
import { includeObjectParam, toTable } from "./kubectl/_table.ts";
import { watch } from "./_watch_request.ts";
import {
  APPLY_PATCH,
  deleteAnswer,
  managerOf,
  patch,
  readDeleteOptions,
} from "./_write_request.ts";
import { apply } from "./_apply_request.ts";
import { checkDecodable } from "./_decode.ts";
import { dryRunOf } from "./_dry_run.ts";
import { FakeApiError } from "./fake_api_error.ts";
import type { WatchTap } from "./reactor.ts";
import type { RequestRecord } from "./request_record.ts";

export type { ServerCore, StreamSignals } from "./_request_util.ts";

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
  const verb = verbOf(request.method, route, url.searchParams);
  core.requests.push(record(request.method, url, verb, route));
  if (
    core.token !== undefined &&
    request.headers.get("authorization") !== `Bearer ${core.token}`
  ) {
    // Authentication comes first, before routing errors and reactors.
    return statusResponse(failure(401, "Unauthorized"));
  }
  if (verb === "unknown") {
    return statusResponse(
      route.type === "unknown" ? resourceNotFound() : methodNotAllowed(),
    );
  }
  const target = route.type === "resource" ? route : undefined;
  try {
    return await core.reactors.run({
      verb,
      resource: target?.info,
      gvrKey: target && gvrKey(target.info),
      namespace: target?.namespace,
      name: target?.name,
      subresource: target?.subresource,
      url,
      request,
    }, {
      serve: (tap) => serve(core, route, verb, url, request, signals, tap),
      hold: () => stall(core, signals),
    });
  } catch (err) {
    return failed(err);
  }
}

/** The server's own answer, after every reactor passed or for one that wraps it. */
async function serve(
  core: ServerCore,
  route: Route,
  verb: RequestVerb,
  url: URL,
  request: Request,
  signals: StreamSignals,
  tap: WatchTap | undefined,
): Promise<Response> {
  const q = url.searchParams;
  try {
    if (route.type === "discovery") return json(200, route.body);
    if (route.type === "health") {
      return new Response("ok", { headers: { "content-type": "text/plain" } });
    }
    if (route.type !== "resource") return statusResponse(resourceNotFound());
    // Before anything is done, as the API server's handlers negotiate.
    const form = negotiateOutput(request.headers.get("accept"));
    if (verb === "watch") return watch(core, route, q, signals, tap, form);
    const response = await resourceRequest(core, verb, route, q, request, form);
    return verb === "list" ? response : await convertAnswer(response, form);
  } catch (err) {
    return failed(err);
  }
}

function failed(err: unknown): Response {
  if (err instanceof FakeApiError) return statusResponse(err.status);
  return statusResponse(
    failure(500, `fake API server failed: ${(err as Error)?.message ?? err}`),
  );
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
  const doc = discovery(segments, registry, host) ??
    openApi(segments, registry);
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

async function resourceRequest(
  core: ServerCore,
  verb: RequestVerb,
  route: ResourceRoute,
  q: URLSearchParams,
  request: Request,
  form: OutputForm,
): Promise<Response> {
  const { info, name, subresource } = route;
  const namespace = route.namespace ?? "";
  const table = form.as === "Table";
  const store = core.store;
  if (
    subresource !== undefined &&
    (subresource !== "status" || !info.statusSubresource)
  ) {
    return statusResponse(resourceNotFound());
  }
  switch (verb) {
    case "list":
      return list(core, route, q, form);
    case "get": {
      const obj = store.get(info, namespace, name!);
      return table
        ? tableResponse(toTable(
          [obj],
          core.clock.now(),
          includeObjectParam(q.get("includeObject")),
          { resourceVersion: obj.metadata.resourceVersion },
          form.apiVersion,
        ))
        : json(200, obj);
    }
    case "create": {
      if (subresource) return statusResponse(methodNotAllowed());
      const dryRun = dryRunOf(q.getAll("dryRun"), "CreateOptions");
      const body = await readJson(request);
      checkDecodable(info, body);
      return json(
        201,
        store.create(info, body, {
          namespace,
          owned: true,
          strict: true,
          dryRun,
        }),
      );
    }
    case "update": {
      const dryRun = dryRunOf(q.getAll("dryRun"), "UpdateOptions");
      const body = await readJson(request);
      checkDecodable(info, body);
      return json(
        200,
        store.update(info, body, {
          namespace,
          name,
          owned: true,
          subresource,
          strict: true,
          dryRun,
          fieldManager: managerOf(request, q),
        }),
      );
    }
    case "patch": {
      const dryRun = dryRunOf(q.getAll("dryRun"), "PatchOptions");
      const type = (request.headers.get("content-type") ?? "").split(";")[0]
        .trim();
      if (type === APPLY_PATCH) {
        const { created, object } = await apply(core, route, request, q, {
          dryRun,
        });
        return json(created ? 201 : 200, object);
      }
      return json(
        200,
        await patch(core, route, request, {
          dryRun,
          fieldManager: managerOf(request, q),
        }),
      );
    }
    case "delete": {
      const options = await readDeleteOptions(request, q);
      return json(
        200,
        deleteAnswer(info, store.delete(info, namespace, name!, options)),
      );
    }
    case "deletecollection": {
      const { dryRun } = await readDeleteOptions(request, q);
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
        store.delete(info, obj.metadata.namespace ?? "", obj.metadata.name!, {
          dryRun,
        })
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
