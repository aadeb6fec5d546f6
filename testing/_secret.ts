import type { KubeObject } from "../types.ts";
import { isJsonObject } from "./_json.ts";
import { badRequest } from "./_status.ts";
import { FakeApiError } from "./fake_api_error.ts";
import type { ResourceInfo } from "./resources.ts";

/** Whether a type is the core Secret, whose `stringData` is write-only. */
export function isSecret(info: ResourceInfo): boolean {
  return info.group === "" && info.resource === "secrets";
}

/**
 * Merges a Secret's `stringData` into `data` (base64 of the UTF-8 bytes,
 * overriding keys already in `data`) and drops `stringData`, as the API
 * server does on every write. Modifies `obj`.
 */
export function foldStringData(obj: KubeObject): void {
  const stringData = obj.stringData;
  if (stringData === undefined || stringData === null) {
    delete obj.stringData;
    return;
  }
  if (!isJsonObject(stringData)) {
    throw new FakeApiError(
      badRequest("Secret stringData must be a map of strings"),
    );
  }
  const data: Record<string, unknown> = isJsonObject(obj.data)
    ? { ...obj.data }
    : {};
  for (const [key, value] of Object.entries(stringData)) {
    if (typeof value !== "string") {
      throw new FakeApiError(
        badRequest(
          `Secret stringData[${JSON.stringify(key)}] must be a string, got ${
            JSON.stringify(value)
          }`,
        ),
      );
    }
    data[key] = base64(value);
  }
  obj.data = data;
  delete obj.stringData;
}

function base64(text: string): string {
  let binary = "";
  for (const byte of new TextEncoder().encode(text)) {
    binary += String.fromCharCode(byte);
  }
  return btoa(binary);
}
