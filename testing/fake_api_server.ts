import {
  assertOptionNames,
  durationProblem,
} from "../_internal/_option_checks.ts";
import { type Clock, systemClock } from "../clock.ts";
import type { KubeObject } from "../types.ts";
import { type Listening, serveOn } from "./_listen.ts";
import { checkReactor, ReactorChain } from "./_reactors.ts";
import { gvrKey, ResourceRegistry } from "./_registry.ts";
import {
  handleRequest,
  type ServerCore,
  type StreamSignals,
} from "./_routes.ts";
import { failure, statusResponse } from "./_status.ts";
import { ObjectStore } from "./_store.ts";
import { mergePatcher } from "./_write_request.ts";
import { WatchHub } from "./_watch.ts";
import { faultReactor } from "./fault_reactor.ts";
import type { FakeApiFault, FaultHandle } from "./faults.ts";
import type { Reactor, ReactorHandle } from "./reactor.ts";
import type { RequestRecord } from "./request_record.ts";
import {
  builtinResources,
  type ResourceDefinition,
  type ResourceInfo,
  type ResourceRef,
} from "./resources.ts";

/**
 * Options for {@linkcode FakeApiServer}.
 *
 * @example A server on a fake clock with a short history
 * ```ts
 * import { FakeApiServer, FakeClock, type FakeApiServerOptions } from "@haptic/k8s-watcher/testing";
 *
 * const options: FakeApiServerOptions = { clock: new FakeClock(), historyLimit: 10, bookmarkIntervalMs: 5_000 };
 * using server = new FakeApiServer(options);
 * ```
 */
export interface FakeApiServerOptions {
  /**
   * Time for timestamps, bookmarks, watch timeouts and faults.
   *
   * @default {systemClock}
   */
  clock?: Clock;
  /**
   * How many writes the server remembers. Watches and continue tokens
   * older than that get 410 Expired, as after an etcd compaction.
   *
   * @default {1000}
   */
  historyLimit?: number;
  /**
   * The base URL `mockFetch` answers for.
   *
   * @default {"http://k8s.fake"}
   */
  url?: string;
  /**
   * Interval of BOOKMARK events on watches that allow them, in ms.
   *
   * @default {60000}
   */
  bookmarkIntervalMs?: number;
  /**
   * Whether watches accept `sendInitialEvents`. When false, the server
   * answers such watches with 422 Invalid like a server without the
   * WatchList feature, so clients can test their fallback to LIST.
   *
   * @default {true}
   */
  supportsWatchList?: boolean;
  /**
   * Whether LIST and WATCH serve `shardSelector`, as kube-apiserver 1.36+
   * does with `--feature-gates=ShardedListAndWatch=true` (KEP-5866):
   * `shardRange(object.metadata.uid, '0x<16 hex>', '0x<16 hex>')` (or
   * `object.metadata.namespace`), alternatives joined by ` || `, FNV-1a 64
   * of the field, the lower bound inclusive and the upper exclusive; a
   * sharded LIST says so in `metadata.shardInfo.selector` and a sharded
   * WATCH sends only the shard's events. When false the parameter is
   * ignored, as by a server without the gate.
   *
   * @default {false}
   */
  shardedListAndWatch?: boolean;
  /** More resource types to serve besides the built-in ones (e.g. CRDs). */
  resources?: ResourceDefinition[];
  /**
   * The resourceVersion before the first write (0: the first write is
   * version 1). A real cluster never lists at `"0"`, which means "any
   * version" to a watch; start higher to rule that case out.
   *
   * @default {0}
   */
  initialResourceVersion?: number;
  /**
   * A bearer token every request must carry (`Authorization: Bearer
   * <token>`), through `handle`, `mockFetch` and `listen()` alike. A
   * request without it (or with another) gets 401 with a `Status` whose
   * reason is `Unauthorized`, as from an API server that rejects the
   * credentials.
   *
   * @default {undefined (no authentication)}
   */
  token?: string;
}

/**
 * A server started by {@linkcode FakeApiServer.listen}.
 *
 * @example Serving over HTTP on a free port
 * ```ts
 * import { FakeApiServer, type FakeApiListener } from "@haptic/k8s-watcher/testing";
 *
 * await using server = new FakeApiServer();
 * await using listener: FakeApiListener = await server.listen();
 * const res = await fetch(`${listener.url}/version`);
 * await res.body?.cancel();
 * ```
 */
export interface FakeApiListener extends AsyncDisposable {
  /** `http://127.0.0.1:<port>`, or `https://` when serving TLS. */
  readonly url: string;
  /**
   * Ends the open watches and stops listening.
   *
   * @example Stopping one listener
   * ```ts
   * import { FakeApiServer } from "@haptic/k8s-watcher/testing";
   *
   * await using server = new FakeApiServer();
   * const listener = await server.listen();
   * await listener.close(); // the server itself keeps answering handle()
   * ```
   */
  close(): Promise<void>;
}

/**
 * An in-process Kubernetes API server for tests: objects by resource type
 * under one global resourceVersion, LIST with label and field selectors and
 * pagination, WATCH with history, bookmarks, timeouts and initial events,
 * GET/POST/PUT/PATCH/DELETE with Kubernetes-shaped `Status` errors, fault
 * injection and reactors (a test's own answers to chosen requests),
 * discovery for kubectl, and a bounded history whose expiry gives 410
 * Expired like a compacted etcd. Answers are negotiated from
 * `Accept` as the API server does: metadata-only
 * (`as=PartialObjectMetadataList` / `as=PartialObjectMetadata`,
 * `meta.k8s.io` `v1` or `v1beta1`) and `as=Table` forms, clauses tried in
 * order, and 406 NotAcceptable when none can be served; only JSON is
 * written (YAML and protobuf are not).
 *
 * Talk to it through {@linkcode FakeApiServer.handle} (`Request` in,
 * `Response` out), through `fetch` with `mockFetch(server)`, or over TCP
 * with {@linkcode FakeApiServer.listen}. Set up state with the
 * programmatic methods (`create`, `update`, `patch`, `delete`, …), which
 * return copies and throw {@linkcode FakeApiError} like the HTTP API
 * answers. Dispose of it (or `close()` it) so that no watch or timer
 * outlives the test.
 *
 * @example A watch sees a write
 * ```ts
 * import { FakeApiServer } from "@haptic/k8s-watcher/testing";
 * import assert from "node:assert/strict";
 *
 * using server = new FakeApiServer();
 * server.create("configmaps", { metadata: { name: "a", namespace: "default" }, data: { k: "v" } });
 * const list = await (await server.handle(
 *   new Request(`${server.url}/api/v1/namespaces/default/configmaps`),
 * )).json();
 * assert.equal(list.items.length, 1);
 *
 * const res = await server.handle(new Request(
 *   `${server.url}/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${list.metadata.resourceVersion}`,
 * ));
 * const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
 * server.patch("configmaps", "default", "a", { data: { k: "w" } });
 * const { value } = await reader.read();
 * const event = JSON.parse(value!);
 * assert.equal(event.type, "MODIFIED");
 * assert.equal(event.object.data.k, "w");
 * await reader.cancel();
 * ```
 */
export class FakeApiServer implements Disposable, AsyncDisposable {
  /** The base URL `mockFetch` answers for, without a trailing slash. */
  readonly url: string;
  /** The clock the server runs on. */
  readonly clock: Clock;
  #registry: ResourceRegistry;
  #store: ObjectStore;
  #hub: WatchHub;
  #core: ServerCore;
  #listeners = new Set<Listening>();
  #closed = false;

  /**
   * Creates a server with the built-in resources and no objects.
   *
   * @example Defaults, or a fake clock and a token
   * ```ts
   * import { FakeApiServer, FakeClock } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * using plain = new FakeApiServer();
   * assert.equal(plain.url, "http://k8s.fake");
   * using strict = new FakeApiServer({ clock: new FakeClock(), token: "s3cr3t" });
   * const res = await strict.handle(new Request(`${strict.url}/api/v1/pods`));
   * assert.equal(res.status, 401);
   * await res.body?.cancel();
   * ```
   *
   * @param options Clock, history size, URL, bookmark interval, WatchList support and extra resources.
   * @throws {TypeError} When `options` has a name it does not take, or `url` is not http or https.
   */
  constructor(options?: FakeApiServerOptions) {
    if (options === undefined) options = {};
    assertOptionNames(
      "FakeApiServer options",
      SERVER_NAMES,
      options,
      "FakeApiServerOptions",
    );
    const url = new URL(options.url ?? "http://k8s.fake");
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      throw new TypeError(
        `FakeApiServer url must be http or https, got ${
          JSON.stringify(options.url)
        }`,
      );
    }
    const bookmarkIntervalMs = options.bookmarkIntervalMs ?? 60_000;
    const bookmarkProblem = durationProblem(bookmarkIntervalMs);
    if (bookmarkProblem !== undefined) {
      throw new RangeError(
        `FakeApiServer option bookmarkIntervalMs ${bookmarkProblem}`,
      );
    }
    if (
      options.token !== undefined &&
      (typeof options.token !== "string" || options.token === "")
    ) {
      throw new TypeError(
        "FakeApiServer token must be a non-empty string when given",
      );
    }
    this.url = url.origin;
    this.clock = options.clock ?? systemClock;
    this.#registry = new ResourceRegistry([
      ...builtinResources,
      ...(options.resources ?? []),
    ]);
    this.#hub = new WatchHub();
    const hub = this.#hub;
    const initialRv = options.initialResourceVersion ?? 0;
    if (!Number.isSafeInteger(initialRv) || initialRv < 0) {
      throw new RangeError(
        `initialResourceVersion must be a non-negative integer, got ${initialRv}`,
      );
    }
    this.#store = new ObjectStore({
      clock: this.clock,
      historyLimit: options.historyLimit ?? 1000,
      initialRv,
      onChange: (entry) => hub.dispatch(entry),
    });
    this.#core = {
      registry: this.#registry,
      store: this.#store,
      hub,
      reactors: new ReactorChain(this.clock),
      clock: this.clock,
      bookmarkIntervalMs,
      supportsWatchList: options.supportsWatchList ?? true,
      shardedListAndWatch: options.shardedListAndWatch ?? false,
      token: options.token,
      continueEpoch: 0,
      requests: [],
      stalls: new Set(),
    };
  }

  /**
   * The newest resourceVersion, as a string (`"0"` before any write).
   *
   * @example One version for every write
   * ```ts
   * import { FakeApiServer } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * using server = new FakeApiServer();
   * assert.equal(server.resourceVersion, "0");
   * server.create("configmaps", { metadata: { name: "a", namespace: "default" } });
   * server.create("secrets", { metadata: { name: "b", namespace: "default" } });
   * assert.equal(server.resourceVersion, "2");
   * ```
   */
  get resourceVersion(): string {
    return String(this.#store.rv);
  }

  /**
   * How many watch streams are open.
   *
   * @example A watch open, then closed
   * ```ts
   * import { FakeApiServer } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * using server = new FakeApiServer();
   * const controller = new AbortController();
   * const res = await server.handle(new Request(`${server.url}/api/v1/pods?watch=1`, { signal: controller.signal }));
   * assert.equal(server.openWatchCount, 1);
   * await res.body?.cancel();
   * assert.equal(server.openWatchCount, 0);
   * ```
   */
  get openWatchCount(): number {
    return this.#hub.size;
  }

  /**
   * Every request answered so far, oldest first.
   *
   * @example What a client asked for
   * ```ts
   * import { FakeApiServer } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * using server = new FakeApiServer();
   * await (await server.handle(new Request(`${server.url}/api/v1/namespaces/shop/pods?limit=10`))).body?.cancel();
   * assert.deepEqual(
   *   server.requests.map((r) => [r.verb, r.resource, r.namespace, r.query.limit]),
   *   [["list", "pods", "shop", "10"]],
   * );
   * ```
   */
  get requests(): readonly RequestRecord[] {
    return this.#core.requests;
  }

  /**
   * Forgets the request log.
   *
   * @example Counting only the requests of one step
   * ```ts
   * import { FakeApiServer } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * using server = new FakeApiServer();
   * await (await server.handle(new Request(`${server.url}/api/v1/pods`))).body?.cancel();
   * server.clearRequests();
   * assert.equal(server.requests.length, 0);
   * ```
   */
  clearRequests(): void {
    this.#core.requests.length = 0;
  }

  /**
   * Every resource type served.
   *
   * @example Every served type
   * ```ts
   * import { FakeApiServer } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * using server = new FakeApiServer();
   * const kinds = server.resources.map((r) => r.kind);
   * assert.ok(kinds.includes("Ingress") && kinds.includes("Lease"));
   * ```
   */
  get resources(): ResourceInfo[] {
    return this.#registry.all();
  }

  /**
   * Serves another resource type, e.g. a CRD; it appears in discovery and
   * can be listed, watched and written at once.
   *
   * @example Serving a custom resource
   * ```ts
   * import { FakeApiServer } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * using server = new FakeApiServer();
   * server.registerResource({ group: "example.com", version: "v1", resource: "widgets", kind: "Widget", namespaced: true });
   * const w = server.create("widgets", { metadata: { name: "w1", namespace: "default" }, spec: { size: 1 } });
   * assert.equal(w.apiVersion, "example.com/v1");
   * assert.equal(w.metadata.generation, 1);
   * ```
   *
   * @param definition The resource type.
   * @returns The definition with its defaults filled in.
   */
  registerResource(definition: ResourceDefinition): ResourceInfo {
    const info = this.#registry.register(definition);
    this.#store.table(info);
    return info;
  }

  /**
   * Looks a resource type up by GVR, plural, singular, short name or kind.
   *
   * @example By short name
   * ```ts
   * import { FakeApiServer } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * using server = new FakeApiServer();
   * const info = server.resourceInfo("ing");
   * assert.equal(info.group, "networking.k8s.io");
   * assert.equal(info.namespaced, true);
   * assert.throws(() => server.resourceInfo("nosuchthing"), TypeError);
   * ```
   *
   * @param resource The resource.
   * @returns Its definition.
   * @throws {TypeError} When no served type fits.
   */
  resourceInfo(resource: ResourceRef): ResourceInfo {
    return this.#registry.resolve(resource);
  }

  /**
   * Creates an object. Namespaced objects without a namespace go to
   * `default`; `generateName` is honoured; the server sets `uid`,
   * `resourceVersion`, `creationTimestamp` and `generation` (for types that
   * keep one); a Secret's `stringData` is merged into `data`. Unlike an HTTP
   * create, the status is kept as given, and the body's `kind`, labels,
   * annotations and data are not checked (only the name is), so a test can
   * set up any state.
   *
   * @example What the server fills in
   * ```ts
   * import { FakeApiServer } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * using server = new FakeApiServer();
   * const cm = server.create("cm", { metadata: { name: "settings", namespace: "shop" }, data: { mode: "fast" } });
   * assert.equal(cm.kind, "ConfigMap");
   * assert.equal(cm.metadata.resourceVersion, "1");
   * assert.ok(cm.metadata.uid);
   * ```
   *
   * @param resource The resource type.
   * @param object The object (copied; not modified).
   * @returns A copy of the stored object.
   * @throws {FakeApiError} 409 AlreadyExists, 422 Invalid.
   */
  create(resource: ResourceRef, object: KubeObject): KubeObject {
    return structuredClone(this.#store.create(this.#info(resource), object));
  }

  /**
   * Replaces an object (status included, unlike an HTTP PUT, which keeps
   * the stored status of a type with a status subresource). A
   * `metadata.resourceVersion` in `object` must match the stored one (else
   * 409 Conflict); leave it out for an unconditional update, which this
   * method allows for every type (over HTTP, only types with
   * `allowUnconditionalUpdate` do). A write that changes nothing keeps the
   * version and sends no event, as in Kubernetes.
   *
   * @example A stale resourceVersion is a conflict
   * ```ts
   * import { FakeApiError, FakeApiServer } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * using server = new FakeApiServer();
   * const v1 = server.create("configmaps", { metadata: { name: "a", namespace: "shop" }, data: { n: "1" } });
   * const v2 = server.update("configmaps", { ...v1, data: { n: "2" } });
   * assert.deepEqual(v2.data, { n: "2" });
   * assert.throws(
   *   () => server.update("configmaps", { ...v1, data: { n: "3" } }), // v1's resourceVersion
   *   (err) => err instanceof FakeApiError && err.code === 409,
   * );
   * ```
   *
   * @param resource The resource type.
   * @param object The new state, identified by its namespace and name.
   * @returns A copy of the stored object.
   * @throws {FakeApiError} 404 NotFound, 409 Conflict.
   */
  update(resource: ResourceRef, object: KubeObject): KubeObject {
    return structuredClone(this.#store.update(this.#info(resource), object));
  }

  /**
   * Replaces only the `status` of an object, like a PUT to its `/status`
   * subresource; the generation does not change.
   *
   * @example A status write keeps the generation
   * ```ts
   * import { FakeApiServer } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * using server = new FakeApiServer();
   * const deploy = server.create("deployments", { metadata: { name: "web", namespace: "shop" }, spec: { replicas: 1 } });
   * const written = server.updateStatus("deployments", { ...deploy, status: { readyReplicas: 1 } });
   * assert.deepEqual(written.status, { readyReplicas: 1 });
   * assert.equal(written.metadata.generation, deploy.metadata.generation);
   * ```
   *
   * @param resource The resource type.
   * @param object The object carrying the new status.
   * @returns A copy of the stored object.
   * @throws {FakeApiError} 404 NotFound, 409 Conflict.
   */
  updateStatus(resource: ResourceRef, object: KubeObject): KubeObject {
    return structuredClone(
      this.#store.update(this.#info(resource), object, {
        subresource: "status",
      }),
    );
  }

  /**
   * Applies a JSON merge patch (RFC 7386) to an object.
   *
   * @example Merge-patching a label away
   * ```ts
   * import { FakeApiServer } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * using server = new FakeApiServer();
   * server.create("configmaps", { metadata: { name: "a", namespace: "shop", labels: { app: "web", old: "x" } } });
   * const patched = server.patch("configmaps", "shop", "a", { metadata: { labels: { old: null } } });
   * assert.deepEqual(patched.metadata.labels, { app: "web" });
   * ```
   *
   * @param resource The resource type.
   * @param namespace The namespace (`""` for cluster-scoped types).
   * @param name The object name.
   * @param mergePatch The patch; `null` values remove fields.
   * @returns A copy of the stored object.
   * @throws {FakeApiError} 404 NotFound, 409 Conflict.
   */
  patch(
    resource: ResourceRef,
    namespace: string,
    name: string,
    mergePatch: Record<string, unknown>,
  ): KubeObject {
    return structuredClone(
      this.#store.patch(
        this.#info(resource),
        namespace,
        name,
        mergePatcher(mergePatch),
      ),
    );
  }

  /**
   * Deletes an object. One with `metadata.finalizers` is only marked with a
   * `deletionTimestamp` (and its generation bumped, for types that keep
   * one), and goes once an update empties its finalizers.
   *
   * @example A finalizer holds the object back
   * ```ts
   * import { FakeApiServer } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * using server = new FakeApiServer();
   * server.create("configmaps", { metadata: { name: "a", namespace: "shop", finalizers: ["example.com/cleanup"] } });
   * const marked = server.delete("configmaps", "shop", "a");
   * assert.ok(marked.metadata.deletionTimestamp); // still there, marked
   * server.patch("configmaps", "shop", "a", { metadata: { finalizers: null } });
   * assert.equal(server.list("configmaps", "shop").length, 0); // gone now
   * ```
   *
   * @param resource The resource type.
   * @param namespace The namespace (`""` for cluster-scoped types).
   * @param name The object name.
   * @returns A copy of the object as deleted (or marked).
   * @throws {FakeApiError} 404 NotFound.
   */
  delete(resource: ResourceRef, namespace: string, name: string): KubeObject {
    return structuredClone(
      this.#store.delete(this.#info(resource), namespace, name),
    );
  }

  /**
   * Reads an object.
   *
   * @example Reading a copy
   * ```ts
   * import { FakeApiServer } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * using server = new FakeApiServer();
   * server.create("secrets", { metadata: { name: "creds", namespace: "haptic" }, stringData: { user: "admin" } });
   * const secret = server.get("secrets", "haptic", "creds");
   * assert.deepEqual(secret.data, { user: btoa("admin") });
   * ```
   *
   * @param resource The resource type.
   * @param namespace The namespace (`""` for cluster-scoped types).
   * @param name The object name.
   * @returns A copy of the stored object.
   * @throws {FakeApiError} 404 NotFound.
   */
  get(resource: ResourceRef, namespace: string, name: string): KubeObject {
    return structuredClone(
      this.#store.get(this.#info(resource), namespace, name),
    );
  }

  /**
   * Lists objects, ordered by namespace, then name.
   *
   * @example One namespace, or all
   * ```ts
   * import { FakeApiServer } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * using server = new FakeApiServer();
   * server.create("configmaps", { metadata: { name: "b", namespace: "shop" } });
   * server.create("configmaps", { metadata: { name: "a", namespace: "blog" } });
   * assert.equal(server.list("configmaps", "shop").length, 1);
   * assert.deepEqual(server.list("configmaps").map((o) => o.metadata.namespace), ["blog", "shop"]);
   * ```
   *
   * @param resource The resource type.
   * @param namespace Only this namespace; omit (or `""`) for all.
   * @returns Copies of the stored objects.
   */
  list(resource: ResourceRef, namespace?: string): KubeObject[] {
    const info = this.#info(resource);
    const prefix = namespace && info.namespaced ? `${namespace}/` : "";
    const out: KubeObject[] = [];
    for (
      const [, obj] of this.#store.snapshot(
        this.#store.table(info),
        this.#store.rv,
        prefix,
        undefined,
      )
    ) out.push(structuredClone(obj));
    return out;
  }

  /**
   * Answers one HTTP request, as a Kubernetes API server would. Only the
   * path, query, method, `accept`/`content-type` headers and body matter;
   * the origin is ignored. Watch answers are streams that end when the
   * request's signal aborts (erroring the body), when the reader cancels,
   * or when the server closes them.
   *
   * @example A request without any network
   * ```ts
   * import { FakeApiServer } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * using server = new FakeApiServer();
   * const res = await server.handle(new Request(`${server.url}/api/v1/namespaces/shop/configmaps`, {
   *   method: "POST",
   *   headers: { "content-type": "application/json" },
   *   body: JSON.stringify({ metadata: { name: "a" } }),
   * }));
   * assert.equal(res.status, 201);
   * assert.equal((await res.json()).metadata.namespace, "shop");
   * ```
   *
   * @param request The request.
   * @returns The response.
   */
  handle(request: Request): Promise<Response> {
    return this.#handle(request, { signal: request.signal });
  }

  #handle(request: Request, signals: StreamSignals): Promise<Response> {
    if (this.#closed) {
      return Promise.resolve(
        statusResponse(failure(503, "the fake API server is closed")),
      );
    }
    return handleRequest(this.#core, request, signals);
  }

  /**
   * Arms a fault for the next matching requests: adds its reactor
   * ({@linkcode faultReactor}) after every reactor added before.
   *
   * @example A 503 with Retry-After on LIST
   * ```ts
   * import { FakeApiServer } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * using server = new FakeApiServer();
   * server.injectFault({ verb: "list", kind: "status", code: 503, retryAfterSeconds: 2 });
   * const res = await server.handle(new Request(`${server.url}/api/v1/pods`));
   * assert.equal(res.status, 503);
   * assert.equal(res.headers.get("retry-after"), "2");
   * await res.body?.cancel();
   * ```
   *
   * @param fault What to match and what to do.
   * @returns A handle to check and cancel it.
   * @throws {TypeError} For an invalid fault or an unknown resource.
   */
  injectFault(fault: FakeApiFault): FaultHandle {
    return this.addReactor(faultReactor(fault));
  }

  /**
   * Adds a reactor, tried after every reactor added before: the first one
   * that answers a request is the only one that does; what they all pass
   * the server answers itself.
   *
   * @example A LIST answered 429 with Retry-After, once
   * ```ts
   * import { FakeApiServer } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * using server = new FakeApiServer();
   * server.addReactor({
   *   verb: "list",
   *   times: 1,
   *   react: () => new Response("{}", { status: 429, headers: { "retry-after": "1" } }),
   * });
   * const throttled = await server.handle(new Request(`${server.url}/api/v1/pods`));
   * assert.equal(throttled.status, 429);
   * await throttled.body?.cancel();
   * const ok = await server.handle(new Request(`${server.url}/api/v1/pods`));
   * assert.equal(ok.status, 200);
   * await ok.body?.cancel();
   * ```
   *
   * @param reactor Which requests it sees and how it answers them.
   * @returns A handle to check and cancel it.
   * @throws {TypeError} For an invalid reactor or an unknown resource.
   */
  addReactor(reactor: Reactor): ReactorHandle {
    return this.#addReactor(reactor, false);
  }

  /**
   * Adds a reactor tried before every other one, e.g. to override a
   * fault for one request.
   *
   * @example Letting one LIST through a 503 fault
   * ```ts
   * import { FakeApiServer } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * using server = new FakeApiServer();
   * server.injectFault({ verb: "list", kind: "status", code: 503, times: Infinity });
   * server.prependReactor({ verb: "list", times: 1, react: (call) => call.serve() });
   * const first = await server.handle(new Request(`${server.url}/api/v1/pods`));
   * assert.equal(first.status, 200);
   * await first.body?.cancel();
   * const second = await server.handle(new Request(`${server.url}/api/v1/pods`));
   * assert.equal(second.status, 503);
   * await second.body?.cancel();
   * ```
   *
   * @param reactor Which requests it sees and how it answers them.
   * @returns A handle to check and cancel it.
   * @throws {TypeError} For an invalid reactor or an unknown resource.
   */
  prependReactor(reactor: Reactor): ReactorHandle {
    return this.#addReactor(reactor, true);
  }

  #addReactor(reactor: Reactor, first: boolean): ReactorHandle {
    checkReactor(reactor);
    const key = reactor.resource !== undefined
      ? gvrKey(this.#info(reactor.resource))
      : undefined;
    return this.#core.reactors.add(reactor, key, first);
  }

  /**
   * Disarms every fault, and every other reactor.
   *
   * @example Healing the server
   * ```ts
   * import { FakeApiServer } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * using server = new FakeApiServer();
   * server.injectFault({ verb: "any", kind: "status", code: 500 });
   * server.clearFaults();
   * const res = await server.handle(new Request(`${server.url}/api/v1/pods`));
   * assert.equal(res.status, 200);
   * await res.body?.cancel();
   * ```
   */
  clearFaults(): void {
    this.#core.reactors.clear();
  }

  /**
   * Forgets the write history, as an etcd compaction does: watches from
   * (and continue tokens for) any version older than the current one get
   * 410 Expired.
   *
   * @example An old resourceVersion expires
   * ```ts
   * import { FakeApiServer } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * using server = new FakeApiServer();
   * server.create("configmaps", { metadata: { name: "a", namespace: "shop" } });
   * server.create("configmaps", { metadata: { name: "b", namespace: "shop" } });
   * server.compactHistory();
   * const res = await server.handle(new Request(`${server.url}/api/v1/configmaps?watch=1&resourceVersion=1`));
   * const text = await res.text(); // an ERROR event with 410, then the end
   * assert.match(text, /"code":410/);
   * ```
   */
  compactHistory(): void {
    this.#store.compact();
  }

  /**
   * Makes every continue token issued so far answer 410 Expired.
   *
   * @example A paged list has to start over
   * ```ts
   * import { FakeApiServer } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * using server = new FakeApiServer();
   * server.create("configmaps", { metadata: { name: "a", namespace: "shop" } });
   * server.create("configmaps", { metadata: { name: "b", namespace: "shop" } });
   * const first = await (await server.handle(new Request(`${server.url}/api/v1/configmaps?limit=1`))).json();
   * server.expireContinueTokens();
   * const next = await server.handle(
   *   new Request(`${server.url}/api/v1/configmaps?limit=1&continue=${first.metadata.continue}`),
   * );
   * assert.equal(next.status, 410);
   * await next.body?.cancel();
   * ```
   */
  expireContinueTokens(): void {
    this.#core.continueEpoch++;
  }

  /**
   * Closes every open watch stream cleanly, as an API server restart would.
   *
   * @example Ending every stream, as a restart does
   * ```ts
   * import { FakeApiServer } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * using server = new FakeApiServer();
   * const res = await server.handle(new Request(`${server.url}/api/v1/pods?watch=1`));
   * server.closeAllWatches();
   * assert.equal(await res.text(), ""); // ended cleanly, without an event
   * assert.equal(server.openWatchCount, 0);
   * ```
   */
  closeAllWatches(): void {
    this.#hub.closeAll();
    for (const stall of [...this.#core.stalls]) stall.close();
  }

  /**
   * Serves the same API over HTTP on 127.0.0.1, for benchmarks and other
   * clients (kubectl, `@kubernetes/client-node`): with `Deno.serve` on
   * Deno, `node:http` on Node and Bun.
   *
   * kubectl sends a kubeconfig's token only over HTTPS: to test a `token`
   * with kubectl, pass `tls` (a PEM certificate for 127.0.0.1 and its
   * key) and trust the certificate in the kubeconfig.
   *
   * @example Over TCP, for any HTTP client
   * ```ts
   * import { FakeApiServer } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * await using server = new FakeApiServer();
   * server.create("configmaps", { metadata: { name: "a", namespace: "shop" } });
   * await using listener = await server.listen(); // a free port on 127.0.0.1
   * const res = await fetch(`${listener.url}/api/v1/namespaces/shop/configmaps`);
   * assert.equal((await res.json()).items.length, 1);
   * ```
   *
   * @param options `port` (default 0: any free port); `tls` to serve HTTPS.
   * @returns The listener; close it (or let the server's `close()` do it).
   */
  listen(
    options?: { port?: number; tls?: { cert: string; key: string } },
  ): Promise<FakeApiListener> {
    if (options === undefined) options = {};
    try {
      if (this.#closed) throw new Error("The fake API server is closed");
      const listening = serveOn(
        options.port ?? 0,
        // Deno.serve cancels the body when the client goes away; its
        // request.signal also fires after every complete answer, so it
        // is not used here.
        (request, closeSignal) => this.#handle(request, { closeSignal }),
        options.tls,
      );
      this.#listeners.add(listening);
      const listeners = this.#listeners;
      const close = async () => {
        listeners.delete(listening);
        await listening.close();
      };
      return listening.ready.then(() => ({
        url: listening.url,
        close,
        [Symbol.asyncDispose]: close,
      }));
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /**
   * Ends every watch and stalled answer, clears every timer and stops the
   * listeners. Later requests get 503; the programmatic API keeps working.
   *
   * @example Closing at the end of a test
   * ```ts
   * import { FakeApiServer } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * const server = new FakeApiServer();
   * await server.listen();
   * await server.close(); // no watch, timer or listener is left
   * const res = await server.handle(new Request(`${server.url}/api/v1/pods`));
   * assert.equal(res.status, 503);
   * await res.body?.cancel();
   * ```
   */
  async close(): Promise<void> {
    this.#shutdown();
    const listeners = [...this.#listeners];
    this.#listeners.clear();
    await Promise.all(listeners.map((l) => l.close()));
  }

  /**
   * Like {@linkcode FakeApiServer.close} without waiting: use
   * `await using` instead when the server listens on a port.
   *
   * @example Disposed at the end of a block
   * ```ts
   * import { FakeApiServer } from "@haptic/k8s-watcher/testing";
   *
   * {
   *   using server = new FakeApiServer();
   *   server.create("configmaps", { metadata: { name: "a", namespace: "shop" } });
   * } // closed here
   * ```
   */
  [Symbol.dispose](): void {
    this.#shutdown();
    for (const listener of this.#listeners) void listener.close();
    this.#listeners.clear();
  }

  /**
   * Same as {@linkcode FakeApiServer.close}.
   *
   * @example Awaited at the end of a block, listeners included
   * ```ts
   * import { FakeApiServer } from "@haptic/k8s-watcher/testing";
   *
   * {
   *   await using server = new FakeApiServer();
   *   await server.listen();
   * } // closed here, after the listener has stopped
   * ```
   */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  #shutdown(): void {
    this.#closed = true;
    this.closeAllWatches();
    this.#core.reactors.clear();
  }

  #info(resource: ResourceRef): ResourceInfo {
    return this.#registry.resolve(resource);
  }
}

/** The names `FakeApiServerOptions` takes (a record over its keys). */
const SERVER_NAMES: Record<keyof FakeApiServerOptions, true> = {
  clock: true,
  historyLimit: true,
  url: true,
  bookmarkIntervalMs: true,
  supportsWatchList: true,
  shardedListAndWatch: true,
  resources: true,
  initialResourceVersion: true,
  token: true,
};
