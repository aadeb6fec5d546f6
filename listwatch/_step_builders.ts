/**
 * The steps of the list-then-watch machine: staying, entering a phase with
 * the request it starts with (LIST pages, watches, the initial event
 * stream, each with its query), and backing off.
 *
 * @module
 */
import type {
  ListingState,
  ListWatchCommand,
  ListWatchContext,
  ListWatchOutput,
  ListWatchState,
  ListWatchStep,
  RequestState,
} from "./_list_watch_types.ts";
import type { Fault, ListWatchNote } from "./list_watch_notes.ts";

/** Watch `timeoutSeconds` is drawn from this range, as client-go does. */
const MIN_WATCH_SECONDS = 300;
const MAX_WATCH_SECONDS = 600;
const NONE: readonly ListWatchOutput[] = Object.freeze([]);

/** Enters a phase that starts with a request, and asks for that request. */
export function enter(
  state: RequestState,
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

/** Stays in `state` (possibly a new one of the same phase). */
export function stay(
  state: ListWatchState,
  outputs: readonly ListWatchOutput[] = NONE,
): ListWatchStep {
  return { state, outputs, command: undefined };
}

/** Waits (at least `fault.retryAfterMs`), then enters `next`. */
export function backoff(
  next: RequestState,
  error: unknown,
  fault: Fault | undefined,
  reason: ListWatchNote,
): ListWatchStep {
  return {
    state: {
      phase: "backingOff",
      synced: next.synced,
      initialList: next.initialList,
      resourceVersion: next.resourceVersion,
      next,
    },
    outputs: NONE,
    command: {
      type: "backoff",
      error,
      retryAfterMs: fault?.retryAfterMs,
      reason,
    },
  };
}

/** A reason for the log, as an output. */
export function note(note: ListWatchNote): ListWatchOutput {
  return { type: "note", note };
}

// --- Queries -----------------------------------------------------------------

export function listQuery(
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
  const shard = context.shardSelector;
  if (shard) query.set("shardSelector", shard);
}

/** Random in [300, 600] so that many watchers do not reconnect in step. */
function watchSeconds(context: ListWatchContext): number {
  const span = MAX_WATCH_SECONDS - MIN_WATCH_SECONDS;
  return Math.min(
    MAX_WATCH_SECONDS,
    MIN_WATCH_SECONDS + Math.floor(context.random() * (span + 1)),
  );
}

export function urlOf(path: string, query: URLSearchParams): string {
  const qs = query.toString();
  return qs === "" ? path : `${path}?${qs}`;
}
