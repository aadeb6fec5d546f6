/**
 * The list-then-watch loop as a pure state machine, in the style of
 * kube-rs's `watcher`: {@linkcode listWatchTransition} takes the current
 * state and the result of one piece of I/O and returns the next state, what
 * to hand to the consumer, and the next piece of I/O to perform.
 *
 * It reads as a table, top to bottom: the dispatch on the phase, then one
 * function per phase, each handling the inputs that phase accepts (every
 * other input changes nothing), then the states (one literal shape per
 * phase keeps the hot path monomorphic) and the steps with the request each
 * phase starts with. The queries of those requests and the shape checks of
 * what the server sent are in `_list_watch_wire.ts`.
 * Failures, whether a request failed or an ERROR event came, take one path
 * per phase, through one classification (`_fault.ts`). Nothing here talks
 * to a server, sleeps, reads a clock (except through the
 * {@linkcode ListWatchContext}) or words a log line: the machine returns
 * typed reasons ({@linkcode ListWatchNote}) and `ListWatch` writes them.
 *
 * @module
 */
import type {
  BackingOffState,
  IdleState,
  ListingState,
  ListWatchCommand,
  ListWatchContext,
  ListWatchInput,
  ListWatchOutput,
  ListWatchState,
  ListWatchStateCommon,
  ListWatchStep,
  RequestState,
  StreamingInitialState,
  WatchingState,
} from "./_transition_types.ts";
import {
  type Fault,
  type InitialListMode,
  type ListWatchNote,
  MalformedListError,
  WatchClosedError,
} from "./list_watch_types.ts";
import { classifyFault, errorEventError, relistReasonOf } from "./_fault.ts";
import {
  hasMetadata,
  isEventType,
  isRecord,
  listQuery,
  readListAnswer,
  stringOr,
  urlOf,
  watchQuery,
} from "./_list_watch_wire.ts";

/** The bookmark annotation that ends an initial event stream. */
const INITIAL_EVENTS_END = "k8s.io/initial-events-end";
/** A watch closed sooner than this without events counts as a failure. */
const SHORT_WATCH_MS = 1_000;
const NONE: readonly ListWatchOutput[] = Object.freeze([]);

/**
 * Computes the next step of the list-then-watch loop. Inputs that do not
 * fit the current phase (a stale timer, say) change nothing.
 *
 * Pure apart from the context's `now()` and `random()`, except that a
 * streamed initial list accumulates in place in the `items` of the
 * `streamingInitial` state.
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
  switch (state.phase) {
    case "watching":
      return watchingStep(state, input, context);
    case "idle":
      return idleStep(state, input, context);
    case "listing":
      return listingStep(state, input, context);
    case "streamingInitial":
      return streamingStep(state, input, context);
    case "backingOff":
      return backingOffStep(state, input, context);
  }
}

// --- idle ------------------------------------------------------------------

function idleStep(
  state: IdleState,
  input: ListWatchInput,
  context: ListWatchContext,
): ListWatchStep {
  return input.type === "start"
    ? enter(freshList(state), context)
    : stay(state);
}

// --- listing ---------------------------------------------------------------

function listingStep(
  state: ListingState,
  input: ListWatchInput,
  context: ListWatchContext,
): ListWatchStep {
  switch (input.type) {
    case "listPage":
      return listPage(state, input.list, context);
    case "listFailed":
      return listFault(state, input.error, context);
    case "relist":
      return relistRequested(state, context);
    default:
      return stay(state);
  }
}

function listPage(
  state: ListingState,
  list: unknown,
  context: ListWatchContext,
): ListWatchStep {
  const answer = readListAnswer(list);
  if (typeof answer === "string") {
    const error = new MalformedListError(context.path, answer);
    return listFault(state, error, context);
  }
  const { items, skipped, resourceVersion, continueToken } = answer;
  const outputs: ListWatchOutput[] = skipped === 0
    ? []
    : [note({ kind: "itemsWithoutMetadata", count: skipped })];
  const listedSoFar = state.listed + items.length;
  const first = state.continueToken === undefined;
  outputs.push({ type: "page", items, first, listedSoFar });
  if (continueToken !== undefined) {
    const next = listing(state, continueToken, listedSoFar, state.paginate);
    return enter(next, context, outputs);
  }
  outputs.push({
    type: "listed",
    resourceVersion,
    initial: !state.synced,
    shardSelector: answer.shardSelector,
  });
  return enter(
    watching({ ...state, synced: true }, resourceVersion, {
      opened: false,
      openedAt: undefined,
      eventCount: 0,
      fromList: true,
    }),
    context,
    outputs,
  );
}

/** One failure path for LIST requests and answers that are not lists. */
function listFault(
  state: ListingState,
  error: unknown,
  context: ListWatchContext,
): ListWatchStep {
  const fault = classifyFault(error);
  const url = urlOf(context.path, listQuery(state, context));
  if (fault.kind === "expired" && state.continueToken !== undefined) {
    // As client-go's pager does: one unpaginated list instead of paging
    // from a snapshot the server no longer holds.
    return enter(listing(state, undefined, 0, false), context, [
      note({ kind: "continueExpired", url }),
    ]);
  }
  return backoff(state, error, fault, {
    kind: "requestFailed",
    request: "list",
    fault,
    error,
    url,
    resourceVersion: undefined,
  });
}

// --- streamingInitial --------------------------------------------------------

function streamingStep(
  state: StreamingInitialState,
  input: ListWatchInput,
  context: ListWatchContext,
): ListWatchStep {
  switch (input.type) {
    case "watchOpened":
      return stay({ ...state, opened: true });
    case "watchEvent":
      return initialEvent(state, input.event, context);
    case "watchEnded":
      return fallBackToList(state, { why: "endedEarly" }, context);
    case "watchFailed":
      return streamFault(state, input.error, context);
    case "idleTimeout":
      return idleRestart(streaming(state), input.idleMs, context);
    case "initialStreamDeadline":
      return fallBackToList(state, {
        why: "deadline",
        afterMs: input.afterMs,
      }, context);
    case "relist":
      return relistRequested(state, context);
    default:
      return stay(state);
  }
}

/** One event of the initial stream: collected until the end bookmark. */
function initialEvent(
  state: StreamingInitialState,
  event: unknown,
  context: ListWatchContext,
): ListWatchStep {
  if (!isRecord(event)) return skipEvent(state, undefined);
  const { type, object } = event;
  if (type === "ERROR") {
    return streamFault(state, errorEventError(object, context.path), context);
  }
  if (!isEventType(type) || !hasMetadata(object)) {
    return skipEvent(state, type);
  }
  const meta = object.metadata;
  if (type !== "BOOKMARK") {
    const key = `${meta.namespace ?? ""}/${meta.name ?? ""}`;
    if (type === "DELETED") state.items.delete(key);
    else state.items.set(key, object);
    return stay(streamedAt(state, meta.resourceVersion));
  }
  if (meta.annotations?.[INITIAL_EVENTS_END] !== "true") {
    return stay(streamedAt(state, meta.resourceVersion));
  }
  const rv = stringOr(meta.resourceVersion, state.streamedVersion);
  if (rv === undefined) {
    return stay(state, [note({
      kind: "eventSkipped",
      problem: "endBookmarkWithoutVersion",
      eventType: type,
    })]);
  }
  const items = Array.from(state.items.values());
  return stay(
    watching({ ...state, synced: true }, rv, {
      opened: true,
      openedAt: context.now(),
      eventCount: 1,
      fromList: true,
    }),
    [
      { type: "page", items, first: true, listedSoFar: items.length },
      {
        type: "listed",
        resourceVersion: rv,
        initial: !state.synced,
        streamed: true,
      },
    ],
  );
}

/** One failure path for the initial stream: its request and ERROR events. */
function streamFault(
  state: StreamingInitialState,
  error: unknown,
  context: ListWatchContext,
): ListWatchStep {
  const fault = classifyFault(error);
  // A server without the feature rejects the parameters (400, 422) or does
  // not serve the path (404); auth failures and throttling are not that.
  if (!state.opened && fault.kind === "rejected") {
    return fallBackToList(state, {
      why: "rejected",
      code: fault.code,
      error,
    }, context);
  }
  return backoff(streaming(state), error, fault, {
    kind: "requestFailed",
    request: "stream",
    fault,
    error,
    url: undefined,
    resourceVersion: undefined,
  });
}

function fallBackToList(
  state: StreamingInitialState,
  why: Omit<Extract<ListWatchNote, { kind: "streamUnsupported" }>, "kind">,
  context: ListWatchContext,
): ListWatchStep {
  const common = { ...state, initialList: "list" as const };
  return enter(freshList(common), context, [
    note({ kind: "streamUnsupported", ...why }),
  ]);
}

// --- watching ----------------------------------------------------------------

function watchingStep(
  state: WatchingState,
  input: ListWatchInput,
  context: ListWatchContext,
): ListWatchStep {
  switch (input.type) {
    case "watchEvent":
      return watchEvent(state, input.event, context);
    case "watchOpened":
      return stay(watching(state, state.resourceVersion, {
        opened: true,
        openedAt: context.now(),
        eventCount: 0,
        fromList: state.fromList,
      }));
    case "watchEnded":
      return watchEnded(state, context);
    case "watchFailed":
      return watchFault(state, input.error, context);
    case "idleTimeout":
      return idleRestart(rewatch(state), input.idleMs, context);
    case "relist":
      return relistRequested(state, context);
    default:
      return stay(state);
  }
}

/** The hot path: one watch event. */
function watchEvent(
  state: WatchingState,
  event: unknown,
  context: ListWatchContext,
): ListWatchStep {
  if (!isRecord(event)) return skipEvent(counted(state), undefined);
  const { type, object } = event;
  if (type === "ADDED" || type === "MODIFIED" || type === "DELETED") {
    if (!hasMetadata(object)) return skipEvent(counted(state), type);
    return {
      state: counted(state, object.metadata.resourceVersion),
      outputs: [{ type: "event", eventType: type, object }],
      command: undefined,
    };
  }
  if (type === "BOOKMARK") {
    const meta = hasMetadata(object) ? object.metadata : undefined;
    return stay(counted(state, meta?.resourceVersion));
  }
  if (type === "ERROR") {
    return watchFault(state, errorEventError(object, context.path), context);
  }
  return skipEvent(counted(state), type);
}

/** One failure path for watches: failed requests, broken streams, ERROR events. */
function watchFault(
  state: WatchingState,
  error: unknown,
  context: ListWatchContext,
): ListWatchStep {
  const fault = classifyFault(error);
  if (relistReasonOf(fault) !== undefined) {
    // Relisting at once could loop when, say, API servers behind a balancer
    // disagree; a watch that got nothing since its list waits first.
    const paused = state.fromList && state.eventCount === 0;
    const reason: ListWatchNote = {
      kind: "relist",
      fault,
      resourceVersion: state.resourceVersion,
      paused,
    };
    return paused
      ? backoff(freshList(state), error, undefined, reason)
      : enter(freshList(state), context, [note(reason)]);
  }
  return backoff(rewatch(state), error, fault, {
    kind: "requestFailed",
    request: "watch",
    fault,
    error,
    url: undefined,
    resourceVersion: state.resourceVersion,
  });
}

function watchEnded(
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
    return backoff(rewatch(state), error, undefined, {
      kind: "closedAtOnce",
      afterMs: openMs,
      resourceVersion: state.resourceVersion,
    });
  }
  return enter(rewatch(state), context, [
    note({ kind: "watchEnded", resourceVersion: state.resourceVersion }),
  ]);
}

// --- backingOff --------------------------------------------------------------

function backingOffStep(
  state: BackingOffState,
  input: ListWatchInput,
  context: ListWatchContext,
): ListWatchStep {
  switch (input.type) {
    case "backoffElapsed":
      return enter(state.next, context);
    case "relist":
      // The wait stands (the server is failing); what follows it is a
      // fresh list.
      return stay({ ...state, next: freshList(state) });
    default:
      return stay(state);
  }
}

// --- Shared by phases -------------------------------------------------------

/**
 * The consumer asked for a complete list again (what it selects changed):
 * the request under way is abandoned and a fresh list starts, from its
 * first page. The loop stays synced: the list that comes is a relist.
 */
function relistRequested(
  state: RequestState,
  context: ListWatchContext,
): ListWatchStep {
  return enter(freshList(state), context, [
    note({ kind: "relistRequested", phase: state.phase }),
  ]);
}

/** A stream went silent for `idleMs`: the same request again. */
function idleRestart(
  next: StreamingInitialState | WatchingState,
  idleMs: number,
  context: ListWatchContext,
): ListWatchStep {
  const watch = next.phase === "watching";
  return enter(next, context, [note({
    kind: "idle",
    request: watch ? "watch" : "stream",
    idleMs,
    resourceVersion: watch ? next.resourceVersion : undefined,
  })]);
}

/** A line that is no usable event: skipped, with the reason why. */
function skipEvent(
  state: WatchingState | StreamingInitialState,
  type: unknown,
): ListWatchStep {
  return stay(state, [note({
    kind: "eventSkipped",
    problem: isEventType(type)
      ? "noMetadata"
      : typeof type === "string"
      ? "unknownType"
      : "notAnEvent",
    eventType: type,
  })]);
}

// --- States: one literal shape per phase -------------------------------------

/**
 * The state a loop starts in.
 *
 * @param options The initial-list mode, and what an earlier run of the loop
 * knew (when a loop is restarted).
 * @returns An idle state.
 */
export function initialListWatchState(
  options?: {
    initialList?: InitialListMode;
    synced?: boolean;
    resourceVersion?: string;
  },
): IdleState {
  if (options === undefined) options = {};
  return {
    phase: "idle",
    synced: options.synced ?? false,
    initialList: options.initialList ?? "list",
    resourceVersion: options.resourceVersion,
  };
}

function freshList(
  common: ListWatchStateCommon,
): ListingState | StreamingInitialState {
  return common.initialList === "stream"
    ? streaming(common)
    : listing(common, undefined, 0, true);
}

function listing(
  common: ListWatchStateCommon,
  continueToken: string | undefined,
  listed: number,
  paginate: boolean,
): ListingState {
  return {
    phase: "listing",
    synced: common.synced,
    initialList: common.initialList,
    resourceVersion: common.resourceVersion,
    continueToken,
    listed,
    paginate,
  };
}

function streaming(common: ListWatchStateCommon): StreamingInitialState {
  return {
    phase: "streamingInitial",
    synced: common.synced,
    initialList: common.initialList,
    resourceVersion: common.resourceVersion,
    opened: false,
    items: new Map(),
    streamedVersion: undefined,
  };
}

function streamedAt(
  state: StreamingInitialState,
  resourceVersion: unknown,
): StreamingInitialState {
  const rv = stringOr(resourceVersion, state.streamedVersion);
  return rv === state.streamedVersion
    ? state
    : { ...state, resourceVersion: rv, streamedVersion: rv };
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
  resourceVersion?: unknown,
): WatchingState {
  return {
    phase: "watching",
    synced: state.synced,
    initialList: state.initialList,
    resourceVersion: stringOr(resourceVersion, state.resourceVersion),
    opened: state.opened,
    openedAt: state.openedAt,
    eventCount: state.eventCount + 1,
    fromList: state.fromList,
  };
}

function rewatch(state: WatchingState): WatchingState {
  return watching(state, state.resourceVersion, {
    opened: false,
    openedAt: undefined,
    eventCount: 0,
    fromList: false,
  });
}

// --- Steps: staying, entering a phase with its request, backing off ----------

/** Enters a phase that starts with a request, and asks for that request. */
function enter(
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
      query: watchQuery(undefined, context),
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
function stay(
  state: ListWatchState,
  outputs: readonly ListWatchOutput[] = NONE,
): ListWatchStep {
  return { state, outputs, command: undefined };
}

/** Waits (at least `fault.retryAfterMs`), then enters `next`. */
function backoff(
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
function note(note: ListWatchNote): ListWatchOutput {
  return { type: "note", note };
}
