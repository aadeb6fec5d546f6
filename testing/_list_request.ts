import type { KubeObject } from "../types.ts";
import { decodeContinue, encodeContinue } from "./_continue_token.ts";
import {
  filterOf,
  forbidden,
  integerParam,
  json,
  type ResourceRoute,
  resourceVersionParam,
  type ServerCore,
  shardOf,
  tableResponse,
} from "./_request_util.ts";
import {
  continueExpired,
  invalid,
  type StatusCause,
  tooLarge,
  tooOld,
} from "./_status.ts";
import { includeObjectParam, toTable } from "./kubectl/_table.ts";
import { type OutputForm, toMetadataForm } from "./_media_type.ts";
import { FakeApiError } from "./fake_api_error.ts";
import { isBuiltin } from "./_registry.ts";

export function list(
  core: ServerCore,
  route: ResourceRoute,
  q: URLSearchParams,
  form: OutputForm,
): Response {
  const { info } = route;
  const store = core.store;
  const filter = filterOf(info, q, core);
  const shard = shardOf(core, q);
  // Zero or less is no limit, as kube-apiserver reads it.
  const limit = integerParam(q, "limit") ?? 0;
  // Without a selector every item counts, so the server can say how many
  // are left (with one, it would have to match them all).
  const countsRemaining = !q.get("labelSelector")?.trim() &&
    !q.get("fieldSelector")?.trim() && shard === undefined;
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
  let remaining = 0;
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
      remaining++;
      if (countsRemaining) continue;
      break;
    }
    items.push(obj);
    lastKey = key;
  }
  const metadata: Record<string, unknown> = {
    resourceVersion: String(snapshotRv),
  };
  // As kube-apiserver with ShardedListAndWatch says it applied the shard.
  if (shard !== undefined) metadata.shardInfo = { selector: shard.selector };
  if (remaining > 0) {
    metadata.continue = encodeContinue({
      rv: snapshotRv,
      after: lastKey!,
      epoch: core.continueEpoch,
    });
    if (countsRemaining) metadata.remainingItemCount = remaining;
  }
  if (form.as === "Table") {
    return tableResponse(
      toTable(
        items,
        core.clock.now(),
        includeObjectParam(q.get("includeObject")),
        metadata,
        form.apiVersion,
      ),
    );
  }
  return json(
    200,
    toMetadataForm({
      kind: info.listKind,
      apiVersion: info.apiVersion,
      metadata,
      items: isBuiltin(info) ? items.map(untyped) : items,
    }, form),
  );
}

/**
 * An item of a LIST of a built-in type as kube-apiserver sends it: without
 * `apiVersion` and `kind`, which the list names (a custom resource's items,
 * stored as unstructured, keep them).
 */
function untyped(obj: KubeObject): KubeObject {
  const { apiVersion: _apiVersion, kind: _kind, ...rest } = obj;
  return rest as KubeObject;
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
