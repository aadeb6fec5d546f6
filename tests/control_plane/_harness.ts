// The real-server suite's helpers: one control plane per test file, the
// comparison of a watcher's store with a fresh LIST, conditions waited on
// with deadlines, a client that records (and can hold or rewrite) what a
// watcher asks, and a TCP proxy whose connections a test can cut.
import assert from "node:assert/strict";
import type {
  JsonValue,
  RequestOptions,
  RestClient,
} from "../../client/rest_client.ts";
import { httpStatusOf } from "../../client/api_error.ts";
import type { Gvr, KubeObject, ReadableStore } from "../../types.ts";
import {
  ControlPlane,
  type ControlPlaneOptions,
} from "../../testing/control_plane/mod.ts";
import {
  controlPlaneMissing,
  ignoredWithout,
  requireAvailable,
} from "../requirements.ts";

export const CONFIGMAPS: Gvr = {
  group: "",
  version: "v1",
  resource: "configmaps",
};
export const SECRETS: Gvr = { group: "", version: "v1", resource: "secrets" };

/**
 * One control plane for the tests of a file, started by the first test that
 * asks and stopped after the last one (starting one takes seconds).
 */
export function sharedControlPlane(
  options?: ControlPlaneOptions,
): () => Promise<ControlPlane> {
  let started: Promise<ControlPlane> | undefined;
  Deno.test.afterAll(async () => {
    const plane = await started?.catch(() => undefined);
    await plane?.stop();
  });
  return () => started ??= ControlPlane.start(options);
}

/**
 * A test against the real server: ignored (with a warning) without the
 * binaries, failing under CI=true.
 */
export function planeTest(
  name: string,
  fn: (t: Deno.TestContext) => Promise<void>,
): void {
  Deno.test({
    name,
    ignore: ignoredWithout(controlPlaneMissing),
    async fn(t) {
      requireAvailable(controlPlaneMissing);
      await fn(t);
    },
  });
}

/** Waits until `condition` holds, polling; fails with `what` past the deadline. */
export async function eventually(
  condition: () => boolean | Promise<boolean>,
  what: string | (() => string | Promise<string>),
  timeoutMs = 30_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await condition()) return;
    if (Date.now() >= deadline) {
      const description = typeof what === "string" ? what : await what();
      throw new Error(`Not reached within ${timeoutMs} ms: ${description}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** The objects of a collection, every page, as the server has them now. */
export async function listAll(
  client: RestClient,
  gvr: Gvr,
  options: { namespace?: string; labelSelector?: string } = {},
): Promise<KubeObject[]> {
  const prefix = gvr.group ? `/apis/${gvr.group}/${gvr.version}` : "/api/v1";
  const path = options.namespace
    ? `${prefix}/namespaces/${options.namespace}/${gvr.resource}`
    : `${prefix}/${gvr.resource}`;
  const items: KubeObject[] = [];
  let token = "";
  do {
    const query = new URLSearchParams({ limit: "500" });
    if (token) query.set("continue", token);
    if (options.labelSelector) {
      query.set("labelSelector", options.labelSelector);
    }
    const page = await client.performRequest({
      method: "GET",
      path,
      querystring: query,
      expectJson: true,
    }) as unknown as { items: KubeObject[]; metadata: { continue?: string } };
    items.push(...page.items);
    token = page.metadata.continue ?? "";
  } while (token);
  return items;
}

/** What a store holds that a fresh LIST does not, and the other way round. */
export interface Drift {
  /** In the LIST, not in the store. */
  missing: string[];
  /** In the store, not in the LIST. */
  ghost: string[];
  /** In both, at another resourceVersion. */
  stale: string[];
}

function keyOf(o: KubeObject): string {
  return `${o.metadata.namespace ?? ""}/${o.metadata.name}`;
}

/**
 * Compares `store` with a fresh LIST of `gvr` (in `namespaces`, or all),
 * both sides kept to the objects `select` accepts.
 */
export async function driftFromList(
  store: ReadableStore<KubeObject>,
  client: RestClient,
  gvr: Gvr,
  options: {
    namespaces?: string[];
    labelSelector?: string;
    select?: (o: KubeObject) => boolean;
  } = {},
): Promise<Drift> {
  const listed = new Map<string, string | undefined>();
  for (const namespace of options.namespaces ?? [""]) {
    const items = await listAll(client, gvr, {
      namespace: namespace || undefined,
      labelSelector: options.labelSelector,
    });
    for (const o of items) {
      if (!options.select || options.select(o)) {
        listed.set(keyOf(o), o.metadata.resourceVersion);
      }
    }
  }
  const stored = new Map<string, string | undefined>();
  for (const o of await store.list()) {
    if (!options.select || options.select(o)) {
      stored.set(keyOf(o), o.metadata.resourceVersion);
    }
  }
  const drift: Drift = { missing: [], ghost: [], stale: [] };
  for (const [key, rv] of listed) {
    if (!stored.has(key)) drift.missing.push(key);
    else if (stored.get(key) !== rv) drift.stale.push(key);
  }
  for (const key of stored.keys()) {
    if (!listed.has(key)) drift.ghost.push(key);
  }
  return drift;
}

function describeDrift(drift: Drift, size: number): string {
  const some = (keys: string[]) =>
    keys.length === 0
      ? ""
      : ` (${keys.slice(0, 5).join(", ")}${keys.length > 5 ? ", …" : ""})`;
  return `the store (${size} objects) differs from a fresh LIST: ${drift.missing.length} missing${
    some(drift.missing)
  }, ${drift.ghost.length} ghost${
    some(drift.ghost)
  }, ${drift.stale.length} stale${some(drift.stale)}`;
}

/**
 * Waits until `store` equals a fresh LIST (0 missing, 0 ghost, 0 stale)
 * and returns how many objects it holds; fails with the drift past the
 * deadline. Every real-server test ends with it.
 */
export async function assertConverged(
  store: ReadableStore<KubeObject>,
  client: RestClient,
  gvr: Gvr,
  options: Parameters<typeof driftFromList>[3] & { timeoutMs?: number } = {},
): Promise<number> {
  let last: Drift = { missing: [], ghost: [], stale: [] };
  await eventually(
    async () => {
      last = await driftFromList(store, client, gvr, options);
      return last.missing.length + last.ghost.length + last.stale.length === 0;
    },
    () => describeDrift(last, store.size),
    options.timeoutMs,
  );
  assert.deepEqual(last, { missing: [], ghost: [], stale: [] });
  return store.size;
}

/** One request a {@linkcode TapClient} passed on. */
export interface TappedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  /** The Accept header asked for. */
  accept?: string;
  /** The status of the answer, once known (200 for a stream). */
  status?: number;
}

/** A watch event line, as the tap saw it. */
export interface TappedEvent {
  type: string;
  resourceVersion: string | undefined;
  annotations: Record<string, string> | undefined;
  /** For ERROR events, the Status code. */
  code?: number;
}

/**
 * A RestClient in front of another that records every request and the
 * watch events streamed back, and lets a test rewrite a request or run
 * something before it leaves (`before`).
 */
export class TapClient implements RestClient {
  readonly requests: TappedRequest[] = [];
  readonly events: TappedEvent[] = [];
  /** Runs before a request leaves; it may change `opts`. */
  before: ((opts: RequestOptions) => void | Promise<void>) | undefined;
  readonly #inner: RestClient;

  constructor(inner: RestClient) {
    this.#inner = inner;
  }

  get defaultNamespace(): string | undefined {
    return this.#inner.defaultNamespace;
  }

  /** The recorded requests of one kind. */
  lists(): TappedRequest[] {
    return this.requests.filter((r) =>
      r.method === "GET" && r.query.get("watch") !== "1" &&
      r.query.get("watch") !== "true"
    );
  }

  /** The recorded watch requests. */
  watches(): TappedRequest[] {
    return this.requests.filter((r) =>
      r.query.get("watch") === "1" || r.query.get("watch") === "true"
    );
  }

  performRequest(
    opts: RequestOptions & { expectStream: true; expectJson?: false },
  ): Promise<ReadableStream<Uint8Array>>;
  performRequest(
    opts: RequestOptions & { expectJson: true; expectStream?: false },
  ): Promise<JsonValue>;
  performRequest(opts: RequestOptions): Promise<Uint8Array>;
  async performRequest(opts: RequestOptions): Promise<unknown> {
    opts = {
      ...opts,
      querystring: new URLSearchParams(opts.querystring ?? ""),
    };
    await this.before?.(opts);
    const record: TappedRequest = {
      method: opts.method,
      path: opts.path,
      query: new URLSearchParams(opts.querystring),
      accept: opts.accept,
    };
    this.requests.push(record);
    try {
      // deno-lint-ignore no-explicit-any
      const answer = await this.#inner.performRequest(opts as any);
      record.status = 200;
      const watch = record.query.get("watch");
      if (
        opts.expectStream && answer instanceof ReadableStream &&
        (watch === "1" || watch === "true")
      ) {
        return answer.pipeThrough(this.#eventTap());
      }
      return answer;
    } catch (error) {
      record.status = httpStatusOf(error)?.code;
      throw error;
    }
  }

  /** Passes the bytes on unchanged, noting each event line. */
  #eventTap(): TransformStream<Uint8Array, Uint8Array> {
    const decoder = new TextDecoder();
    let partial = "";
    const note = (line: string) => {
      if (!line.trim()) return;
      try {
        const event = JSON.parse(line) as {
          type: string;
          object?: {
            code?: number;
            metadata?: {
              resourceVersion?: string;
              annotations?: Record<string, string>;
            };
          };
        };
        this.events.push({
          type: event.type,
          resourceVersion: event.object?.metadata?.resourceVersion,
          annotations: event.object?.metadata?.annotations,
          ...(event.type === "ERROR" && { code: event.object?.code }),
        });
      } catch {
        // Not for the tap to judge: the watcher sees the same bytes.
      }
    };
    return new TransformStream({
      transform(chunk, controller) {
        controller.enqueue(chunk);
        const lines = (partial + decoder.decode(chunk, { stream: true }))
          .split("\n");
        partial = lines.pop() ?? "";
        lines.forEach(note);
      },
      flush() {
        note(partial + decoder.decode());
      },
    });
  }
}

/**
 * A TCP proxy on 127.0.0.1 in front of a port: `cut()` breaks every
 * connection through it and refuses new ones (a client's requests fail
 * as on a network partition) until `restore()`.
 */
export class LoopbackProxy implements AsyncDisposable {
  readonly #listener: Deno.Listener;
  readonly #target: number;
  readonly #conns = new Set<Deno.Conn>();
  readonly #pipes = new Set<Promise<void>>();
  readonly #accepting: Promise<void>;
  #cut = false;

  constructor(targetUrl: string) {
    this.#target = Number(new URL(targetUrl).port);
    this.#listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    this.#accepting = this.#accept();
  }

  /** The proxy's URL (https, as the target's certificate is for 127.0.0.1). */
  get url(): string {
    return `https://127.0.0.1:${(this.#listener.addr as Deno.NetAddr).port}`;
  }

  /** Breaks every connection and refuses new ones. */
  cut(): void {
    this.#cut = true;
    for (const conn of this.#conns) closeQuietly(conn);
    this.#conns.clear();
  }

  /** Lets connections through again. */
  restore(): void {
    this.#cut = false;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    this.cut();
    closeQuietly(this.#listener);
    await this.#accepting;
    await Promise.allSettled([...this.#pipes]);
  }

  async #accept(): Promise<void> {
    try {
      for await (const conn of this.#listener) {
        if (this.#cut) {
          closeQuietly(conn);
          continue;
        }
        const pipe = this.#pipe(conn);
        this.#pipes.add(pipe);
        pipe.finally(() => this.#pipes.delete(pipe));
      }
    } catch {
      // The listener was closed.
    }
  }

  async #pipe(client: Deno.Conn): Promise<void> {
    this.#conns.add(client);
    let upstream: Deno.Conn;
    try {
      upstream = await Deno.connect({
        hostname: "127.0.0.1",
        port: this.#target,
      });
    } catch {
      this.#conns.delete(client);
      closeQuietly(client);
      return;
    }
    if (this.#cut) {
      closeQuietly(client);
      closeQuietly(upstream);
      return;
    }
    this.#conns.add(upstream);
    await Promise.race([
      client.readable.pipeTo(upstream.writable).catch(() => {}),
      upstream.readable.pipeTo(client.writable).catch(() => {}),
    ]);
    this.#conns.delete(client);
    this.#conns.delete(upstream);
    closeQuietly(client);
    closeQuietly(upstream);
  }
}

function closeQuietly(resource: { close(): void }): void {
  try {
    resource.close();
  } catch {
    // Closed already.
  }
}

/** Runs `fn` over `items`, at most `concurrency` at a time. */
export async function inParallel<T>(
  items: readonly T[],
  concurrency: number,
  fn: (item: T, index: number) => Promise<unknown>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      while (next < items.length) {
        const index = next++;
        await fn(items[index], index);
      }
    }),
  );
}

/** The API path of a collection (namespaced when `namespace` is given). */
export function collection(gvr: Gvr, namespace?: string): string {
  const prefix = gvr.group ? `/apis/${gvr.group}/${gvr.version}` : "/api/v1";
  return namespace
    ? `${prefix}/namespaces/${namespace}/${gvr.resource}`
    : `${prefix}/${gvr.resource}`;
}

/** Creates `object` in `namespace` and returns what the server stored. */
export async function create(
  client: RestClient,
  gvr: Gvr,
  namespace: string | undefined,
  object: Record<string, unknown>,
): Promise<KubeObject> {
  return await client.performRequest({
    method: "POST",
    path: collection(gvr, namespace),
    bodyJson: object as JsonValue,
    expectJson: true,
  }) as unknown as KubeObject;
}

/** Merge-patches one object and returns it. */
export async function patch(
  client: RestClient,
  gvr: Gvr,
  namespace: string | undefined,
  name: string,
  body: Record<string, unknown>,
  subresource = "",
): Promise<KubeObject> {
  return await client.performRequest({
    method: "PATCH",
    path: `${collection(gvr, namespace)}/${name}${
      subresource ? `/${subresource}` : ""
    }`,
    contentType: "application/merge-patch+json",
    bodyJson: body as JsonValue,
    expectJson: true,
  }) as unknown as KubeObject;
}

/** Deletes one object. */
export async function remove(
  client: RestClient,
  gvr: Gvr,
  namespace: string | undefined,
  name: string,
): Promise<void> {
  await client.performRequest({
    method: "DELETE",
    path: `${collection(gvr, namespace)}/${name}`,
    expectJson: true,
  });
}

/** Creates a namespace (namespaces are never deleted: nothing would finish it). */
export async function createNamespace(
  client: RestClient,
  name: string,
): Promise<void> {
  await create(
    client,
    { group: "", version: "v1", resource: "namespaces" },
    undefined,
    {
      metadata: { name },
    },
  );
}
