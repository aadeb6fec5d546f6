/**
 * The states of the list-then-watch machine, built in one place each (one
 * literal shape per phase keeps the hot path monomorphic), and the shape
 * checks for what the server sends.
 *
 * @module
 */
import type { KubeObject } from "../types.ts";
import type {
  ListingState,
  ListWatchStateCommon,
  StreamingInitialState,
  WatchingState,
} from "./list_watch_types.ts";

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

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}

export function hasMetadata(value: unknown): value is KubeObject {
  return typeof value === "object" && value !== null &&
    typeof (value as { metadata?: unknown }).metadata === "object" &&
    (value as { metadata?: unknown }).metadata !== null;
}

/** Whether `type` is a watch event type (`ERROR` aside). */
export function isEventType(type: unknown): boolean {
  return type === "ADDED" || type === "MODIFIED" || type === "DELETED" ||
    type === "BOOKMARK";
}

/** `value` when it is a non-empty string, else `fallback`. */
export function stringOr<T extends string | undefined>(
  value: unknown,
  fallback: T,
): string | T {
  return typeof value === "string" && value !== "" ? value : fallback;
}

/** A LIST answer's parts, as the machine needs them. */
export interface ListAnswer {
  /** The items with metadata: the answer's own array when all have it. */
  items: KubeObject[];
  /** How many items had no metadata and were left out. */
  skipped: number;
  resourceVersion: string;
  /** The token of the next page, when there is one. */
  continueToken: string | undefined;
}

/** The parts of a LIST answer, or what is wrong with it. */
export function readListAnswer(list: unknown): ListAnswer | string {
  if (!isRecord(list)) return "it is not an object";
  const items = list.items ?? [];
  if (!Array.isArray(items)) return "its items are not an array";
  const meta = isRecord(list.metadata) ? list.metadata : {};
  const resourceVersion = stringOr(meta.resourceVersion, undefined);
  if (resourceVersion === undefined) {
    return "it has no metadata.resourceVersion";
  }
  let skipped = 0;
  for (const item of items) if (!hasMetadata(item)) skipped++;
  return {
    // The answer's array is ours: adopted rather than copied.
    items: skipped === 0 ? items : items.filter(hasMetadata),
    skipped,
    resourceVersion,
    continueToken: stringOr(meta.continue, undefined),
  };
}
