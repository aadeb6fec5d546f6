import { isJsonObject } from "./_json.ts";
import { invalid } from "./_status.ts";
import { FakeApiError } from "./fake_api_error.ts";

/** The options type of a write, as kube-apiserver names it in a 422. */
export type WriteOptionsKind =
  | "CreateOptions"
  | "UpdateOptions"
  | "PatchOptions"
  | "DeleteOptions";

/**
 * Whether a write asks for a dry run: `dryRun=All` (the query may repeat
 * it), checked and answered as if done without storing anything. Any
 * other value, an empty one included, is 422 Invalid against the write's
 * options, as kube-apiserver answers.
 */
export function dryRunOf(values: string[], kind: WriteOptionsKind): boolean {
  if (values.length === 0) return false;
  if (values.every((value) => value === "All")) return true;
  throw new FakeApiError(invalid(kind, "meta.k8s.io", "", [{
    reason: "FieldValueNotSupported",
    field: "dryRun",
    message: `Unsupported value: ${
      JSON.stringify(values)
    }: supported values: "All"`,
  }]));
}

/** The `dryRun` of a `DeleteOptions` body (`kubectl delete --dry-run=server`). */
export function dryRunValues(body: unknown): string[] {
  if (!isJsonObject(body) || !Array.isArray(body.dryRun)) return [];
  return body.dryRun.map(String);
}
