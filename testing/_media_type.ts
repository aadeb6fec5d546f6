import { asPartialObjectMetadata } from "../_internal/_objects.ts";
import type { KubeObject } from "../types.ts";
import { isJsonObject } from "./_json.ts";
import { failure } from "./_status.ts";
import { FakeApiError } from "./fake_api_error.ts";

/** The forms of an answer that the `as=` media type parameter selects. */
export type ConvertedKind =
  | "Table"
  | "PartialObjectMetadata"
  | "PartialObjectMetadataList";

/**
 * What a request's `Accept` header asked for: the objects themselves
 * (`as` undefined), or a conversion to a `meta.k8s.io` kind.
 */
export type OutputForm =
  | { as: undefined }
  | { as: ConvertedKind; apiVersion: string };

const OBJECTS: OutputForm = { as: undefined };
const CONVERTIBLE = new Set<string>([
  "Table",
  "PartialObjectMetadata",
  "PartialObjectMetadataList",
]);
/** The versions of meta.k8s.io whose conversions the API server serves. */
const META_VERSIONS = new Set(["v1", "v1beta1"]);

interface Clause {
  type: string;
  subType: string;
  q: number;
  params: Map<string, string>;
}

/**
 * Negotiates the answer's form as the API server does
 * (`NegotiateMediaTypeOptions` with a resource endpoint's restrictions):
 * clauses are tried by descending `q`, then in the order given; the first
 * that names a media type this server writes, with an `as=` it can convert
 * to, wins. The fake writes only `application/json` (no YAML, no protobuf).
 * No header means the objects as JSON.
 *
 * @throws {FakeApiError} 406 NotAcceptable when no clause can be served.
 */
export function negotiateOutput(accept: string | null): OutputForm {
  if (!accept) return OBJECTS;
  for (const clause of parseAccept(accept)) {
    const form = acceptable(clause);
    if (form) return form;
  }
  throw new FakeApiError(failure(
    406,
    "only the following media types are accepted: application/json",
  ));
}

/** The form a clause asks for, or undefined when this server cannot serve it. */
function acceptable(clause: Clause): OutputForm | undefined {
  const { type, subType, params } = clause;
  const writesIt = (type === "application" &&
    (subType === "json" || subType === "*")) ||
    (type === "*" && subType === "*");
  if (!writesIt) return undefined;
  const stream = params.get("stream");
  if (stream && stream !== "watch") return undefined;
  const sv = params.get("sv");
  if (sv && sv !== "v1") return undefined;
  if (!params.has("as") && !params.has("g") && !params.has("v")) {
    return OBJECTS;
  }
  const kind = params.get("as") ?? "";
  const version = params.get("v") ?? "";
  if (
    params.get("g") !== "meta.k8s.io" || !META_VERSIONS.has(version) ||
    !CONVERTIBLE.has(kind)
  ) return undefined;
  return { as: kind as ConvertedKind, apiVersion: `meta.k8s.io/${version}` };
}

/**
 * Splits an `Accept` header into clauses and orders them as the API
 * server's parser does: higher `q` first, then concrete types before
 * wildcards, otherwise as written (Go's insertion sort keeps that order).
 */
function parseAccept(header: string): Clause[] {
  const clauses: Clause[] = [];
  for (const part of header.split(",")) {
    const [range, ...rest] = part.trim().split(";");
    const slash = range.split("/");
    const type = slash[0].trim();
    let subType: string;
    if (slash.length === 1 && type === "*") subType = "*";
    else if (slash.length === 2) subType = slash[1].trim();
    else continue;
    const clause: Clause = { type, subType, q: 1, params: new Map() };
    for (const param of rest) {
      const eq = param.indexOf("=");
      if (eq < 0) continue;
      const key = param.slice(0, eq).trim();
      const value = param.slice(eq + 1).trim();
      if (key === "q") {
        const q = Number(value);
        clause.q = Number.isFinite(q) ? q : 0;
      } else clause.params.set(key, value);
    }
    clauses.push(clause);
  }
  for (let i = 1; i < clauses.length; i++) {
    for (let j = i; j > 0 && before(clauses[j], clauses[j - 1]); j--) {
      [clauses[j], clauses[j - 1]] = [clauses[j - 1], clauses[j]];
    }
  }
  return clauses;
}

function before(a: Clause, b: Clause): boolean {
  if (a.q !== b.q) return a.q > b.q;
  if (a.type !== "*" && b.type === "*") return true;
  return a.subType !== "*" && b.subType === "*";
}

/** Whether an answer body is a list (has `items`), as `meta.IsListType` checks. */
function isList(body: Record<string, unknown>): boolean {
  return Array.isArray(body.items);
}

/**
 * Converts an answer body (an object or a list) to the metadata-only form
 * asked for, as the API server's `transformResponseObject` does: `Status`
 * bodies pass unchanged; a list asked for as `PartialObjectMetadata`, or an
 * object asked for as `PartialObjectMetadataList`, is a 406 (negotiation
 * does not tell lists from objects, the conversion does).
 *
 * @throws {FakeApiError} 406 NotAcceptable for the mismatches above.
 */
export function toMetadataForm(body: unknown, form: OutputForm): unknown {
  if (
    (form.as !== "PartialObjectMetadata" &&
      form.as !== "PartialObjectMetadataList") ||
    !isJsonObject(body) || body.kind === "Status"
  ) return body;
  const list = isList(body);
  if (form.as === "PartialObjectMetadata") {
    if (list) {
      throw notAcceptable(
        `you requested PartialObjectMetadata, but the requested object is a list (${body.kind})`,
      );
    }
    return asPartialObjectMetadata(body as KubeObject, form.apiVersion);
  }
  if (!list) {
    throw notAcceptable(
      `you requested PartialObjectMetadataList, but the requested object is not a list (${body.kind})`,
    );
  }
  const listMeta = isJsonObject(body.metadata) ? body.metadata : {};
  const metadata: Record<string, unknown> = {};
  for (const key of ["resourceVersion", "continue", "remainingItemCount"]) {
    if (listMeta[key] !== undefined) metadata[key] = listMeta[key];
  }
  return {
    kind: "PartialObjectMetadataList",
    apiVersion: form.apiVersion,
    metadata,
    items: (body.items as KubeObject[]).map((item) =>
      asPartialObjectMetadata(item, form.apiVersion)
    ),
  };
}

/**
 * Converts the JSON body of a successful answer (GET, create, update,
 * patch, delete) to the metadata-only form asked for; anything else is
 * returned as is.
 */
export async function convertAnswer(
  response: Response,
  form: OutputForm,
): Promise<Response> {
  if (
    (form.as !== "PartialObjectMetadata" &&
      form.as !== "PartialObjectMetadataList") ||
    !response.ok ||
    response.headers.get("content-type") !== "application/json"
  ) return response;
  const converted = toMetadataForm(await response.json(), form);
  return new Response(JSON.stringify(converted), {
    status: response.status,
    headers: response.headers,
  });
}

function notAcceptable(message: string): FakeApiError {
  return new FakeApiError(failure(406, message));
}
