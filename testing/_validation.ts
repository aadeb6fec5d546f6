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
 * Given the object (`content`, when the fake validates), a wrong name comes
 * with the causes of the rest of its metadata and data, as kube-apiserver
 * reports them all at once.
 */
export function validateIdentity(
  info: ResourceInfo,
  meta: ObjectMeta,
  namespace: string,
  content?: KubeObject,
): void {
  const name = meta.name;
  const causes = identityCauses(info, meta, namespace);
  if (causes.length === 0) return;
  if (content !== undefined) causes.push(...contentCauses(info, content));
  throw new FakeApiError(
    invalid(
      info.kind,
      info.group,
      typeof name === "string" ? name : "",
      causes,
    ),
  );
}

function identityCauses(
  info: ResourceInfo,
  meta: ObjectMeta,
  namespace: string,
): Cause[] {
  const name = meta.name;
  const causes: Cause[] = [];
  if (typeof name !== "string" || name === "") {
    causes.push({
      field: "metadata.name",
      reason: "FieldValueRequired",
      message: "Required value: name or generateName is required",
    });
  } else if (PATH_SEGMENT_NAMED.has(info.group)) {
    const problem = pathSegmentProblem(name);
    if (problem !== undefined) {
      causes.push({
        field: "metadata.name",
        reason: "FieldValueInvalid",
        message: `Invalid value: ${JSON.stringify(name)}: ${problem}`,
      });
    }
  } else if (name.length > 253 || !NAME.test(name)) {
    causes.push({
      field: "metadata.name",
      reason: "FieldValueInvalid",
      message: `Invalid value: ${
        JSON.stringify(name)
      }: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character`,
    });
  }
  if (
    info.namespaced && (namespace.length > 63 || !NAMESPACE.test(namespace))
  ) {
    causes.push({
      field: "metadata.namespace",
      reason: "FieldValueInvalid",
      message: `Invalid value: ${
        JSON.stringify(namespace)
      }: a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character`,
    });
  }
  return causes;
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
  const causes = contentCauses(info, obj);
  if (causes.length > 0) {
    throw new FakeApiError(
      invalid(info.kind, info.group, obj.metadata.name ?? "", causes),
    );
  }
}

type Cause = Required<StatusCause>;

/** The causes of the labels, annotation keys and data keys, metadata first. */
function contentCauses(info: ResourceInfo, obj: KubeObject): Cause[] {
  return [
    ...labelCauses(obj.metadata?.labels),
    ...annotationCauses(obj.metadata?.annotations),
    ...dataCauses(info, obj),
  ];
}

/**
 * What kube-apiserver 1.37 checks of an `events.k8s.io/v1` Event, as it
 * answers (tests/control_plane/conformance_test.ts): `eventTime` and `type`
 * first, and only those when either is wrong; then the reporter, `action`
 * and `reason` (required, at most 128 bytes), `note` (at most 1024 bytes,
 * named `message`), the series (`count` at least 2) and, for an object
 * without a namespace, the Event's own (`default`).
 */
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
  if (causes.length > 0) return causes;
  const text = (field: string) =>
    typeof obj[field] === "string" ? obj[field] as string : "";
  const required = (field: string) =>
    causes.push({
      reason: "FieldValueRequired",
      field,
      message: "Required value",
    });
  const tooLong = (field: string, limit: number, named = field) => {
    if (bytes(text(field)) > limit) {
      causes.push({
        reason: "FieldValueInvalid",
        field: named,
        message: `Invalid value: "": can have at most ${limit} characters`,
      });
    }
  };
  const controller = text("reportingController");
  if (controller === "") {
    required("reportingController");
    causes.push(
      cause("reportingController", "", "name part must be non-empty"),
      cause("reportingController", "", `name part ${NAME_PART_RULE}`),
    );
  } else {
    const problem = qualifiedNameProblem(controller);
    if (problem) causes.push(cause("reportingController", controller, problem));
  }
  if (text("reportingInstance") === "") required("reportingInstance");
  tooLong("reportingInstance", 128);
  for (const field of ["action", "reason"]) {
    if (text(field) === "") required(field);
    tooLong(field, 128);
  }
  tooLong("note", 1024, "message");
  const series = obj.series;
  if (isJsonObject(series)) {
    if (typeof series.count !== "number" || series.count < 2) {
      causes.push(cause("series.count", "", "should be at least 2"));
    }
    if (
      typeof series.lastObservedTime !== "string" ||
      series.lastObservedTime === ""
    ) {
      required("series.lastObservedTime");
    }
  }
  const regarding = isJsonObject(obj.regarding) ? obj.regarding : {};
  const namespace = obj.metadata?.namespace ?? "";
  if (
    !regarding.namespace && namespace !== "" && namespace !== "default"
  ) {
    causes.push(
      cause(
        "involvedObject.namespace",
        regarding.namespace ?? "",
        "does not match event.namespace",
      ),
    );
  }
  return causes;
}

const encoder = new TextEncoder();

/** Go's `len` of a string: its UTF-8 bytes. */
function bytes(text: string): number {
  return encoder.encode(text).length;
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
