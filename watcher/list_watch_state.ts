/**
 * The list-then-watch loop as a pure state machine, in the style of
 * kube-rs's `watcher`: {@linkcode listWatchTransition} takes the current state and the
 * result of one piece of I/O and returns the next state, what to hand to the
 * consumer, and the next piece of I/O to perform. `ListWatch` performs that
 * I/O; here nothing talks to a server, sleeps or reads a clock except through
 * the {@linkcode ListWatchContext}, so every transition is testable alone.
 *
 * @module
 */
import type { KubeObject } from "../types.ts";
import type { LogLevel } from "../logger.ts";
import { ApiError, type KubeStatus } from "../client/api_error.ts";
import { httpStatusOf } from "../client/http_status.ts";
import { JsonLinesError } from "../client/json_lines.ts";
import type {
  IdleState,
  InitialListMode,
  ListingState,
  ListWatchCommand,
  ListWatchContext,
  ListWatchInput,
  ListWatchOutput,
  ListWatchState,
  ListWatchStateCommon,
  ListWatchStep,
  StreamingInitialState,
  WatchingState,
} from "./list_watch_types.ts";
import { MalformedListError, WatchClosedError } from "./list_watch_errors.ts";
/**
 * The state a loop starts in.
 *
 * @example
 * ```ts
 * import { initialListWatchState, listWatchTransition } from "@haptic/k8s-watcher";
 * import assert from "node:assert/strict";
 *
 * const context = { path: "/api/v1/pods", pageSize: 500, random: () => 0, now: () => 0 };
 * const step = listWatchTransition(initialListWatchState(), { type: "start" }, context);
 * assert.equal(step.state.phase, "listing");
 * assert.equal(step.command?.type, "list");
 * ```
 *
 * @param options The initial-list mode, and whether a list was delivered
 * before (when a loop is restarted).
 * @returns An idle state.
 */
export function initialListWatchState(
  options: { initialList?: InitialListMode; synced?: boolean } = {},
): IdleState {
  return {
    phase: "idle",
    synced: options.synced ?? false,
    initialList: options.initialList ?? "list",
  };
}

/** The bookmark annotation that ends an initial event stream. */
const INITIAL_EVENTS_END = "k8s.io/initial-events-end";
/** Watch `timeoutSeconds` is drawn from this range, as client-go does. */
const MIN_WATCH_SECONDS = 300;
const MAX_WATCH_SECONDS = 600;
/** A watch closed sooner than this without events counts as a failure. */
const SHORT_WATCH_MS = 1_000;
const NONE: readonly ListWatchOutput[] = Object.freeze([]);

/**
 * Computes the next step of the list-then-watch loop. Inputs that do not
 * fit the current phase (a stale timer, say) change nothing.
 *
 * Pure apart from the context's `now()` and `random()`, except that list
 * items accumulate in place in the `items` of `listing` and
 * `streamingInitial` states.
 *
 * @example Paging, then watching from the list's resourceVersion
 * ```ts
 * import { initialListWatchState, listWatchTransition } from "@haptic/k8s-watcher";
 * import assert from "node:assert/strict";
 *
 * const context = { path: "/api/v1/pods", pageSize: 2, random: () => 0, now: () => 0 };
 * let step = listWatchTransition(initialListWatchState(), { type: "start" }, context);
 * assert.equal(step.command?.type === "list" && step.command.query.get("limit"), "2");
 *
 * const pod = (name: string) => ({ metadata: { name, namespace: "default" } });
 * step = listWatchTransition(step.state, {
 *   type: "listPage",
 *   list: { metadata: { resourceVersion: "10", continue: "next" }, items: [pod("a"), pod("b")] },
 * }, context);
 * assert.equal(step.command?.type === "list" && step.command.query.get("continue"), "next");
 *
 * step = listWatchTransition(step.state, {
 *   type: "listPage",
 *   list: { metadata: { resourceVersion: "10" }, items: [pod("c")] },
 * }, context);
 * const delivered = step.outputs.find((o) => o.type === "deliverList");
 * assert.equal(delivered?.type === "deliverList" && delivered.objects.length, 3);
 * assert.equal(step.state.phase, "watching");
 * assert.equal(step.command?.type === "watch" && step.command.query.get("resourceVersion"), "10");
 * ```
 *
 * @param state The current state.
 * @param input What the last I/O produced.
 * @param context The loop's parameters, clock and random source.
 * @returns The next state, the outputs and the next command.
 */
export function listWatchTransition(
  state: ListWatchState,
  input: ListWatchInput,
  context: ListWatchContext,
): ListWatchStep {
  switch (input.type) {
    case "watchEvent":
      if (state.phase === "watching") {
        return onWatchEvent(state, input.event, context);
      }
      if (state.phase === "streamingInitial") {
        return onInitialEvent(state, input.event, context);
      }
      return stay(state);
    case "start":
      return state.phase === "idle"
        ? enter(freshListState(state), context)
        : stay(state);
    case "listPage":
      return state.phase === "listing"
        ? onListPage(state, input.list, context)
        : stay(state);
    case "listFailed":
      return state.phase === "listing"
        ? onListFailed(state, input.error, context)
        : stay(state);
    case "watchOpened":
      if (state.phase === "watching") {
        return stay(watching(state, state.resourceVersion, {
          opened: true,
          openedAt: context.now(),
          eventCount: 0,
          fromList: state.fromList,
        }));
      }
      if (state.phase === "streamingInitial") {
        return stay({ ...state, opened: true });
      }
      return stay(state);
    case "watchEnded":
      if (state.phase === "watching") return onWatchEnded(state, context);
      if (state.phase === "streamingInitial") {
        return fallBackToList(
          state,
          "the server closed the initial event stream before its end bookmark",
          context,
        );
      }
      return stay(state);
    case "watchFailed":
      if (state.phase === "watching") {
        return onWatchFailed(state, input.error, context);
      }
      if (state.phase === "streamingInitial") {
        return onInitialStreamFailed(state, input.error, context);
      }
      return stay(state);
    case "idleTimeout":
      if (state.phase === "watching") {
        return enter(
          rewatch(state),
          context,
          [log(
            "warn",
            `Watch of ${context.path} received no bytes for ${input.idleMs} ms; reconnecting from resourceVersion ${state.resourceVersion}`,
            {
              path: context.path,
              resourceVersion: state.resourceVersion,
              idleMs: input.idleMs,
            },
          )],
        );
      }
      if (state.phase === "streamingInitial") {
        return enter(streaming(state), context, [log(
          "warn",
          `Initial event stream of ${context.path} received no bytes for ${input.idleMs} ms; starting it again`,
          { path: context.path, idleMs: input.idleMs },
        )]);
      }
      return stay(state);
    case "initialStreamDeadline":
      return state.phase === "streamingInitial"
        ? fallBackToList(
          state,
          `the initial-events-end bookmark did not arrive within ${input.afterMs} ms`,
          context,
        )
        : stay(state);
    case "backoffElapsed":
      return state.phase === "backingOff"
        ? enter(state.next, context)
        : stay(state);
  }
}

// --- Listing ---------------------------------------------------------------

function onListPage(
  state: ListingState,
  list: unknown,
  context: ListWatchContext,
): ListWatchStep {
  if (!isRecord(list)) {
    return listMalformed(state, "it is not an object", context);
  }
  const pageItems = list.items ?? [];
  if (!Array.isArray(pageItems)) {
    return listMalformed(state, "its items are not an array", context);
  }
  const meta = isRecord(list.metadata) ? list.metadata : undefined;
  const resourceVersion = meta?.resourceVersion;
  if (typeof resourceVersion !== "string" || resourceVersion === "") {
    return listMalformed(state, "it has no metadata.resourceVersion", context);
  }

  let items = state.items;
  let skipped = 0;
  if (items.length === 0 && countWithoutMetadata(pageItems) === 0) {
    // The first page's array is ours: adopt it rather than copy it.
    items = pageItems as KubeObject[];
  } else {
    for (const item of pageItems) {
      if (hasMetadata(item)) items.push(item);
      else skipped++;
    }
  }
  const outputs: ListWatchOutput[] = [];
  if (skipped > 0) {
    outputs.push(log(
      "warn",
      `List of ${context.path} returned ${skipped} object(s) without metadata; skipped`,
      { path: context.path, skipped },
    ));
  }
  outputs.push({ type: "progress", listedSoFar: items.length });

  const token = meta?.continue;
  if (typeof token === "string" && token !== "") {
    return enter(
      listing(state, token, items, state.paginate),
      context,
      outputs,
    );
  }
  outputs.push({
    type: "deliverList",
    objects: items,
    resourceVersion,
    initial: !state.synced,
  });
  const common = { synced: true, initialList: state.initialList };
  return enter(
    watching(common, resourceVersion, {
      opened: false,
      openedAt: undefined,
      eventCount: 0,
      fromList: true,
    }),
    context,
    outputs,
  );
}

function onListFailed(
  state: ListingState,
  error: unknown,
  context: ListWatchContext,
): ListWatchStep {
  const fault = faultOf(error);
  const url = urlOf(context.path, listQuery(state, context));
  if (fault.code === 410 && state.continueToken !== undefined) {
    // As client-go's pager does: one unpaginated list instead of paging
    // from a snapshot the server no longer holds.
    return enter(
      listing(state, undefined, [], false),
      context,
      [log(
        "info",
        `Continue token expired while paging ${context.path}; listing again in one request`,
        { url },
      )],
    );
  }
  const fields = { url, code: fault.code, reason: fault.reason, error };
  const hint = hintFor(fault.code);
  if (hint !== undefined) {
    return backoff(state, state, {
      error,
      retryAfterMs: fault.retryAfterMs,
      level: "error",
      message: `List of ${url} failed with ${fault.code}${
        fault.reason ? ` ${fault.reason}` : ""
      }: ${hint}`,
      fields: { ...fields, hint },
    });
  }
  return backoff(state, state, {
    error,
    retryAfterMs: fault.retryAfterMs,
    level: "warn",
    message: `List of ${url} failed: ${messageOf(error)}`,
    fields,
  });
}

function listMalformed(
  state: ListingState,
  problem: string,
  context: ListWatchContext,
): ListWatchStep {
  const error = new MalformedListError(context.path, problem);
  return backoff(state, state, {
    error,
    retryAfterMs: undefined,
    level: "warn",
    message: error.message,
    fields: { path: context.path },
  });
}

// --- Streaming the initial list -------------------------------------------

function onInitialEvent(
  state: StreamingInitialState,
  event: unknown,
  context: ListWatchContext,
): ListWatchStep {
  const type = isRecord(event) ? event.type : undefined;
  const object = isRecord(event) ? event.object : undefined;
  switch (type) {
    case "ADDED":
    case "MODIFIED":
    case "DELETED": {
      if (!hasMetadata(object)) return skipEvent(state, type, context);
      const meta = object.metadata;
      const key = `${meta.namespace ?? ""}/${meta.name ?? ""}`;
      if (type === "DELETED") state.items.delete(key);
      else state.items.set(key, object);
      return stay(streamingAt(state, meta.resourceVersion));
    }
    case "BOOKMARK": {
      if (!hasMetadata(object)) return skipEvent(state, type, context);
      const meta = object.metadata;
      const rv = stringOr(meta.resourceVersion, state.resourceVersion);
      if (meta.annotations?.[INITIAL_EVENTS_END] !== "true") {
        return stay(streamingAt(state, rv));
      }
      if (rv === undefined) {
        return skip(state, "end bookmark without resourceVersion", context);
      }
      const next = watching(
        { synced: true, initialList: state.initialList },
        rv,
        {
          opened: true,
          openedAt: context.now(),
          eventCount: 1,
          fromList: true,
        },
      );
      return {
        state: next,
        outputs: [{
          type: "deliverList",
          objects: Array.from(state.items.values()),
          resourceVersion: rv,
          initial: !state.synced,
        }],
        command: undefined,
      };
    }
    case "ERROR": {
      const error = errorEventError(object, context);
      return backoff(state, streaming(state), {
        error,
        retryAfterMs: undefined,
        level: "warn",
        message:
          `Initial event stream of ${context.path} sent an ERROR event (${error.message}); starting it again`,
        fields: { path: context.path, code: error.code, reason: error.reason },
      });
    }
    default:
      return skipEvent(state, type, context);
  }
}

function onInitialStreamFailed(
  state: StreamingInitialState,
  error: unknown,
  context: ListWatchContext,
): ListWatchStep {
  const { code, retryAfterMs } = faultOf(error);
  // A server without the feature rejects the parameters (400, 422) or does
  // not serve the path (404); auth failures and throttling are not that.
  if (
    !state.opened && code !== undefined && code >= 400 && code < 500 &&
    code !== 401 && code !== 403 && code !== 408 && code !== 429
  ) {
    return fallBackToList(
      state,
      `the server rejected it with ${code}: ${messageOf(error)}`,
      context,
    );
  }
  const hint = hintFor(code);
  return backoff(state, streaming(state), {
    error,
    retryAfterMs,
    level: hint === undefined ? "warn" : "error",
    message: `Initial event stream of ${context.path} failed: ${
      messageOf(error)
    }${hint === undefined ? "" : ` (${hint})`}`,
    fields: { path: context.path, code, hint, error },
  });
}

function fallBackToList(
  state: StreamingInitialState,
  why: string,
  context: ListWatchContext,
): ListWatchStep {
  const common = { synced: state.synced, initialList: "list" as const };
  return enter(listing(common, undefined, [], true), context, [log(
    "info",
    `Streaming the initial list of ${context.path} is not supported (${why}); using LIST from now on`,
    { path: context.path },
  )]);
}

// --- Watching --------------------------------------------------------------

function onWatchEvent(
  state: WatchingState,
  event: unknown,
  context: ListWatchContext,
): ListWatchStep {
  const type = isRecord(event) ? event.type : undefined;
  if (type === "ADDED" || type === "MODIFIED" || type === "DELETED") {
    const object = (event as { object?: unknown }).object;
    if (!hasMetadata(object)) return skipEvent(counted(state), type, context);
    return {
      state: watching(
        state,
        stringOr(object.metadata.resourceVersion, state.resourceVersion),
        {
          opened: state.opened,
          openedAt: state.openedAt,
          eventCount: state.eventCount + 1,
          fromList: state.fromList,
        },
      ),
      outputs: [{ type: "deliverEvent", eventType: type, object }],
      command: undefined,
    };
  }
  const object = isRecord(event) ? event.object : undefined;
  if (type === "BOOKMARK") {
    const rv = hasMetadata(object)
      ? stringOr(object.metadata.resourceVersion, state.resourceVersion)
      : state.resourceVersion;
    return stay(counted(state, rv));
  }
  if (type === "ERROR") return onErrorEvent(state, object, context);
  return skipEvent(counted(state), type, context);
}

function onErrorEvent(
  state: WatchingState,
  object: unknown,
  context: ListWatchContext,
): ListWatchStep {
  const error = errorEventError(object, context);
  const status = error.status ?? {};
  const fields = {
    path: context.path,
    resourceVersion: state.resourceVersion,
    code: error.code,
    reason: error.reason,
  };
  if (error.code === 410) {
    return relist(
      state,
      error,
      "info",
      `Watch history of ${context.path} expired at resourceVersion ${state.resourceVersion} (410); relisting`,
      fields,
      context,
    );
  }
  if (isTooLarge(error.code, status, error.message)) {
    return relist(
      state,
      error,
      "warn",
      tooLargeMessage(state, context),
      fields,
      context,
    );
  }
  const hint = hintFor(error.code);
  return backoff(state, rewatch(state), {
    error,
    // A 429 in the stream carries its wait in details.retryAfterSeconds.
    retryAfterMs: faultOf(error).retryAfterMs,
    level: hint === undefined ? "warn" : "error",
    message:
      `${error.message}; re-watching from resourceVersion ${state.resourceVersion}${
        hint === undefined ? "" : ` (${hint})`
      }`,
    fields,
  });
}

function onWatchFailed(
  state: WatchingState,
  error: unknown,
  context: ListWatchContext,
): ListWatchStep {
  const fault = faultOf(error);
  const fields = {
    path: context.path,
    resourceVersion: state.resourceVersion,
    code: fault.code,
    reason: fault.reason,
    error,
  };
  if (fault.code === 410) {
    return relist(
      state,
      error,
      "info",
      `Watch history of ${context.path} expired at resourceVersion ${state.resourceVersion} (410); relisting`,
      fields,
      context,
    );
  }
  if (fault.tooLarge) {
    return relist(
      state,
      error,
      "warn",
      tooLargeMessage(state, context),
      fields,
      context,
    );
  }
  const what = fault.decode
    ? "Watch stream of " + context.path + " could not be decoded"
    : "Watch of " + context.path + " failed";
  const hint = hintFor(fault.code);
  return backoff(state, rewatch(state), {
    error,
    retryAfterMs: fault.retryAfterMs,
    level: hint === undefined ? "warn" : "error",
    message: `${what}: ${
      messageOf(error)
    }; re-watching from resourceVersion ${state.resourceVersion}${
      hint === undefined ? "" : ` (${hint})`
    }`,
    fields: hint === undefined ? fields : { ...fields, hint },
  });
}

function onWatchEnded(
  state: WatchingState,
  context: ListWatchContext,
): ListWatchStep {
  const openMs = state.openedAt === undefined
    ? 0
    : context.now() - state.openedAt;
  if (state.eventCount === 0 && openMs < SHORT_WATCH_MS) {
    // A proxy or server that closes every watch at once would otherwise
    // have us reconnect in a tight loop.
    const error = new WatchClosedError(context.path, openMs);
    return backoff(state, rewatch(state), {
      error,
      retryAfterMs: undefined,
      level: "warn",
      message:
        `${error.message}; re-watching from resourceVersion ${state.resourceVersion}`,
      fields: { path: context.path, resourceVersion: state.resourceVersion },
    });
  }
  return enter(rewatch(state), context, [log(
    "debug",
    `Watch of ${context.path} ended; resuming from resourceVersion ${state.resourceVersion}`,
    { path: context.path, resourceVersion: state.resourceVersion },
  )]);
}

/**
 * Starts a new (re)list. A relist demanded by a watch that had not yet
 * received anything since the list it started from waits first: relisting
 * at once could loop when, say, API servers behind a balancer disagree.
 */
function relist(
  state: WatchingState,
  error: unknown,
  level: LogLevel,
  message: string,
  fields: Record<string, unknown>,
  context: ListWatchContext,
): ListWatchStep {
  const next = freshListState(state);
  if (state.fromList && state.eventCount === 0) {
    return backoff(state, next, {
      error,
      retryAfterMs: undefined,
      level,
      message: `${message} (right after a list, so after a pause)`,
      fields,
    });
  }
  return enter(next, context, [log(level, message, fields)]);
}

function tooLargeMessage(
  state: WatchingState,
  context: ListWatchContext,
): string {
  return `The API server has not caught up with resourceVersion ${state.resourceVersion} of ${context.path} (too large resource version); relisting without a resourceVersion`;
}

// --- Steps and states ------------------------------------------------------

function stay(state: ListWatchState): ListWatchStep {
  return { state, outputs: NONE, command: undefined };
}

function enter(
  state: ListingState | StreamingInitialState | WatchingState,
  context: ListWatchContext,
  outputs: readonly ListWatchOutput[] = NONE,
): ListWatchStep {
  let command: ListWatchCommand;
  if (state.phase === "listing") {
    command = { type: "list", query: listQuery(state, context) };
  } else if (state.phase === "streamingInitial") {
    command = {
      type: "watch",
      query: streamQuery(context),
      initialStream: true,
      reconnect: false,
    };
  } else {
    command = {
      type: "watch",
      query: watchQuery(state.resourceVersion, context),
      initialStream: false,
      reconnect: !state.fromList,
    };
  }
  return { state, outputs, command };
}

function backoff(
  state: ListWatchState,
  next: ListingState | StreamingInitialState | WatchingState,
  command: Omit<Extract<ListWatchCommand, { type: "backoff" }>, "type">,
): ListWatchStep {
  return {
    state: {
      phase: "backingOff",
      synced: state.synced,
      initialList: next.initialList,
      next,
    },
    outputs: NONE,
    command: { type: "backoff", ...command },
  };
}

function freshListState(
  common: ListWatchStateCommon,
): ListingState | StreamingInitialState {
  return common.initialList === "stream"
    ? streaming(common)
    : listing(common, undefined, [], true);
}

function listing(
  common: ListWatchStateCommon,
  continueToken: string | undefined,
  items: KubeObject[],
  paginate: boolean,
): ListingState {
  return {
    phase: "listing",
    synced: common.synced,
    initialList: common.initialList,
    continueToken,
    items,
    paginate,
  };
}

function streaming(common: ListWatchStateCommon): StreamingInitialState {
  return {
    phase: "streamingInitial",
    synced: common.synced,
    initialList: common.initialList,
    opened: false,
    items: new Map(),
    resourceVersion: undefined,
  };
}

function streamingAt(
  state: StreamingInitialState,
  resourceVersion: unknown,
): StreamingInitialState {
  const rv = stringOr(resourceVersion, state.resourceVersion);
  return rv === state.resourceVersion
    ? state
    : { ...state, resourceVersion: rv };
}

function watching(
  common: ListWatchStateCommon,
  resourceVersion: string,
  connection: {
    opened: boolean;
    openedAt: number | undefined;
    eventCount: number;
    fromList: boolean;
  },
): WatchingState {
  // One literal shape for every watching state keeps the hot path monomorphic.
  return {
    phase: "watching",
    synced: common.synced,
    initialList: common.initialList,
    resourceVersion,
    opened: connection.opened,
    openedAt: connection.openedAt,
    eventCount: connection.eventCount,
    fromList: connection.fromList,
  };
}

/** The same watch, one more event received, possibly at a new version. */
function counted(
  state: WatchingState,
  resourceVersion: string = state.resourceVersion,
): WatchingState {
  return watching(state, resourceVersion, {
    opened: state.opened,
    openedAt: state.openedAt,
    eventCount: state.eventCount + 1,
    fromList: state.fromList,
  });
}

function rewatch(state: WatchingState): WatchingState {
  return watching(state, state.resourceVersion, {
    opened: false,
    openedAt: undefined,
    eventCount: 0,
    fromList: false,
  });
}

function skipEvent(
  state: WatchingState | StreamingInitialState,
  type: unknown,
  context: ListWatchContext,
): ListWatchStep {
  const what = type === "ADDED" || type === "MODIFIED" ||
      type === "DELETED" || type === "BOOKMARK"
    ? `${type} event without metadata`
    : typeof type === "string"
    ? `event of unknown type ${JSON.stringify(type)}`
    : "line that is not a watch event";
  return skip(state, what, context);
}

function skip(
  state: WatchingState | StreamingInitialState,
  what: string,
  context: ListWatchContext,
): ListWatchStep {
  return {
    state,
    outputs: [log("warn", `Watch of ${context.path} sent a ${what}; skipped`, {
      path: context.path,
    })],
    command: undefined,
  };
}

function log(
  level: LogLevel,
  message: string,
  fields: Record<string, unknown>,
): ListWatchOutput {
  return { type: "log", level, message, fields };
}

// --- Queries ---------------------------------------------------------------

function listQuery(
  state: ListingState,
  context: ListWatchContext,
): URLSearchParams {
  const query = new URLSearchParams();
  if (state.paginate) query.set("limit", String(context.pageSize));
  if (state.continueToken !== undefined) {
    query.set("continue", state.continueToken);
  }
  addSelectors(query, context);
  return query;
}

function watchQuery(
  resourceVersion: string,
  context: ListWatchContext,
): URLSearchParams {
  const query = new URLSearchParams();
  query.set("watch", "1");
  query.set("resourceVersion", resourceVersion);
  query.set("allowWatchBookmarks", "true");
  addSelectors(query, context);
  query.set("timeoutSeconds", String(watchSeconds(context)));
  return query;
}

function streamQuery(context: ListWatchContext): URLSearchParams {
  const query = new URLSearchParams();
  query.set("watch", "1");
  query.set("sendInitialEvents", "true");
  query.set("resourceVersionMatch", "NotOlderThan");
  query.set("allowWatchBookmarks", "true");
  addSelectors(query, context);
  query.set("timeoutSeconds", String(watchSeconds(context)));
  return query;
}

function addSelectors(query: URLSearchParams, context: ListWatchContext): void {
  if (context.labelSelector) query.set("labelSelector", context.labelSelector);
  if (context.fieldSelector) query.set("fieldSelector", context.fieldSelector);
}

/** Random in [300, 600] so that many watchers do not reconnect in step. */
function watchSeconds(context: ListWatchContext): number {
  const span = MAX_WATCH_SECONDS - MIN_WATCH_SECONDS;
  return Math.min(
    MAX_WATCH_SECONDS,
    MIN_WATCH_SECONDS + Math.floor(context.random() * (span + 1)),
  );
}

function urlOf(path: string, query: URLSearchParams): string {
  const qs = query.toString();
  return qs === "" ? path : `${path}?${qs}`;
}

// --- Errors ----------------------------------------------------------------

interface Fault {
  code: number | undefined;
  reason: string | undefined;
  retryAfterMs: number | undefined;
  tooLarge: boolean;
  decode: boolean;
}

/** Classifies anything a client threw, ours or `@cloudydeno`'s. */
function faultOf(error: unknown): Fault {
  const info = httpStatusOf(error);
  const status = error instanceof ApiError
    ? error.status
    : isRecord(error) && isRecord(error.status)
    ? error.status as KubeStatus
    : undefined;
  return {
    code: info.code,
    reason: info.reason,
    retryAfterMs: info.retryAfterSeconds === undefined
      ? undefined
      : info.retryAfterSeconds * 1000,
    tooLarge: isTooLarge(info.code, status, messageOf(error)),
    decode: error instanceof JsonLinesError,
  };
}

/**
 * "Too large resource version": the API server (or its watch cache) has not
 * seen the version yet, e.g. behind a load balancer; Kubernetes answers 504
 * Timeout with a `ResourceVersionTooLarge` cause.
 */
function isTooLarge(
  code: number | undefined,
  status: KubeStatus | undefined,
  message: string,
): boolean {
  if (
    message.includes("Too large resource version") ||
    status?.message?.includes("Too large resource version")
  ) {
    return true;
  }
  if (code !== 504 || status?.reason !== "Timeout") return false;
  const causes = status.details?.causes;
  return Array.isArray(causes) &&
    causes.some((c) => isRecord(c) && c.reason === "ResourceVersionTooLarge");
}

function errorEventError(object: unknown, context: ListWatchContext): ApiError {
  const status: KubeStatus = isRecord(object) ? object as KubeStatus : {};
  const code = typeof status.code === "number" ? status.code : undefined;
  const detail = [
    code === undefined ? "unknown code" : String(code),
    status.reason,
    status.message,
  ].filter(Boolean).join(" ");
  // ApiError needs a number; 0 stands for "the event carried no code".
  return new ApiError({
    code: code ?? 0,
    status,
    method: "GET",
    path: context.path,
    message: `Watch of ${context.path} sent an ERROR event: ${detail}`,
  });
}

function hintFor(code: number | undefined): string | undefined {
  switch (code) {
    case 400:
    case 422:
      return "is the label or field selector valid?";
    case 401:
      return "credentials rejected: is the token expired or the client certificate wrong?";
    case 403:
      return "RBAC missing? The identity needs the list and watch verbs on this resource";
    case 404:
      return "CRD not installed, namespace missing, or a typo in the group/version/resource?";
    case 405:
      return "does this resource support list and watch?";
    default:
      return undefined;
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

// --- Shapes ----------------------------------------------------------------

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}

function hasMetadata(value: unknown): value is KubeObject {
  return typeof value === "object" && value !== null &&
    typeof (value as { metadata?: unknown }).metadata === "object" &&
    (value as { metadata?: unknown }).metadata !== null;
}

function countWithoutMetadata(items: unknown[]): number {
  let count = 0;
  for (const item of items) if (!hasMetadata(item)) count++;
  return count;
}

function stringOr<T extends string | undefined>(
  value: unknown,
  fallback: T,
): string | T {
  return typeof value === "string" && value !== "" ? value : fallback;
}
