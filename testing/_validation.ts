import type { KubeObject, ObjectMeta } from "../types.ts";
import { isJsonObject } from "./_json.ts";
import { invalid, type StatusCause } from "./_status.ts";
import { FakeApiError } from "./fake_api_error.ts";
import type { ResourceInfo } from "./resources.ts";

const NAME =
  /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const NAMESPACE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
/**
 * Groups whose objects take any name that is a path segment (RBAC's:
 * `system:controller:job-controller`, say), not only a DNS subdomain.
 */
const PATH_SEGMENT_NAMED: ReadonlySet<string> = new Set([
  "rbac.authorization.k8s.io",
]);

/**
 * Checks the name (an RFC 1123 subdomain, or for RBAC's types a path
 * segment) and, for namespaced types, the
 * namespace (an RFC 1123 label) of an object being created: 422 Invalid.
 */
export function validateIdentity(
  info: ResourceInfo,
  meta: ObjectMeta,
  namespace: string,
): void {
  const name = meta.name;
  const fail = (field: string, reason: string, message: string): never => {
    throw new FakeApiError(
      invalid(info.kind, info.group, typeof name === "string" ? name : "", [{
        reason,
        message,
        field,
      }]),
    );
  };
  if (typeof name !== "string" || name === "") {
    fail(
      "metadata.name",
      "FieldValueRequired",
      "Required value: name or generateName is required",
    );
  }
  if (PATH_SEGMENT_NAMED.has(info.group)) {
    const problem = pathSegmentProblem(name as string);
    if (problem !== undefined) {
      fail(
        "metadata.name",
        "FieldValueInvalid",
        `Invalid value: ${JSON.stringify(name)}: ${problem}`,
      );
    }
  } else if ((name as string).length > 253 || !NAME.test(name as string)) {
    fail(
      "metadata.name",
      "FieldValueInvalid",
      `Invalid value: ${
        JSON.stringify(name)
      }: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character`,
    );
  }
  if (
    info.namespaced && (namespace.length > 63 || !NAMESPACE.test(namespace))
  ) {
    fail(
      "metadata.namespace",
      "FieldValueInvalid",
      `Invalid value: ${
        JSON.stringify(namespace)
      }: a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character`,
    );
  }
}

/** Why `name` cannot be a path segment, if it cannot. */
function pathSegmentProblem(name: string): string | undefined {
  if (name === "." || name === "..") return `may not be '${name}'`;
  for (const c of ["/", "%"]) {
    if (name.includes(c)) return `may not contain '${c}'`;
  }
  return undefined;
}

/** The name part of a qualified name (a label key, an annotation key). */
const NAME_PART = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const CONFIG_KEY = /^[-._a-zA-Z0-9]+$/;
const NAME_PART_RULE =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

/**
 * Checks what kube-apiserver's validation checks in any object's labels
 * and annotation keys, and in the keys of a ConfigMap's or a Secret's
 * data: 422 Invalid with one cause per bad key or value, metadata first.
 * (The name and namespace are {@linkcode validateIdentity}'s.)
 */
export function validateContent(info: ResourceInfo, obj: KubeObject): void {
  const eventWrong = eventCauses(info, obj);
  if (eventWrong.length > 0) {
    // kube-apiserver names the kind without its group here.
    throw new FakeApiError(
      invalid("Event", "", obj.metadata.name ?? "", eventWrong),
    );
  }
  const causes = [
    ...labelCauses(obj.metadata.labels),
    ...annotationCauses(obj.metadata.annotations),
    ...dataCauses(info, obj),
  ];
  if (causes.length > 0) {
    throw new FakeApiError(
      invalid(info.kind, info.group, obj.metadata.name ?? "", causes),
    );
  }
}

type Cause = Required<StatusCause>;

/** An `events.k8s.io/v1` Event's `eventTime` and `type`, as the API server checks them. */
function eventCauses(info: ResourceInfo, obj: KubeObject): Cause[] {
  if (info.group !== "events.k8s.io" || info.resource !== "events") return [];
  const causes: Cause[] = [];
  if (typeof obj.eventTime !== "string" || obj.eventTime === "") {
    causes.push({
      reason: "FieldValueRequired",
      field: "eventTime",
      message: "Required value",
    });
  }
  if (obj.type !== "Normal" && obj.type !== "Warning") {
    causes.push({
      reason: "FieldValueInvalid",
      field: "type",
      message: `Invalid value: "": has invalid value: ${String(obj.type)}`,
    });
  }
  return causes;
}

function cause(field: string, value: unknown, problem: string): Cause {
  return {
    reason: "FieldValueInvalid",
    field,
    message: `Invalid value: ${JSON.stringify(value)}: ${problem}`,
  };
}

function entries(map: unknown): [string, unknown][] {
  return isJsonObject(map) ? Object.entries(map) : [];
}

function labelCauses(labels: unknown): Cause[] {
  const causes: Cause[] = [];
  for (const [key, value] of entries(labels)) {
    const keyProblem = qualifiedNameProblem(key);
    if (keyProblem) causes.push(cause("metadata.labels", key, keyProblem));
    const valueProblem = labelValueProblem(value ?? "");
    if (valueProblem) {
      causes.push(cause("metadata.labels", value, valueProblem));
    }
  }
  return causes;
}

function annotationCauses(annotations: unknown): Cause[] {
  const causes: Cause[] = [];
  // Annotation keys are compared in lower case: only the rule's form matters.
  for (const [key] of entries(annotations)) {
    const problem = qualifiedNameProblem(key.toLowerCase());
    if (problem) causes.push(cause("metadata.annotations", key, problem));
  }
  return causes;
}

function dataCauses(info: ResourceInfo, obj: KubeObject): Cause[] {
  if (info.group !== "") return [];
  if (info.resource !== "configmaps" && info.resource !== "secrets") return [];
  const causes: Cause[] = [];
  const data = entries(obj.data);
  for (const [key] of data) {
    const problem = configKeyProblem(key);
    if (problem) causes.push(cause(`data[${key}]`, key, problem));
  }
  if (info.resource === "configmaps") {
    const textKeys = new Set(data.map(([key]) => key));
    for (const [key] of entries(obj.binaryData)) {
      const problem = configKeyProblem(key);
      if (problem) causes.push(cause(`binaryData[${key}]`, key, problem));
      if (textKeys.has(key)) {
        causes.push(
          cause(`data[${key}]`, key, "duplicate of key present in binaryData"),
        );
      }
    }
  }
  return causes;
}

/** What is wrong with a label or annotation key (`prefix/name` or `name`). */
function qualifiedNameProblem(key: string): string | undefined {
  const parts = key.split("/");
  if (parts.length > 2) {
    return `a qualified name ${NAME_PART_RULE}, with an optional DNS subdomain prefix and '/'`;
  }
  const name = parts.at(-1)!;
  if (parts.length === 2) {
    const prefix = parts[0];
    if (prefix === "") return "prefix part must be non-empty";
    if (prefix.length > 253 || !NAME.test(prefix)) {
      return "prefix part must be a lowercase RFC 1123 subdomain";
    }
  }
  if (name === "") return "name part must be non-empty";
  if (name.length > 63) return "name part must be no more than 63 bytes";
  if (!NAME_PART.test(name)) return `name part ${NAME_PART_RULE}`;
  return undefined;
}

function labelValueProblem(value: unknown): string | undefined {
  if (typeof value !== "string") return "a label value must be a string";
  if (value.length > 63) return "must be no more than 63 bytes";
  if (!LABEL_VALUE.test(value)) {
    return `a valid label must be an empty string or ${
      NAME_PART_RULE.replace("must consist", "consist")
    }`;
  }
  return undefined;
}

/** What is wrong with a key of a ConfigMap's or a Secret's data. */
function configKeyProblem(key: string): string | undefined {
  if (key.length > 253) return "must be no more than 253 bytes";
  if (!CONFIG_KEY.test(key)) {
    return "a valid config key must consist of alphanumeric characters, '-', '_' or '.'";
  }
  if (key === ".") return "must not be '.'";
  if (key === "..") return "must not be '..'";
  if (key.startsWith("..")) return "must not start with '..'";
  return undefined;
}
