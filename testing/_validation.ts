import type { ObjectMeta } from "../types.ts";
import { invalid } from "./_status.ts";
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
