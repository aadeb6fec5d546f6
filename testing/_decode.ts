import { isJsonObject } from "./_json.ts";
import { isBuiltin } from "./_registry.ts";
import { isSecret } from "./_secret.ts";
import { badRequest, failure, invalid } from "./_status.ts";
import { FakeApiError } from "./fake_api_error.ts";
import type { ResourceInfo } from "./resources.ts";

/**
 * Checks a written body as kube-apiserver reads it, before validation: its
 * `apiVersion` and `kind` must be the URL's (a built-in type's may be left
 * out; a custom resource's must be there), and the maps its decoder reads
 * into typed fields (labels, annotations, a ConfigMap's or a Secret's data)
 * must hold what those fields take. A request body that fails is 400
 * BadRequest; `from: "patch"` makes it 422 Invalid on `patch`, as the
 * object a patch made is the patch's fault. A custom resource's body of
 * another kind is 422 Invalid on `kind`.
 */
export function checkDecodable(
  info: ResourceInfo,
  body: unknown,
  from: "body" | "patch" = "body",
): void {
  if (!isJsonObject(body)) return;
  const problem = isBuiltin(info)
    ? typeMetaProblem(info, body) ?? valuesProblem(info, body)
    : customTypeMetaProblem(info, body);
  if (problem === undefined) return;
  if (from === "body") throw new FakeApiError(badRequest(problem));
  throw new FakeApiError(failure(
    422,
    `the object the patch makes is invalid: patch: ${problem}`,
    {
      details: {
        causes: [{
          reason: "FieldValueInvalid",
          field: "patch",
          message: problem,
        }],
      },
    },
  ));
}

function typeMetaProblem(
  info: ResourceInfo,
  body: Record<string, unknown>,
): string | undefined {
  const { kind, apiVersion } = body;
  for (const [field, value] of [["kind", kind], ["apiVersion", apiVersion]]) {
    if (value !== undefined && value !== null && typeof value !== "string") {
      return `${field} must be a string, got ${JSON.stringify(value)}`;
    }
  }
  const givenKind = kind || info.kind;
  const givenVersion = apiVersion || info.apiVersion;
  if (givenKind === info.kind && givenVersion === info.apiVersion) {
    return undefined;
  }
  return `${givenKind} in version ${
    JSON.stringify(givenVersion)
  } cannot be handled as a ${info.kind}: this URL takes ${info.kind} in ${info.apiVersion}`;
}

/** A custom resource's kind mismatch is its validation's (422), the rest 400. */
function customTypeMetaProblem(
  info: ResourceInfo,
  body: Record<string, unknown>,
): string | undefined {
  const { kind, apiVersion } = body;
  if (typeof kind !== "string" || kind === "") {
    return `the object provided is unrecognized (must be of type ${info.kind}): kind is missing`;
  }
  if (typeof apiVersion !== "string" || apiVersion === "") {
    return `the object provided is unrecognized (must be of type ${info.kind}): apiVersion is missing`;
  }
  if (apiVersion !== info.apiVersion) {
    return `${kind} in version ${
      JSON.stringify(apiVersion)
    } cannot be handled as a ${info.kind}: this URL takes ${info.apiVersion}`;
  }
  if (kind !== info.kind) {
    const name = isJsonObject(body.metadata) &&
        typeof body.metadata.name === "string"
      ? body.metadata.name
      : "";
    throw new FakeApiError(invalid(kind, info.group, name, [{
      reason: "FieldValueInvalid",
      field: "kind",
      message: `Invalid value: ${JSON.stringify(kind)}: must be ${info.kind}`,
    }]));
  }
  return undefined;
}

function valuesProblem(
  info: ResourceInfo,
  body: Record<string, unknown>,
): string | undefined {
  const metadata = isJsonObject(body.metadata) ? body.metadata : {};
  const problems = [
    mapProblem("metadata.labels", metadata.labels, isText),
    mapProblem("metadata.annotations", metadata.annotations, isText),
  ];
  if (info.group === "" && info.resource === "configmaps") {
    problems.push(
      mapProblem("data", body.data, isText),
      mapProblem("binaryData", body.binaryData, isBase64),
    );
  }
  if (isSecret(info)) problems.push(mapProblem("data", body.data, isBase64));
  return problems.find((p) => p !== undefined);
}

/** A map of string values (`null` reads as the empty string). */
function mapProblem(
  field: string,
  map: unknown,
  valid: (value: string) => boolean,
): string | undefined {
  if (map === undefined || map === null) return undefined;
  if (!isJsonObject(map)) {
    return `${field} must be a map of strings, got ${JSON.stringify(map)}`;
  }
  for (const [key, value] of Object.entries(map)) {
    if (value === null) continue;
    if (typeof value !== "string") {
      return `${field}[${JSON.stringify(key)}] must be a string, got ${
        JSON.stringify(value)
      }`;
    }
    if (!valid(value)) {
      return `${field}[${JSON.stringify(key)}] must be base64, got ${
        JSON.stringify(value)
      }`;
    }
  }
  return undefined;
}

function isText(_value: string): boolean {
  return true;
}

/** Standard base64 with its padding; line breaks are skipped, as Go's decoder does. */
function isBase64(value: string): boolean {
  const text = value.replace(/[\r\n]/g, "");
  return text.length % 4 === 0 && /^[A-Za-z0-9+/]*={0,2}$/.test(text);
}
