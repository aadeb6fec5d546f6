import type { Clock } from "../clock.ts";
import type { KubeObject, ObjectMeta } from "../types.ts";
import { EventHistory, type HistoryEntry } from "./_history.ts";
import { isJsonObject, jsonEqual } from "./_json.ts";
import { gvrKey, isBuiltin } from "./_registry.ts";
import {
  alreadyExists,
  badRequest,
  conflict,
  failure,
  invalid,
  notFound,
  preconditionFailed,
} from "./_status.ts";
import { FakeApiError } from "./fake_api_error.ts";
import type { ResourceInfo } from "./resources.ts";
import { validateContent, validateIdentity } from "./_validation.ts";
import { generationChanged } from "./_generation.ts";
import { foldStringData, isSecret } from "./_secret.ts";
import {
  changedPaths,
  entriesOf,
  listKeysFor,
  type ManagedFieldsEntry,
  recordUpdate,
} from "./_managed_fields.ts";

/** The objects of one resource type, with their keys kept sortable. */
export class ObjectTable {
  readonly info: ResourceInfo;
  readonly gvrKey: string;
  readonly objects: Map<string, KubeObject> = new Map();
  #sorted: string[] | undefined;

  constructor(info: ResourceInfo) {
    this.info = info;
    this.gvrKey = gvrKey(info);
  }

  /** Keys in the order etcd would return them; cached until a key is added or removed. */
  sortedKeys(): string[] {
    return this.#sorted ??= [...this.objects.keys()].sort(compareKeys);
  }

  put(key: string, obj: KubeObject): void {
    if (!this.objects.has(key)) this.#sorted = undefined;
    this.objects.set(key, obj);
  }

  remove(key: string): void {
    if (this.objects.delete(key)) this.#sorted = undefined;
  }
}

function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The first index in sorted `keys` whose key is `>= key` (or `> key` when `after`). */
function bound(keys: string[], key: string, after: boolean): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (keys[mid] < key || (after && keys[mid] === key)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Options of {@linkcode ObjectStore.create}. */
export interface CreateOptions {
  /** Namespace from the request URL, which the body must agree with. */
  namespace?: string;
  /** The input is a fresh parse that the store may keep without copying. */
  owned?: boolean;
  /**
   * HTTP semantics: reject a body carrying a resourceVersion, drop the
   * status of a type with a status subresource, validate labels,
   * annotations and data keys.
   */
  strict?: boolean;
  /** Check and answer the write, store nothing (`dryRun=All`). */
  dryRun?: boolean;
}

/** Options of {@linkcode ObjectStore.update}. */
export interface UpdateOptions {
  /** Namespace and name from the request URL, which the body must agree with. */
  namespace?: string;
  name?: string;
  owned?: boolean;
  /** `status` updates only the status; others are rejected. */
  subresource?: string;
  /**
   * HTTP semantics: a missing resourceVersion is refused unless the type
   * allows unconditional updates, a write to the object itself keeps the
   * stored status of a type with a status subresource, and labels,
   * annotations and data keys are validated.
   */
  strict?: boolean;
  /** Check and answer the write, store nothing (`dryRun=All`). */
  dryRun?: boolean;
  /**
   * The `metadata.managedFields` to store (a server-side apply's); without
   * it, an object that has them records the write as `fieldManager`'s
   * `Update`.
   */
  managedFields?: ManagedFieldsEntry[];
  /** Who writes, for `metadata.managedFields`. */
  fieldManager?: string;
}

/** Options of {@linkcode ObjectStore.delete}. */
export interface DeleteOptions {
  /** The object must still have these (DeleteOptions' `preconditions`). */
  preconditions?: { resourceVersion?: string; uid?: string };
  /** Check and answer the delete, change nothing (`dryRun=All`). */
  dryRun?: boolean;
}

const NAME_ALPHABET = "bcdfghjklmnpqrstvwxz2456789";

/**
 * Objects by resource type under one global, increasing resourceVersion,
 * with the bounded history of writes. Every write reports its history
 * entry to `onChange` synchronously, so watches see writes in order.
 * Stored objects are never mutated: a write replaces them.
 */
export class ObjectStore {
  readonly history: EventHistory;
  #rv = 0;
  #tables = new Map<string, ObjectTable>();
  #clock: Clock;
  #onChange: (entry: HistoryEntry) => void;
  #generated = 0;

  constructor(options: {
    clock: Clock;
    historyLimit: number;
    initialRv: number;
    onChange: (entry: HistoryEntry) => void;
  }) {
    this.#clock = options.clock;
    this.history = new EventHistory(options.historyLimit);
    this.#rv = options.initialRv;
    // Nothing happened before the start, so nothing before it can be resumed.
    this.history.compact(options.initialRv);
    this.#onChange = options.onChange;
  }

  /** The newest resourceVersion. */
  get rv(): number {
    return this.#rv;
  }

  /** The table of a type, created on first use. */
  table(info: ResourceInfo): ObjectTable {
    const key = gvrKey(info);
    let table = this.#tables.get(key);
    if (!table || table.info !== info) {
      const replaced = table;
      table = new ObjectTable(info);
      if (replaced) {
        for (const [k, v] of replaced.objects) table.put(k, v);
      }
      this.#tables.set(key, table);
    }
    return table;
  }

  /** The object key: `namespace/name` for namespaced types, else `name`. */
  objectKey(info: ResourceInfo, namespace: string, name: string): string {
    return info.namespaced ? `${namespace}/${name}` : name;
  }

  get(info: ResourceInfo, namespace: string, name: string): KubeObject {
    const obj = this.table(info).objects.get(
      this.objectKey(info, namespace, name),
    );
    if (!obj) throw new FakeApiError(notFound(info, name));
    return obj;
  }

  create(
    info: ResourceInfo,
    input: unknown,
    options: CreateOptions = {},
  ): KubeObject {
    const body = this.#ownedBody(info, input, options.owned);
    const meta = body.metadata as ObjectMeta;
    const namespace = this.#namespaceFor(info, meta, options.namespace);
    if (options.strict && meta.resourceVersion) {
      throw new FakeApiError(
        failure(
          500,
          "resourceVersion should not be set on objects to be created",
        ),
      );
    }
    if (
      !meta.name && typeof meta.generateName === "string" && meta.generateName
    ) {
      meta.name = meta.generateName + this.#nameSuffix();
    }
    validateIdentity(
      info,
      meta,
      namespace,
      options.strict ? { ...body, metadata: meta } as KubeObject : undefined,
    );
    const name = meta.name as string;
    const metadata: ObjectMeta = { ...meta, name };
    if (info.namespaced) metadata.namespace = namespace;
    else delete metadata.namespace;
    metadata.uid = crypto.randomUUID();
    metadata.resourceVersion = String(this.#rv + 1);
    if (info.generation !== false) metadata.generation = 1;
    else delete metadata.generation;
    metadata.creationTimestamp = this.#timestamp();
    delete metadata.deletionTimestamp;
    delete metadata.deletionGracePeriodSeconds;
    const obj = withTypeMeta(info, body, metadata);
    if (options.strict && info.statusSubresource) delete obj.status;
    if (isSecret(info)) foldStringData(obj);
    // kube-apiserver validates before it looks for the object in storage.
    if (options.strict) validateContent(info, obj);
    const table = this.table(info);
    const key = this.objectKey(info, namespace, name);
    if (table.objects.has(key)) {
      throw new FakeApiError(alreadyExists(info, name));
    }
    if (options.dryRun) {
      // Nothing was written, so there is no version to answer.
      delete metadata.resourceVersion;
      return obj;
    }
    this.#rv++;
    table.put(key, obj);
    this.#record(table, key, "ADDED", obj, undefined);
    return obj;
  }

  update(
    info: ResourceInfo,
    input: unknown,
    options: UpdateOptions = {},
  ): KubeObject {
    const body = this.#ownedBody(info, input, options.owned);
    const meta = body.metadata as ObjectMeta;
    const namespace = this.#namespaceFor(info, meta, options.namespace);
    if (options.name !== undefined && meta.name !== options.name) {
      if (!meta.name) meta.name = options.name;
      else {
        throw new FakeApiError(
          badRequest(
            `the name of the object (${meta.name}) does not match the name on the URL (${options.name})`,
          ),
        );
      }
    }
    if (typeof meta.name !== "string" || meta.name === "") {
      throw new FakeApiError(
        invalid(info.kind, info.group, "", [{
          reason: "FieldValueRequired",
          message: "Required value: name is required",
          field: "metadata.name",
        }]),
      );
    }
    const table = this.table(info);
    const key = this.objectKey(info, namespace, meta.name);
    const existing = table.objects.get(key);
    if (!existing) throw new FakeApiError(notFound(info, meta.name));
    const rv = meta.resourceVersion;
    if (rv !== undefined && rv !== null && rv !== "") {
      if (rv !== existing.metadata.resourceVersion) {
        throw new FakeApiError(conflict(info, meta.name));
      }
    } else if (options.strict && !info.allowUnconditionalUpdate) {
      throw new FakeApiError(
        invalid(info.resource, info.group, meta.name, [{
          reason: "FieldValueInvalid",
          message: "Invalid value: 0: must be specified for an update",
          field: "metadata.resourceVersion",
        }]),
      );
    }
    if (options.subresource === "status" && info.statusSubresource) {
      const next = { ...existing, status: body.status };
      if (body.status === undefined) delete next.status;
      this.#ownership(info, existing, next, undefined, options);
      return this.#replace(table, key, existing, next, {
        dryRun: options.dryRun,
      });
    }
    if (options.subresource) {
      throw new FakeApiError(
        failure(404, `the server could not find the requested resource`),
      );
    }
    // Identity and server-owned fields come from the stored object.
    const metadata: ObjectMeta = {
      ...meta,
      namespace: existing.metadata.namespace,
      uid: existing.metadata.uid,
      creationTimestamp: existing.metadata.creationTimestamp,
    };
    if (!info.namespaced) delete metadata.namespace;
    for (
      const field of [
        "deletionTimestamp",
        "deletionGracePeriodSeconds",
      ] as const
    ) {
      if (existing.metadata[field] !== undefined) {
        metadata[field] = existing.metadata[field];
      } else delete metadata[field];
    }
    const next = withTypeMeta(info, body, metadata);
    if (options.strict && info.statusSubresource) {
      if (existing.status === undefined) delete next.status;
      else next.status = existing.status;
    }
    if (isSecret(info)) foldStringData(next);
    if (options.strict) validateContent(info, next);
    this.#ownership(info, existing, next, meta.managedFields, options);
    return this.#replace(table, key, existing, next, {
      bumpGeneration: generationChanged(info, existing, next),
      dryRun: options.dryRun,
    });
  }

  /**
   * Applies `change` (a merge, strategic merge or JSON patch) to the
   * stored object and writes the result as an update: a resourceVersion
   * the patch sets is a precondition, as in Kubernetes.
   */
  patch(
    info: ResourceInfo,
    namespace: string,
    name: string,
    change: (existing: KubeObject) => unknown,
    options: {
      subresource?: string;
      strict?: boolean;
      dryRun?: boolean;
      fieldManager?: string;
    } = {},
  ): KubeObject {
    const existing = this.get(info, namespace, name);
    const patched = change(existing);
    if (!isJsonObject(patched)) {
      throw new FakeApiError(
        invalid(info.kind, info.group, name, [{
          reason: "FieldValueInvalid",
          message: "Invalid value: the patched object is not a JSON object",
          field: "<root>",
        }]),
      );
    }
    const meta = isJsonObject(patched.metadata) ? { ...patched.metadata } : {};
    for (const field of ["name", "namespace"] as const) {
      if (meta[field] !== existing.metadata[field]) {
        throw new FakeApiError(
          badRequest(`metadata.${field} cannot be changed by a patch`),
        );
      }
    }
    return this.update(info, { ...patched, metadata: meta }, {
      namespace,
      name,
      owned: true,
      subresource: options.subresource,
      strict: options.strict,
      dryRun: options.dryRun,
      fieldManager: options.fieldManager,
    });
  }

  /**
   * Deletes an object, or, when it has finalizers, marks it with a
   * `deletionTimestamp`; it goes once an update empties its finalizers.
   */
  delete(
    info: ResourceInfo,
    namespace: string,
    name: string,
    options: DeleteOptions = {},
  ): KubeObject {
    const table = this.table(info);
    const key = this.objectKey(info, namespace, name);
    const existing = table.objects.get(key);
    if (!existing) throw new FakeApiError(notFound(info, name));
    checkPreconditions(info, existing, options.preconditions ?? {});
    const finalizers = existing.metadata.finalizers;
    if (Array.isArray(finalizers) && finalizers.length > 0) {
      if (existing.metadata.deletionTimestamp) return existing;
      const next = {
        ...existing,
        metadata: {
          ...existing.metadata,
          deletionTimestamp: this.#timestamp(),
          deletionGracePeriodSeconds: 0,
        },
      };
      // Marking for deletion bumps the generation (of types that keep
      // one), so that generation-based change checks see it.
      return this.#replace(table, key, existing, next, {
        bumpGeneration: true,
        dryRun: options.dryRun,
      });
    }
    if (options.dryRun) return existing;
    return this.#remove(table, key, existing, existing);
  }

  /** Forgets the history so that only the current version can be resumed. */
  compact(): void {
    this.history.compact(this.#rv);
  }

  /**
   * The objects of `table` as they were at version `atRv`, in key order,
   * restricted to keys starting with `prefix` and after `afterKey`. The
   * caller checks first that the history covers `atRv`.
   */
  *snapshot(
    table: ObjectTable,
    atRv: number,
    prefix: string,
    afterKey: string | undefined,
  ): Generator<[string, KubeObject]> {
    const keys = table.sortedKeys();
    const useAfter = afterKey !== undefined && afterKey >= prefix;
    let i = useAfter ? bound(keys, afterKey, true) : bound(keys, prefix, false);
    const inRange = (key: string) =>
      key.startsWith(prefix) && (!useAfter || key > afterKey);

    // States at `atRv` of keys written since, oldest write last so it wins.
    const overlay = new Map<string, KubeObject | null>();
    if (atRv < this.#rv) {
      for (const entry of this.history.newestFirstAfter(atRv)) {
        if (entry.gvrKey === table.gvrKey) {
          overlay.set(entry.key, entry.prev ?? null);
        }
      }
    }
    if (overlay.size === 0) {
      for (; i < keys.length && keys[i].startsWith(prefix); i++) {
        yield [keys[i], table.objects.get(keys[i])!];
      }
      return;
    }
    // Objects deleted since `atRv` are missing from `keys`; merge them in.
    const extra: string[] = [];
    for (const [key, state] of overlay) {
      if (state && !table.objects.has(key) && inRange(key)) extra.push(key);
    }
    extra.sort(compareKeys);
    let j = 0;
    for (;;) {
      const current = i < keys.length && keys[i].startsWith(prefix)
        ? keys[i]
        : undefined;
      const deleted = j < extra.length ? extra[j] : undefined;
      if (current === undefined && deleted === undefined) return;
      if (
        deleted !== undefined && (current === undefined || deleted < current)
      ) {
        j++;
        yield [deleted, overlay.get(deleted)!];
        continue;
      }
      i++;
      const state = overlay.has(current!)
        ? overlay.get(current!)
        : table.objects.get(current!);
      if (state) yield [current!, state];
    }
  }

  /**
   * Sets `next`'s managedFields: an apply's as given; else, once an
   * object has them (only a server-side apply starts them in the fake),
   * the write's changes pass to its manager's `Update` entry. A body's own
   * managedFields replace the stored ones, as kube-apiserver takes them.
   */
  #ownership(
    info: ResourceInfo,
    existing: KubeObject,
    next: KubeObject,
    given: unknown,
    options: UpdateOptions,
  ): void {
    if (options.managedFields) {
      next.metadata = {
        ...next.metadata,
        managedFields: options.managedFields,
      };
      return;
    }
    const base = Array.isArray(given)
      ? entriesOf({ metadata: { managedFields: given } })
      : entriesOf(existing);
    if (base.length === 0) return;
    const { managedFields: _a, ...before } = existing.metadata;
    const { managedFields: _b, ...after } = next.metadata;
    const changed = changedPaths(
      { ...existing, metadata: before },
      { ...next, metadata: after },
      listKeysFor(info.kind, isBuiltin(info)),
    );
    next.metadata = {
      ...next.metadata,
      managedFields: recordUpdate(
        base,
        changed,
        options.fieldManager || "unknown",
        options.subresource ?? "",
        info.apiVersion,
        this.#timestamp(),
      ),
    };
  }

  #replace(
    table: ObjectTable,
    key: string,
    existing: KubeObject,
    next: KubeObject,
    how: { bumpGeneration?: boolean; dryRun?: boolean },
  ): KubeObject {
    const meta: ObjectMeta = {
      ...next.metadata,
      resourceVersion: existing.metadata.resourceVersion,
    };
    if (table.info.generation !== false) {
      const gen = typeof existing.metadata.generation === "number"
        ? existing.metadata.generation
        : 1;
      meta.generation = how.bumpGeneration ? gen + 1 : gen;
    } else delete meta.generation;
    const candidate = { ...next, metadata: meta };
    // A no-op write changes nothing and sends no event, as in Kubernetes.
    if (jsonEqual(candidate, existing)) return existing;
    // A dry run answers what would be stored, at the stored version.
    if (how.dryRun) return candidate;

    const finalizers = meta.finalizers;
    if (
      meta.deletionTimestamp &&
      (!Array.isArray(finalizers) || finalizers.length === 0)
    ) {
      return this.#remove(table, key, existing, candidate);
    }
    meta.resourceVersion = String(++this.#rv);
    table.put(key, candidate);
    this.#record(table, key, "MODIFIED", candidate, existing);
    return candidate;
  }

  #remove(
    table: ObjectTable,
    key: string,
    existing: KubeObject,
    last: KubeObject,
  ): KubeObject {
    const rv = ++this.#rv;
    const final = {
      ...last,
      metadata: { ...last.metadata, resourceVersion: String(rv) },
    };
    table.remove(key);
    this.#record(table, key, "DELETED", final, existing);
    return final;
  }

  #record(
    table: ObjectTable,
    key: string,
    type: HistoryEntry["type"],
    object: KubeObject,
    prev: KubeObject | undefined,
  ): void {
    const entry: HistoryEntry = {
      rv: this.#rv,
      gvrKey: table.gvrKey,
      key,
      type,
      object,
      prev,
    };
    this.history.push(entry);
    this.#onChange(entry);
  }

  #ownedBody(
    info: ResourceInfo,
    input: unknown,
    owned: boolean | undefined,
  ): KubeObject {
    if (!isJsonObject(input)) {
      throw new FakeApiError(
        badRequest(
          `the body of the request must be a ${info.kind} object, got ${
            input === null
              ? "null"
              : Array.isArray(input)
              ? "an array"
              : typeof input
          }`,
        ),
      );
    }
    const body = (owned ? { ...input } : structuredClone(input)) as KubeObject;
    if (body.metadata === undefined || body.metadata === null) {
      body.metadata = {};
    } else if (!isJsonObject(body.metadata)) {
      throw new FakeApiError(badRequest("metadata must be an object"));
    } else if (owned) {
      body.metadata = { ...body.metadata };
    }
    return body;
  }

  #namespaceFor(
    info: ResourceInfo,
    meta: ObjectMeta,
    fromUrl: string | undefined,
  ): string {
    if (!info.namespaced) return "";
    if (fromUrl !== undefined) {
      if (meta.namespace && meta.namespace !== fromUrl) {
        throw new FakeApiError(
          badRequest(
            "the namespace of the provided object does not match the namespace sent on the request",
          ),
        );
      }
      return fromUrl;
    }
    return typeof meta.namespace === "string" && meta.namespace
      ? meta.namespace
      : "default";
  }

  /** Five characters from Kubernetes' generateName alphabet, deterministic per store. */
  #nameSuffix(): string {
    let n = this.#generated++ * 7_919 + 104_729;
    let suffix = "";
    for (let i = 0; i < 5; i++) {
      suffix += NAME_ALPHABET[n % NAME_ALPHABET.length];
      n = Math.floor(n / NAME_ALPHABET.length);
    }
    return suffix;
  }

  #timestamp(): string {
    return new Date(this.#clock.now()).toISOString().replace(/\.\d+Z$/, "Z");
  }
}

/** 409 when the object no longer has the version or uid a delete expects. */
function checkPreconditions(
  info: ResourceInfo,
  existing: KubeObject,
  expected: { resourceVersion?: string; uid?: string },
): void {
  const { resourceVersion, uid } = existing.metadata;
  const name = existing.metadata.name ?? "";
  if (expected.uid && expected.uid !== uid) {
    throw new FakeApiError(preconditionFailed(
      info,
      name,
      `the UID in the precondition (${expected.uid}) does not match the UID in record (${uid}). The object might have been deleted and then recreated`,
    ));
  }
  if (
    expected.resourceVersion && expected.resourceVersion !== resourceVersion
  ) {
    throw new FakeApiError(preconditionFailed(
      info,
      name,
      `the ResourceVersion in the precondition (${expected.resourceVersion}) does not match the ResourceVersion in record (${resourceVersion}). The object might have been modified`,
    ));
  }
}

function withTypeMeta(
  info: ResourceInfo,
  body: KubeObject,
  metadata: ObjectMeta,
): KubeObject {
  const { apiVersion: _a, kind: _k, metadata: _m, ...rest } = body;
  return { apiVersion: info.apiVersion, kind: info.kind, metadata, ...rest };
}
