/**
 * `ResourceClient<T>`: the writes (and reads) of one resource on a
 * `RestClient`, typed as the caller's model.
 *
 * @module
 */
import type { KubeObject, KubeObjectLike, ReadonlyFields } from "../types.ts";
import { collectionPath, type JsonValue, objectPath } from "./rest_client.ts";
import { typedApiError } from "./api_error.ts";
import { ResourceClientConfigError } from "./errors.ts";
import {
  type CallPlan,
  planCall,
  planResourceClient,
  type ResourceClientPlan,
  type Verb,
} from "./_resource_client_plan.ts";
import type {
  ApplyConfiguration,
  ApplyOptions,
  CallOptions,
  DeleteOptions,
  JsonPatchOperation,
  ListOptions,
  PatchOptions,
  ResourceClientOptions,
  ResourceList,
  WriteOptions,
} from "./resource_client_options.ts";

/**
 * An object as a write takes it: the model itself, or a read-only one as
 * a watcher's store hands out.
 *
 * @example Writing back what a store handed out
 * ```ts
 * import type { Writable } from "@haptic/k8s-watcher/client";
 *
 * type ConfigMap = { metadata?: { name?: string }; data?: Record<string, string> };
 * const fromStore: Writable<ConfigMap> = { metadata: { name: "a" }, data: { mode: "fast" } } as const;
 * ```
 */
export type Writable<T> = T | ReadonlyFields<T>;

/**
 * A patch body: an object (merge, strategic) or JSON patch operations.
 *
 * @example A JSON patch
 * ```ts
 * import type { PatchBody } from "@haptic/k8s-watcher/client";
 *
 * const patch: PatchBody = [{ op: "replace", path: "/data/mode", value: "slow" }];
 * ```
 */
export type PatchBody =
  | Readonly<Record<string, unknown>>
  | readonly JsonPatchOperation[];

/**
 * The reads and writes of one resource (`gvr`) through a `RestClient`:
 * `get`, `list`, `create`, `replace`, `patch` (merge, JSON, strategic),
 * server-side `apply`, `delete` with preconditions, and the same on the
 * `status` subresource. `T` is the caller's model (`V1ConfigMap` of
 * `@kubernetes/client-node`, or one's own type); answers are typed as it,
 * and are not checked against it.
 *
 * A 409, 404 or 422 is a {@linkcode ConflictError} (an
 * {@linkcode AlreadyExistsError} for a create of a taken name),
 * {@linkcode NotFoundError} or {@linkcode InvalidError} (with the server's
 * `causes`); every other failure is what the client threw (an `ApiError`
 * for any other answer). Wrong options are a
 * {@linkcode ResourceClientConfigError}, thrown before anything is sent.
 *
 * @example Create, read, patch and delete a ConfigMap
 * ```ts
 * import { FetchClient } from "@haptic/k8s-watcher";
 * import { NotFoundError, ResourceClient } from "@haptic/k8s-watcher/client";
 * import { FakeApiServer, mockFetch } from "@haptic/k8s-watcher/testing";
 * import assert from "node:assert/strict";
 *
 * type ConfigMap = {
 *   apiVersion?: string;
 *   kind?: string;
 *   metadata?: { name?: string; namespace?: string; resourceVersion?: string };
 *   data?: Record<string, string>;
 * };
 * await using server = new FakeApiServer();
 * using _fetch = mockFetch(server);
 * using client = new FetchClient({ server: server.url });
 * const configMaps = new ResourceClient<ConfigMap>({
 *   client,
 *   gvr: { group: "", version: "v1", resource: "configmaps" },
 *   namespace: "shop",
 * });
 * await configMaps.create({ metadata: { name: "settings" }, data: { mode: "slow" } });
 * await configMaps.patch("settings", { data: { mode: "fast" } });
 * assert.equal((await configMaps.get("settings")).data?.mode, "fast");
 * await configMaps.delete("settings");
 * await assert.rejects(configMaps.get("settings"), NotFoundError);
 * ```
 *
 * @typeParam T The objects: any type with an optional `metadata`.
 */
export class ResourceClient<T extends KubeObjectLike = KubeObject> {
  #plan: ResourceClientPlan;

  /**
   * Checks the options; a wrong one is a
   * {@linkcode ResourceClientConfigError}.
   *
   * @example Deployments of every namespace
   * ```ts
   * import { FetchClient } from "@haptic/k8s-watcher";
   * import { ResourceClient } from "@haptic/k8s-watcher/client";
   *
   * using client = new FetchClient({ server: "https://127.0.0.1:6443" });
   * const deployments = new ResourceClient({ client, gvr: { group: "apps", version: "v1", resource: "deployments" } });
   * console.log(deployments.gvr.resource); // "deployments"
   * ```
   *
   * @param options The client, the resource and a default namespace.
   */
  constructor(options: ResourceClientOptions) {
    this.#plan = planResourceClient(options);
  }

  /**
   * The resource this client reads and writes.
   *
   * @example
   * ```ts
   * import { FetchClient } from "@haptic/k8s-watcher";
   * import { ResourceClient } from "@haptic/k8s-watcher/client";
   *
   * using client = new FetchClient({ server: "https://127.0.0.1:6443" });
   * const pods = new ResourceClient({ client, gvr: { group: "", version: "v1", resource: "pods" } });
   * console.log(pods.gvr); // { group: "", version: "v1", resource: "pods" }
   * ```
   */
  get gvr(): {
    readonly group: string;
    readonly version: string;
    readonly resource: string;
  } {
    return this.#plan.gvr;
  }

  /**
   * Reads one object.
   *
   * @example A missing object is a NotFoundError
   * ```ts
   * import { FetchClient } from "@haptic/k8s-watcher";
   * import { NotFoundError, ResourceClient } from "@haptic/k8s-watcher/client";
   * import { FakeApiServer, mockFetch } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * await using server = new FakeApiServer();
   * using _fetch = mockFetch(server);
   * using client = new FetchClient({ server: server.url });
   * const secrets = new ResourceClient({ client, gvr: { group: "", version: "v1", resource: "secrets" } });
   * await assert.rejects(secrets.get("creds", { namespace: "shop" }), NotFoundError);
   * ```
   *
   * @param name The object's name.
   * @param options Its namespace, an abort signal.
   * @returns The object.
   */
  get(name: string, options?: CallOptions): Promise<T> {
    return this.#named("get", "GET", name, undefined, options);
  }

  /**
   * Reads one page of objects: of one namespace, or of all (`namespace:
   * ""`, or none given to a client without one), filtered by selectors.
   *
   * @example The ConfigMaps of an app
   * ```ts
   * import { FetchClient } from "@haptic/k8s-watcher";
   * import { ResourceClient } from "@haptic/k8s-watcher/client";
   * import { FakeApiServer, mockFetch } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * await using server = new FakeApiServer();
   * using _fetch = mockFetch(server);
   * using client = new FetchClient({ server: server.url });
   * const gvr = { group: "", version: "v1", resource: "configmaps" };
   * server.create(gvr, { metadata: { name: "a", namespace: "shop", labels: { app: "web" } } });
   * server.create(gvr, { metadata: { name: "b", namespace: "blog" } });
   * const configMaps = new ResourceClient({ client, gvr });
   * const page = await configMaps.list({ labelSelector: "app=web" });
   * assert.deepEqual(page.items.map((cm) => cm.metadata?.name), ["a"]);
   * ```
   *
   * @param options Namespace, selectors, page size and token.
   * @returns The page.
   */
  async list(options?: ListOptions): Promise<ResourceList<T>> {
    const call = planCall("list", "ResourceClient.list", options as never);
    const namespace = call.namespace ?? this.#plan.namespace;
    const path = collectionPath(this.#plan.gvr, namespace);
    const body = await this.#send("GET", path, call) as {
      items?: T[];
      metadata?: {
        resourceVersion?: string;
        continue?: string;
        remainingItemCount?: number;
      };
    };
    const meta = body?.metadata ?? {};
    const page: ResourceList<T> = {
      items: Array.isArray(body?.items) ? body.items : [],
      resourceVersion: meta.resourceVersion ?? "",
    };
    if (meta.continue) page.continue = meta.continue;
    if (typeof meta.remainingItemCount === "number") {
      page.remainingItemCount = meta.remainingItemCount;
    }
    return page;
  }

  /**
   * Creates an object: in the call's namespace, the client's, or the
   * object's own. A taken name is an {@linkcode AlreadyExistsError}.
   *
   * @example Create, or take the one that exists
   * ```ts
   * import { FetchClient } from "@haptic/k8s-watcher";
   * import { AlreadyExistsError, ResourceClient } from "@haptic/k8s-watcher/client";
   * import { FakeApiServer, mockFetch } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * await using server = new FakeApiServer();
   * using _fetch = mockFetch(server);
   * using client = new FetchClient({ server: server.url });
   * const configMaps = new ResourceClient({ client, gvr: { group: "", version: "v1", resource: "configmaps" } });
   * const made = await configMaps.create({ metadata: { name: "a", namespace: "shop" } });
   * assert.equal(made.metadata?.resourceVersion !== undefined, true);
   * await assert.rejects(configMaps.create({ metadata: { name: "a", namespace: "shop" } }), AlreadyExistsError);
   * ```
   *
   * @param obj The object.
   * @param options Namespace, dry run, field manager.
   * @returns The object as stored.
   */
  async create(obj: Writable<T>, options?: WriteOptions): Promise<T> {
    const call = planCall("create", "ResourceClient.create", options as never);
    const namespace = this.#namespaceOf(call, obj);
    const path = collectionPath(this.#plan.gvr, namespace);
    return await this.#send("POST", path, call, obj) as T;
  }

  /**
   * Replaces an object (PUT) with `obj`, named by its `metadata.name`.
   * With `metadata.resourceVersion` set, a newer stored version is a
   * {@linkcode ConflictError}: read again, decide again.
   *
   * @example A write on a stale read
   * ```ts
   * import { FetchClient } from "@haptic/k8s-watcher";
   * import { ConflictError, ResourceClient } from "@haptic/k8s-watcher/client";
   * import { FakeApiServer, mockFetch } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * await using server = new FakeApiServer();
   * using _fetch = mockFetch(server);
   * using client = new FetchClient({ server: server.url });
   * const configMaps = new ResourceClient({ client, gvr: { group: "", version: "v1", resource: "configmaps" }, namespace: "shop" });
   * const read = await configMaps.create({ metadata: { name: "a" } });
   * await configMaps.replace({ ...read, data: { n: "1" } });
   * await assert.rejects(configMaps.replace({ ...read, data: { n: "2" } }), ConflictError);
   * ```
   *
   * @param obj The whole object.
   * @param options Namespace, dry run, field manager.
   * @returns The object as stored.
   */
  replace(obj: Writable<T>, options?: WriteOptions): Promise<T> {
    return this.#replace("replace", "", obj, options);
  }

  /**
   * Patches an object: a merge patch by default, a JSON patch (`type:
   * "json"`, a list of operations) or a strategic merge patch (`type:
   * "strategic"`, built-in types only).
   *
   * @example Removing a label, and a JSON patch's test
   * ```ts
   * import { FetchClient } from "@haptic/k8s-watcher";
   * import { InvalidError, ResourceClient } from "@haptic/k8s-watcher/client";
   * import { FakeApiServer, mockFetch } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * await using server = new FakeApiServer();
   * using _fetch = mockFetch(server);
   * using client = new FetchClient({ server: server.url });
   * const configMaps = new ResourceClient({ client, gvr: { group: "", version: "v1", resource: "configmaps" }, namespace: "shop" });
   * await configMaps.create({ metadata: { name: "a", labels: { old: "yes" } } });
   * const patched = await configMaps.patch("a", { metadata: { labels: { old: null } } });
   * assert.equal(patched.metadata.labels?.old, undefined);
   * await assert.rejects(
   *   configMaps.patch("a", [{ op: "test", path: "/metadata/name", value: "b" }], { type: "json" }),
   *   InvalidError,
   * );
   * ```
   *
   * @param name The object's name.
   * @param patch The patch: an object, or JSON patch operations.
   * @param options Patch type, namespace, dry run, field manager.
   * @returns The object as stored.
   */
  patch(
    name: string,
    patch: PatchBody,
    options?: PatchOptions,
  ): Promise<T> {
    return this.#patch("patch", "", name, patch, options);
  }

  /**
   * Server-side apply: creates the object if absent, else sets the fields
   * `config` has and takes their ownership for `fieldManager`; the fields
   * it owned and `config` no longer has are removed. A field another
   * manager owns with another value is a {@linkcode ConflictError}, unless
   * `force`. `config` carries `apiVersion`, `kind` and `metadata.name`.
   *
   * @example Applying twice, the second time changed
   * ```ts
   * import { FetchClient } from "@haptic/k8s-watcher";
   * import { ResourceClient } from "@haptic/k8s-watcher/client";
   * import { FakeApiServer, mockFetch } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * await using server = new FakeApiServer();
   * using _fetch = mockFetch(server);
   * using client = new FetchClient({ server: server.url });
   * const configMaps = new ResourceClient<{ metadata?: { name?: string }; data?: Record<string, string> }>({
   *   client,
   *   gvr: { group: "", version: "v1", resource: "configmaps" },
   *   namespace: "shop",
   * });
   * const config = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "a" } };
   * await configMaps.apply({ ...config, data: { mode: "slow" } }, { fieldManager: "me" });
   * const applied = await configMaps.apply({ ...config, data: { mode: "fast" } }, { fieldManager: "me" });
   * assert.equal(applied.data?.mode, "fast");
   * ```
   *
   * @param config What the manager wants of the object.
   * @param options The field manager (required), force, namespace, dry run.
   * @returns The object as stored.
   */
  apply(
    config: ApplyConfiguration<T> & {
      readonly apiVersion?: string;
      readonly kind?: string;
    },
    options: ApplyOptions,
  ): Promise<T> {
    return this.#apply("apply", "", config, options);
  }

  /**
   * Deletes an object. With `preconditions`, only while it still has that
   * uid and resourceVersion (else a {@linkcode ConflictError}).
   *
   * @example Delete only what was read
   * ```ts
   * import { FetchClient } from "@haptic/k8s-watcher";
   * import { ConflictError, ResourceClient } from "@haptic/k8s-watcher/client";
   * import { FakeApiServer, mockFetch } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * await using server = new FakeApiServer();
   * using _fetch = mockFetch(server);
   * using client = new FetchClient({ server: server.url });
   * const configMaps = new ResourceClient({ client, gvr: { group: "", version: "v1", resource: "configmaps" }, namespace: "shop" });
   * const read = await configMaps.create({ metadata: { name: "a" } });
   * await configMaps.patch("a", { data: { changed: "yes" } });
   * await assert.rejects(
   *   configMaps.delete("a", { preconditions: { resourceVersion: read.metadata?.resourceVersion } }),
   *   ConflictError,
   * );
   * assert.equal(await configMaps.delete("a", { propagationPolicy: "Background" }), undefined);
   * ```
   *
   * @param name The object's name.
   * @param options Preconditions, propagation policy, grace period,
   * namespace, dry run.
   * @returns The object when the server answers it (finalizers hold it,
   * now marked with a `deletionTimestamp`, or its type answers a delete
   * with the object, as Pods do), else `undefined` (it answered a
   * `Status`: the object is gone).
   */
  async delete(name: string, options?: DeleteOptions): Promise<T | undefined> {
    const answer = await this.#named(
      "delete",
      "DELETE",
      name,
      undefined,
      options,
    ) as unknown as { kind?: unknown };
    return answer?.kind === "Status" ? undefined : answer as unknown as T;
  }

  /**
   * Reads the `status` subresource of an object (the whole object).
   *
   * @example
   * ```ts
   * import { FetchClient } from "@haptic/k8s-watcher";
   * import { ResourceClient } from "@haptic/k8s-watcher/client";
   * import { FakeApiServer, mockFetch } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * await using server = new FakeApiServer();
   * using _fetch = mockFetch(server);
   * using client = new FetchClient({ server: server.url });
   * const gvr = { group: "apps", version: "v1", resource: "deployments" };
   * server.create(gvr, { metadata: { name: "web", namespace: "shop" }, status: { replicas: 1 } });
   * const deployments = new ResourceClient<{ metadata?: { name?: string }; status?: { replicas?: number } }>({ client, gvr, namespace: "shop" });
   * assert.equal((await deployments.getStatus("web")).status?.replicas, 1);
   * ```
   *
   * @param name The object's name.
   * @param options Its namespace, an abort signal.
   * @returns The object.
   */
  getStatus(name: string, options?: CallOptions): Promise<T> {
    return this.#named("get", "GET", name, undefined, options, "status");
  }

  /**
   * Replaces the status of an object: its `status` is written, the rest
   * of `obj` is ignored (and `metadata.generation` is not bumped).
   *
   * @example Reporting what was observed
   * ```ts
   * import { FetchClient } from "@haptic/k8s-watcher";
   * import { ResourceClient } from "@haptic/k8s-watcher/client";
   * import { FakeApiServer, mockFetch } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * await using server = new FakeApiServer();
   * using _fetch = mockFetch(server);
   * using client = new FetchClient({ server: server.url });
   * type Deployment = { metadata?: { name?: string; generation?: number }; spec?: { replicas?: number }; status?: { observedGeneration?: number } };
   * const deployments = new ResourceClient<Deployment>({ client, gvr: { group: "apps", version: "v1", resource: "deployments" }, namespace: "shop" });
   * const made = await deployments.create({ metadata: { name: "web" }, spec: { replicas: 1 } });
   * const done = await deployments.replaceStatus({ ...made, spec: { replicas: 9 }, status: { observedGeneration: 1 } });
   * assert.equal(done.spec?.replicas, 1); // the spec is not written
   * assert.equal(done.status?.observedGeneration, 1);
   * ```
   *
   * @param obj The object with its new status.
   * @param options Namespace, dry run, field manager.
   * @returns The object as stored.
   */
  replaceStatus(obj: Writable<T>, options?: WriteOptions): Promise<T> {
    return this.#replace("replaceStatus", "status", obj, options);
  }

  /**
   * Patches the status of an object, as {@linkcode ResourceClient.patch}
   * patches the object.
   *
   * @example A merge patch of one status field
   * ```ts
   * import { FetchClient } from "@haptic/k8s-watcher";
   * import { ResourceClient } from "@haptic/k8s-watcher/client";
   * import { FakeApiServer, mockFetch } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * await using server = new FakeApiServer();
   * using _fetch = mockFetch(server);
   * using client = new FetchClient({ server: server.url });
   * const deployments = new ResourceClient<{ metadata?: { name?: string }; status?: { replicas?: number } }>({ client, gvr: { group: "apps", version: "v1", resource: "deployments" }, namespace: "shop" });
   * await deployments.create({ metadata: { name: "web" } });
   * const patched = await deployments.patchStatus("web", { status: { replicas: 2 } });
   * assert.equal(patched.status?.replicas, 2);
   * ```
   *
   * @param name The object's name.
   * @param patch The patch.
   * @param options Patch type, namespace, dry run, field manager.
   * @returns The object as stored.
   */
  patchStatus(
    name: string,
    patch: PatchBody,
    options?: PatchOptions,
  ): Promise<T> {
    return this.#patch("patchStatus", "status", name, patch, options);
  }

  /**
   * Server-side apply of the status: the fields of `config.status` the
   * manager sets, as {@linkcode ResourceClient.apply} does for the
   * object. The object must exist.
   *
   * @example A controller's status, applied
   * ```ts
   * import { FetchClient } from "@haptic/k8s-watcher";
   * import { ResourceClient } from "@haptic/k8s-watcher/client";
   * import { FakeApiServer, mockFetch } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * await using server = new FakeApiServer();
   * using _fetch = mockFetch(server);
   * using client = new FetchClient({ server: server.url });
   * const deployments = new ResourceClient<{ metadata?: { name?: string }; status?: { replicas?: number } }>({ client, gvr: { group: "apps", version: "v1", resource: "deployments" }, namespace: "shop" });
   * await deployments.create({ metadata: { name: "web" } });
   * const applied = await deployments.applyStatus(
   *   { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "web" }, status: { replicas: 3 } },
   *   { fieldManager: "me" },
   * );
   * assert.equal(applied.status?.replicas, 3);
   * ```
   *
   * @param config The status the manager wants, with the object's
   * `apiVersion`, `kind` and `metadata.name`.
   * @param options The field manager (required), force, namespace, dry run.
   * @returns The object as stored.
   */
  applyStatus(
    config: ApplyConfiguration<T> & {
      readonly apiVersion?: string;
      readonly kind?: string;
    },
    options: ApplyOptions,
  ): Promise<T> {
    return this.#apply("applyStatus", "status", config, options);
  }

  async #replace(
    method: string,
    subresource: string,
    obj: Writable<T>,
    options: WriteOptions | undefined,
  ): Promise<T> {
    const call = planCall(
      "replace",
      `ResourceClient.${method}`,
      options as never,
    );
    const name = this.#nameOf(method, obj);
    const namespace = this.#namespaceOf(call, obj);
    const path = this.#path(namespace, name, subresource);
    return await this.#send("PUT", path, call, obj) as T;
  }

  async #patch(
    method: string,
    subresource: string,
    name: string,
    patch: PatchBody,
    options: PatchOptions | undefined,
  ): Promise<T> {
    const call = planCall(
      "patch",
      `ResourceClient.${method}`,
      options as never,
    );
    const json = call.contentType === "application/json-patch+json";
    if (json !== Array.isArray(patch)) {
      throw new ResourceClientConfigError(
        `ResourceClient.${method}`,
        "patch",
        json
          ? "must be a list of JSON patch operations for type json"
          : `must be an object for type ${options?.type ?? "merge"}`,
      );
    }
    if (!json && (patch === null || typeof patch !== "object")) {
      throw new ResourceClientConfigError(
        `ResourceClient.${method}`,
        "patch",
        `must be an object, got ${String(patch)}`,
      );
    }
    this.#checkName(method, name);
    const namespace = call.namespace ?? this.#plan.namespace;
    const path = this.#path(namespace, name, subresource);
    return await this.#send("PATCH", path, call, patch) as T;
  }

  async #apply(
    method: string,
    subresource: string,
    config: unknown,
    options: ApplyOptions,
  ): Promise<T> {
    const call = planCall(
      "apply",
      `ResourceClient.${method}`,
      options as never,
    );
    const obj = config as Writable<T>;
    const name = this.#nameOf(method, obj, "config");
    const namespace = this.#namespaceOf(call, obj);
    const path = this.#path(namespace, name, subresource);
    return await this.#send("PATCH", path, call, obj) as T;
  }

  async #named(
    verb: Verb,
    method: "GET" | "DELETE",
    name: string,
    body: unknown,
    options: CallOptions | undefined,
    subresource = "",
  ): Promise<T> {
    const label = verb === "get" && subresource ? "getStatus" : verb;
    const call = planCall(verb, `ResourceClient.${label}`, options as never);
    this.#checkName(label, name);
    const namespace = call.namespace ?? this.#plan.namespace;
    const path = this.#path(namespace, name, subresource);
    return await this.#send(method, path, call, body ?? call.body) as T;
  }

  #path(namespace: string, name: string, subresource: string): string {
    const path = objectPath(this.#plan.gvr, namespace, name);
    return subresource ? `${path}/${subresource}` : path;
  }

  #checkName(method: string, name: unknown): asserts name is string {
    if (typeof name !== "string" || name === "") {
      throw new ResourceClientConfigError(
        `ResourceClient.${method}`,
        "name",
        `must be a non-empty string, got ${
          JSON.stringify(name) ?? String(name)
        }`,
      );
    }
  }

  #nameOf(method: string, obj: unknown, what = "obj"): string {
    if (obj === null || typeof obj !== "object") {
      throw new ResourceClientConfigError(
        `ResourceClient.${method}`,
        what,
        `must be an object, got ${String(obj)}`,
      );
    }
    const name = (obj as { metadata?: { name?: unknown } }).metadata?.name;
    if (typeof name !== "string" || name === "") {
      throw new ResourceClientConfigError(
        `ResourceClient.${method}`,
        `${what}.metadata.name`,
        `must be a non-empty string, got ${
          JSON.stringify(name) ?? String(name)
        }`,
      );
    }
    return name;
  }

  /** The call's namespace, else the client's, else the object's own. */
  #namespaceOf(call: CallPlan, obj: unknown): string {
    if (call.namespace !== undefined) return call.namespace;
    if (this.#plan.namespace) return this.#plan.namespace;
    const own = (obj as { metadata?: { namespace?: unknown } } | null)?.metadata
      ?.namespace;
    return typeof own === "string" ? own : "";
  }

  async #send(
    method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE",
    path: string,
    call: CallPlan,
    body?: unknown,
  ): Promise<unknown> {
    try {
      return await this.#plan.client.performRequest({
        method,
        path,
        querystring: call.query,
        abortSignal: call.signal,
        contentType: body === undefined ? undefined : call.contentType,
        bodyJson: body as JsonValue,
        expectJson: true,
      });
    } catch (error) {
      throw typedApiError(error, { method, path });
    }
  }
}
