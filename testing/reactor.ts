import type { KubeStatus } from "../client/api_error.ts";
import type { ResourceInfo, ResourceRef } from "./resources.ts";

/**
 * What a request does, as reactors match it (and as `RequestRecord.verb`
 * names it). `any` matches every request, discovery included.
 *
 * @example A reactor for LIST and WATCH
 * ```ts
 * import type { ReactorVerb } from "@haptic/k8s-watcher/testing";
 *
 * const verbs: ReactorVerb[] = ["list", "watch"];
 * ```
 */
export type ReactorVerb =
  | "get"
  | "list"
  | "watch"
  | "create"
  | "update"
  | "patch"
  | "delete"
  | "deletecollection"
  | "discovery"
  | "any";

/**
 * One open watch stream, as a {@linkcode WatchTap} sees it.
 *
 * @example Ending a stream after two lines
 * ```ts
 * import type { FakeWatchStream, WatchTap } from "@haptic/k8s-watcher/testing";
 *
 * const tap: WatchTap = {
 *   sent: (stream: FakeWatchStream) => {
 *     if (stream.lines >= 2) stream.end();
 *   },
 * };
 * ```
 */
export interface FakeWatchStream {
  /** The resource type watched. */
  readonly resource: ResourceInfo;
  /** How many event lines the stream has sent (bookmarks and errors too). */
  readonly lines: number;
  /** The server's newest resourceVersion. */
  readonly resourceVersion: string;
  /** Whether the stream has ended. */
  readonly ended: boolean;
  /**
   * Sends text as it is: no newline is added, no tap sees it and it is not
   * counted in `lines`.
   *
   * @example Half a line, then the end: a connection cut mid-event
   * ```ts
   * import type { WatchTap } from "@haptic/k8s-watcher/testing";
   *
   * const tap: WatchTap = {
   *   sent: (stream) => {
   *     stream.write('{"type":"ADDED","obj');
   *     stream.end();
   *   },
   * };
   * ```
   */
  write(text: string): void;
  /**
   * Sends an `ERROR` event carrying `status` (no tap sees it), then ends
   * the stream, as the API server does (410 Expired after a compaction,
   * 500 on a storage error).
   *
   * @example An ERROR event as soon as the watch opens
   * ```ts
   * import type { WatchTap } from "@haptic/k8s-watcher/testing";
   *
   * const tap: WatchTap = {
   *   sent: (stream) =>
   *     stream.error({ kind: "Status", apiVersion: "v1", status: "Failure", code: 500, reason: "InternalError" }),
   * };
   * ```
   */
  error(status: KubeStatus): void;
  /**
   * Ends the stream cleanly, as a server-side timeout does.
   *
   * @example Ending at once
   * ```ts
   * import type { WatchTap } from "@haptic/k8s-watcher/testing";
   *
   * const tap: WatchTap = { sent: (stream) => stream.end() };
   * ```
   */
  end(): void;
}

/**
 * Changes what one watch stream sends, given to `call.serve({ watch })` by
 * a reactor. `line` rewrites each event line before it is sent; `sent` runs
 * when the stream opens (with `lines` 0) and after each line it sent, and
 * may end or break the stream. Both run synchronously with the write that
 * produced the line, so a stream ended there is closed before the write
 * returns.
 *
 * @example Corrupting the second event's JSON
 * ```ts
 * import type { WatchTap } from "@haptic/k8s-watcher/testing";
 *
 * const tap: WatchTap = {
 *   line: (text, stream) => stream.lines === 1 ? text.replace('"object":', '"object":{') : undefined,
 * };
 * ```
 */
export interface WatchTap {
  /**
   * The text to send instead of `text` (one JSON line with its newline), or
   * `undefined` to send it unchanged.
   *
   * @example Renaming every event's type
   * ```ts
   * import type { WatchTap } from "@haptic/k8s-watcher/testing";
   *
   * const tap: WatchTap = { line: (text) => text.replace('"type":"ADDED"', '"type":"SURPRISE"') };
   * ```
   */
  line?(text: string, stream: FakeWatchStream): string | undefined;
  /**
   * Runs when the stream opens and after each line it sent.
   *
   * @example Ending a stream after its first line
   * ```ts
   * import type { WatchTap } from "@haptic/k8s-watcher/testing";
   *
   * const tap: WatchTap = { sent: (stream) => stream.lines >= 1 && stream.end() };
   * ```
   */
  sent?(stream: FakeWatchStream): void;
}

/**
 * One request on its way through the reactors: what it asks for, the
 * request itself, and the ways to answer it besides a `Response` of the
 * reactor's own.
 *
 * @example Marking the server's answers to LIST with a header
 * ```ts
 * import { FakeApiServer, type ReactorCall } from "@haptic/k8s-watcher/testing";
 * import assert from "node:assert/strict";
 *
 * using server = new FakeApiServer();
 * server.addReactor({
 *   verb: "list",
 *   react: async (call: ReactorCall) => {
 *     const answer = await call.serve();
 *     const headers = new Headers(answer.headers);
 *     headers.set("x-seen-by", `reactor for ${call.resource?.resource}`);
 *     return new Response(answer.body, { status: answer.status, headers });
 *   },
 * });
 * const res = await server.handle(new Request(`${server.url}/api/v1/pods`));
 * assert.equal(res.headers.get("x-seen-by"), "reactor for pods");
 * await res.body?.cancel();
 * ```
 */
export interface ReactorCall {
  /** What the request does (never `any`). */
  readonly verb: Exclude<ReactorVerb, "any">;
  /** The resource type, for resource requests (not for discovery). */
  readonly resource: ResourceInfo | undefined;
  /** The namespace from the path, when there is one. */
  readonly namespace: string | undefined;
  /** The object name from the path, when there is one. */
  readonly name: string | undefined;
  /** The subresource from the path (`status`), when there is one. */
  readonly subresource: string | undefined;
  /** The request URL, parsed. */
  readonly url: URL;
  /**
   * The request. Read a `clone()` of it: the server reads the body when
   * the reactor passes.
   */
  readonly request: Request;
  /**
   * The server's own answer (no other reactor sees the request): to change
   * it, or, for a watch, to serve it with `watch` changing its stream.
   *
   * @example Breaking a LIST's body
   * ```ts
   * import { FakeApiServer } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * using server = new FakeApiServer();
   * server.addReactor({
   *   verb: "list",
   *   react: async (call) => new Response((await (await call.serve()).text()).slice(0, 10)),
   * });
   * const res = await server.handle(new Request(`${server.url}/api/v1/pods`));
   * assert.equal(await res.text(), '{"kind":"P');
   * ```
   */
  serve(options?: { watch?: WatchTap }): Promise<Response>;
  /**
   * An answer with headers and a body that never comes, until the client
   * aborts or the server closes: a request that hangs.
   *
   * @example Every GET hangs
   * ```ts
   * import { FakeApiServer } from "@haptic/k8s-watcher/testing";
   *
   * await using server = new FakeApiServer();
   * server.addReactor({ verb: "get", react: (call) => call.hold() });
   * ```
   */
  hold(): Response;
}

/**
 * A reactor: which requests it sees (verb, resource, namespace, name) and
 * how long it stays armed, and a function that answers a request or passes
 * it on. Add one with `FakeApiServer.addReactor` (tried after those added
 * before) or `prependReactor` (tried first); the server's own handling
 * comes after every reactor. `react` returns a `Response` (or a promise of
 * one) to answer, `call.serve()`'s answer (changed or not) to wrap the
 * server's, `call.hold()` to hang, or `undefined` to pass: a pass is not
 * counted as a hit. The faults of `injectFault` are reactors too
 * ({@linkcode faultReactor}).
 *
 * @example A 429 with Retry-After on the first LIST of configmaps
 * ```ts
 * import { FakeApiServer, type Reactor } from "@haptic/k8s-watcher/testing";
 * import assert from "node:assert/strict";
 *
 * const throttle: Reactor = {
 *   verb: "list",
 *   resource: "configmaps",
 *   times: 1,
 *   react: () =>
 *     Response.json(
 *       { kind: "Status", apiVersion: "v1", status: "Failure", reason: "TooManyRequests", code: 429 },
 *       { status: 429, headers: { "retry-after": "1" } },
 *     ),
 * };
 * using server = new FakeApiServer();
 * const handle = server.addReactor(throttle);
 * const res = await server.handle(new Request(`${server.url}/api/v1/configmaps`));
 * assert.equal(res.status, 429);
 * await res.body?.cancel();
 * assert.equal(handle.hits, 1);
 * assert.equal(handle.active, false);
 * ```
 */
export interface Reactor {
  /**
   * The kinds of request it sees.
   *
   * @default {"any"}
   */
  verb?: ReactorVerb | readonly ReactorVerb[];
  /** Only requests for this resource type. */
  resource?: ResourceRef;
  /** Only requests whose path names this namespace. */
  namespace?: string;
  /** Only requests whose path names this object. */
  name?: string;
  /**
   * How many requests it answers before it is disarmed.
   *
   * @default {Infinity}
   */
  times?: number;
  /** How long it stays armed, in milliseconds of the server clock. */
  forMs?: number;
  /**
   * Answers a request it sees, or returns `undefined` to pass it on.
   *
   * @example Forbidding one user agent
   * ```ts
   * import type { Reactor } from "@haptic/k8s-watcher/testing";
   *
   * const reactor: Reactor = {
   *   react: (call) =>
   *     call.request.headers.get("user-agent") === "old-tool" ? new Response(null, { status: 403 }) : undefined,
   * };
   * ```
   */
  react(call: ReactorCall): Response | Promise<Response> | undefined;
}

/**
 * An added reactor: how often it answered, whether it is still armed, and a
 * way to remove it.
 *
 * @example Removing a reactor
 * ```ts
 * import { FakeApiServer, type ReactorHandle } from "@haptic/k8s-watcher/testing";
 * import assert from "node:assert/strict";
 *
 * using server = new FakeApiServer();
 * const handle: ReactorHandle = server.addReactor({ react: () => new Response(null, { status: 500 }) });
 * handle.cancel();
 * assert.equal(handle.active, false);
 * ```
 */
export interface ReactorHandle {
  /** How many requests it has answered. */
  readonly hits: number;
  /** Whether it will still answer a matching request. */
  readonly active: boolean;
  /**
   * Disarms it.
   *
   * @example Disarming a reactor that has not answered
   * ```ts
   * import { FakeApiServer } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * using server = new FakeApiServer();
   * const reactor = server.addReactor({ verb: "watch", react: (call) => call.hold() });
   * reactor.cancel();
   * assert.equal(reactor.hits, 0);
   * ```
   */
  cancel(): void;
}
