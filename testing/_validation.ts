import type { ObjectMeta } from "../types.ts";
import { badRequest, invalid } from "./_status.ts";
import { FakeApiError } from "./fake_api_error.ts";
import type { ResourceInfo } from "./resources.ts";

const NAME =
  /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const NAMESPACE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/**
 * Checks the name (an RFC 1123 subdomain) and, for namespaced types, the
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
  if ((name as string).length > 253 || !NAME.test(name as string)) {
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

const LABEL_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const DATA_KEY = /^[-._a-zA-Z0-9]+$/;

/** Whether `key` is a label key: an optional DNS-subdomain prefix and a name. */
function labelKeyValid(key: string): boolean {
  const slash = key.lastIndexOf("/");
  const prefix = slash === -1 ? undefined : key.slice(0, slash);
  const name = slash === -1 ? key : key.slice(slash + 1);
  if (prefix !== undefined && (prefix.length > 253 || !NAME.test(prefix))) {
    return false;
  }
  return name.length <= 63 && LABEL_NAME.test(name);
}

/**
 * What kube-apiserver checks of an object's content on a write through
 * the API: labels (422 Invalid, `metadata.labels`), and a ConfigMap's or
 * Secret's `data` and `binaryData` (keys 422, `data[<key>]`; a value that
 * is not a string does not decode: 400).
 */
export function validateContent(
  info: ResourceInfo,
  object: Record<string, unknown>,
): void {
  const meta = object.metadata as ObjectMeta;
  const name = typeof meta.name === "string" ? meta.name : "";
  const fail = (field: string, message: string): never => {
    throw new FakeApiError(
      invalid(info.kind, info.group, name, [{
        reason: "FieldValueInvalid",
        message,
        field,
      }]),
    );
  };
  const labels = meta.labels;
  if (labels !== undefined && labels !== null) {
    for (const [key, value] of Object.entries(labels)) {
      if (!labelKeyValid(key)) {
        fail(
          "metadata.labels",
          `Invalid value: ${
            JSON.stringify(key)
          }: a label key must be a qualified name`,
        );
      }
      if (typeof value !== "string") {
        throw new FakeApiError(
          badRequest(`label ${key}: the value must be a string`),
        );
      }
      if (value.length > 63 || !LABEL_VALUE.test(value)) {
        fail(
          "metadata.labels",
          `Invalid value: ${
            JSON.stringify(value)
          }: a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`,
        );
      }
    }
  }
  if (
    info.group !== "" || (info.kind !== "ConfigMap" && info.kind !== "Secret")
  ) {
    return;
  }
  // stringData has its own check (a Secret's, where it is folded in).
  for (const field of ["data", "binaryData"]) {
    const data = object[field];
    if (data === undefined || data === null) continue;
    if (typeof data !== "object" || Array.isArray(data)) {
      throw new FakeApiError(badRequest(`${field} must be an object`));
    }
    for (const [key, value] of Object.entries(data)) {
      if (typeof value !== "string") {
        throw new FakeApiError(
          badRequest(
            `${info.kind} in version "v1" cannot be handled: ${field}[${key}]: the value must be a string`,
          ),
        );
      }
      if (key.length > 253 || !DATA_KEY.test(key)) {
        fail(
          `${field}[${key}]`,
          `Invalid value: ${
            JSON.stringify(key)
          }: a valid config key must consist of alphanumeric characters, '-', '_' or '.'`,
        );
      }
    }
  }
}
