/**
 * The checks of `new ListWatch(…, options)`: each problem a
 * `WatcherConfigError` naming the option, the first one found thrown.
 *
 * @module
 */
import {
  LOOP_TIMEOUT_NAMES,
  optionNamesProblem,
  validateDuration,
  validateGvr,
  validateInitialList,
  validateLoopTimeouts,
  validatePositive,
} from "../_internal/_option_checks.ts";
import { clientMeter, meterProblem } from "../_internal/_metrics.ts";
import type { Meter } from "../metrics/meter.ts";
import { WatcherConfigError } from "../config_error.ts";
import { BACKOFF_NAMES } from "./_backoff_names.ts";
import type { ListWatchOptions } from "./list_watch_types.ts";

/** Throws a `WatcherConfigError` for the first wrong option of `options`. */
export function checkListWatchOptions(options: ListWatchOptions): void {
  const names = optionNamesProblem(
    { known: LIST_WATCH_NAMES, value: options, type: "ListWatchOptions" },
    {
      known: BACKOFF_NAMES,
      value: (options as { backoff?: unknown } | null)?.backoff,
      type: "BackoffOptions",
      prefix: "backoff.",
    },
  );
  if (names) throw new WatcherConfigError(names.field, names.message);
  validateGvr(options.gvr);
  validateInitialList(options.initialList);
  validatePositive("pageSize", options.pageSize, { integer: true });
  validateLoopTimeouts(options);
  validateDuration(
    "initialStreamDeadlineMs",
    options.initialStreamDeadlineMs,
  );
  validatePositive("maxLineBytes", options.maxLineBytes);
  const { metadataOnly } = options;
  if (metadataOnly !== undefined && typeof metadataOnly !== "boolean") {
    throw new WatcherConfigError(
      "metadataOnly",
      `must be a boolean, got ${String(metadataOnly)}`,
    );
  }
  if (
    options.shardSelector !== undefined &&
    typeof options.shardSelector !== "function"
  ) {
    throw new WatcherConfigError(
      "shardSelector",
      "must be a function answering the selector of each request",
    );
  }
  if (options.name !== undefined && typeof options.name !== "string") {
    throw new WatcherConfigError("name", "must be a string");
  }
  if (options.meter !== undefined) {
    const problem = meterProblem(options.meter);
    if (problem !== undefined) throw new WatcherConfigError("meter", problem);
  }
}

/**
 * The client's meter (`RestClient.meter`), for a loop given none of its
 * own; a `WatcherConfigError` naming `client.meter` when it is not a Meter.
 */
export function checkedClientMeter(client: unknown): Meter | undefined {
  const meter = clientMeter(client);
  if (meter === undefined) return undefined;
  const problem = meterProblem(meter);
  if (problem !== undefined) {
    throw new WatcherConfigError("client.meter", problem);
  }
  return meter as Meter;
}

/** The names `ListWatchOptions` takes (a record over its keys). */
const LIST_WATCH_NAMES: Record<keyof ListWatchOptions, true> = {
  gvr: true,
  namespace: true,
  labelSelector: true,
  fieldSelector: true,
  shardSelector: true,
  pageSize: true,
  metadataOnly: true,
  initialList: true,
  initialStreamDeadlineMs: true,
  ...LOOP_TIMEOUT_NAMES,
  backoff: true,
  maxLineBytes: true,
  ignoreFields: true,
  clock: true,
  logger: true,
  random: true,
  meter: true,
  name: true,
};
