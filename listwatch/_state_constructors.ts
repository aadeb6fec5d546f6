/**
 * The states of the list-then-watch machine, built in one place each (one
 * literal shape per phase keeps the hot path monomorphic). What the server
 * sent is checked in `_server_answers.ts`.
 *
 * @module
 */
import type {
  ListingState,
  ListWatchStateCommon,
  StreamingInitialState,
  WatchingState,
} from "./_list_watch_types.ts";
import { stringOr } from "./_server_answers.ts";

export function freshList(
  common: ListWatchStateCommon,
): ListingState | StreamingInitialState {
  return common.initialList === "stream"
    ? streaming(common)
    : listing(common, undefined, 0, true);
}

export function listing(
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

export function streaming(common: ListWatchStateCommon): StreamingInitialState {
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

export function streamedAt(
  state: StreamingInitialState,
  resourceVersion: unknown,
): StreamingInitialState {
  const rv = stringOr(resourceVersion, state.streamedVersion);
  return rv === state.streamedVersion
    ? state
    : { ...state, resourceVersion: rv, streamedVersion: rv };
}

export function watching(
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
export function counted(
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

export function rewatch(state: WatchingState): WatchingState {
  return watching(state, state.resourceVersion, {
    opened: false,
    openedAt: undefined,
    eventCount: 0,
    fromList: false,
  });
}
