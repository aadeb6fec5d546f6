/**
 * Server-side apply (`PATCH` with `application/apply-patch+yaml`) in the
 * fake: the object is created when absent, else the configuration is
 * merged into it, the fields its manager set before and no longer sets
 * are removed (unless another manager owns them too), and a field
 * another manager owns with another value is a 409 conflict unless
 * `force`. Ownership is kept in `metadata.managedFields`.
 *
 * @module
 */
import type { KubeObject } from "../types.ts";
import { parseYaml } from "../client/_yaml.ts";
import { isJsonObject, jsonEqual } from "./_json.ts";
import { isBuiltin } from "./_registry.ts";
import { type ResourceRoute, type ServerCore, TRUE } from "./_request_util.ts";
import { checkDecodable } from "./_decode.ts";
import { badRequest, failure, invalid, notFound } from "./_status.ts";
import { FakeApiError } from "./fake_api_error.ts";
import {
  describePath,
  entriesOf,
  entry,
  fieldSet,
  fromFieldsV1,
  listKeysFor,
  type ManagedFieldsEntry,
  mergeApplied,
  removeAt,
  sameEntry,
  toFieldsV1,
  valueAt,
} from "./_managed_fields.ts";

type Json = Record<string, unknown>;

/** Applies one request; the object as stored and whether it was created. */
export async function apply(
  core: ServerCore,
  route: ResourceRoute,
  request: Request,
  q: URLSearchParams,
  options: { dryRun: boolean },
): Promise<{ created: boolean; object: KubeObject }> {
  const { info, name, subresource } = route;
  const namespace = route.namespace ?? "";
  const manager = q.get("fieldManager") ?? "";
  if (manager === "") {
    throw new FakeApiError(invalid("PatchOptions", "meta.k8s.io", "", [{
      reason: "FieldValueRequired",
      message: "Required value: is required for apply patch",
      field: "fieldManager",
    }]));
  }
  const force = TRUE.has(q.get("force") ?? "");
  const config = await readConfig(request);
  const { apiVersion, kind } = config;
  if (
    typeof apiVersion !== "string" || !apiVersion || typeof kind !== "string" ||
    !kind
  ) {
    throw new FakeApiError(badRequest(
      `invalid object type: ${
        typeof apiVersion === "string" ? apiVersion : ""
      }, Kind=${typeof kind === "string" ? kind : ""}`,
    ));
  }
  checkDecodable(info, config);
  const meta: Json = isJsonObject(config.metadata)
    ? { ...config.metadata }
    : {};
  if (meta.name === undefined || meta.name === "") meta.name = name;
  else if (meta.name !== name) {
    throw new FakeApiError(badRequest(
      `the name of the object (${meta.name}) does not match the name on the URL (${name})`,
    ));
  }
  const sub = subresource ?? "";
  // A write of the object ignores its status, a write of the status all
  // but the status, as each strategy of kube-apiserver resets the rest.
  let applied: Json = { ...config, metadata: meta };
  if (sub === "status") {
    applied = { apiVersion, kind, metadata: { name: meta.name } };
    if (config.status !== undefined) applied.status = config.status;
  } else if (info.statusSubresource) delete applied.status;

  const keys = listKeysFor(info.kind, isBuiltin(info));
  const owned = fieldSet(applied, keys);
  const time = timestamp(core.clock.now());
  const store = core.store;
  const existing = store.table(info).objects.get(
    store.objectKey(info, namespace, name!),
  );
  if (!existing) {
    if (sub) throw new FakeApiError(notFound(info, name!));
    const body = {
      ...applied,
      metadata: {
        ...meta,
        managedFields: [
          entry(manager, "Apply", "", info.apiVersion, time, owned),
        ],
      },
    };
    return {
      created: true,
      object: store.create(info, body, {
        namespace,
        owned: true,
        strict: true,
        dryRun: options.dryRun,
      }),
    };
  }

  const entries = entriesOf(existing);
  const conflicts: [manager: string, path: string][] = [];
  const others: { e: ManagedFieldsEntry; owned: Set<string> }[] = [];
  let previous = new Set<string>();
  for (const e of entries) {
    const theirs = fromFieldsV1(e.fieldsV1);
    if (sameEntry(e, manager, "Apply", sub)) {
      previous = theirs;
      continue;
    }
    for (const path of owned) {
      // A keyed element itself agrees whenever its key does.
      if (!theirs.has(path) || isElement(path)) continue;
      if (!jsonEqual(valueAt(existing, path), valueAt(applied, path))) {
        if (force) theirs.delete(path);
        else conflicts.push([e.manager, path]);
      }
    }
    others.push({ e, owned: theirs });
  }
  if (conflicts.length > 0) throw new FakeApiError(conflictStatus(conflicts));

  const { managedFields: _, ...storedMeta } = existing.metadata;
  let merged = mergeApplied(
    { ...existing, metadata: storedMeta },
    applied,
    keys,
  );
  for (const path of previous) {
    if (owned.has(path)) continue;
    if (others.some((o) => o.owned.has(path))) continue;
    merged = removeAt(merged, path);
  }
  const unchanged = previous.size === owned.size &&
    [...owned].every((path) => previous.has(path)) &&
    jsonEqual(merged, { ...existing, metadata: storedMeta });
  // In their order, so that an apply that changes nothing writes nothing.
  const managedFields: ManagedFieldsEntry[] = [];
  let placed = false;
  for (const e of entries) {
    if (sameEntry(e, manager, "Apply", sub)) {
      placed = true;
      managedFields.push(
        unchanged
          ? e
          : entry(manager, "Apply", sub, info.apiVersion, time, owned),
      );
      continue;
    }
    const theirs = others.find((o) => o.e === e)!.owned;
    if (theirs.size > 0) {
      managedFields.push({ ...e, fieldsV1: toFieldsV1(theirs) });
    }
  }
  if (!placed) {
    managedFields.push(
      entry(manager, "Apply", sub, info.apiVersion, time, owned),
    );
  }
  const mergedMeta = merged.metadata as Json;
  // An apply's resourceVersion is a precondition, as an update's is.
  mergedMeta.resourceVersion = meta.resourceVersion ??
    existing.metadata.resourceVersion;
  return {
    created: false,
    object: store.update(info, merged, {
      namespace,
      name,
      owned: true,
      subresource,
      strict: true,
      dryRun: options.dryRun,
      managedFields,
    }),
  };
}

function isElement(path: string): boolean {
  const last = path.slice(path.lastIndexOf("\u0000") + 1);
  return last.startsWith("k:");
}

async function readConfig(request: Request): Promise<Json> {
  const text = await request.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    try {
      body = parseYaml(text);
    } catch (err) {
      throw new FakeApiError(badRequest(
        `the apply configuration is neither JSON nor YAML: ${
          (err as Error).message
        }`,
      ));
    }
  }
  if (!isJsonObject(body)) {
    throw new FakeApiError(
      badRequest("the apply configuration must be an object"),
    );
  }
  return body;
}

function conflictStatus(conflicts: [string, string][]) {
  const described = conflicts.map(([manager, path]) =>
    `conflict with ${JSON.stringify(manager)}: ${describePath(path)}`
  );
  const n = conflicts.length;
  return failure(
    409,
    `Apply failed with ${n} conflict${n === 1 ? "" : "s"}: ${
      described.join("\n")
    }`,
    {
      reason: "Conflict",
      details: {
        causes: conflicts.map(([manager, path]) => ({
          reason: "FieldManagerConflict",
          message: `conflict with ${JSON.stringify(manager)}`,
          field: describePath(path),
        })),
      },
    },
  );
}

/** RFC 3339 to the second, as metav1.Time is written. */
function timestamp(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d+Z$/, "Z");
}
