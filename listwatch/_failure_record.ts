/**
 * A retried failure as the loop records it (`lastError`): the error as it
 * was thrown, for code that reads it, and a JSON form for whoever
 * serializes a health snapshot. `JSON.stringify` of an `Error` is `{}`
 * but for its own enumerable fields: no name when the class does not set
 * one, never the message or the cause.
 *
 * @module
 */
import type { ListWatchFailure } from "./list_watch_options.ts";

/** How deep a chain of causes is followed; deeper ones are left out. */
const MAX_CAUSE_DEPTH = 8;

/**
 * The record of `error`, thrown at `time`: `{ error, time }` as given,
 * with a `toJSON` (not enumerable, so the record compares and spreads as
 * the two fields alone) that writes `error` as {@linkcode errorJson} does.
 */
export function failureRecord(error: unknown, time: number): ListWatchFailure {
  const record = { error, time };
  Object.defineProperty(record, "toJSON", {
    value: () => ({ error: errorJson(error), time }),
  });
  return record;
}

/**
 * `value` as JSON shows it: an `Error` as its name, message and own
 * enumerable fields (those `JSON.stringify` writes anyway, such as an
 * `ApiError`'s `code`), then its cause in the same form; an `Error` among
 * its fields likewise. Anything else is left to `JSON.stringify`. A cause
 * chain that loops back, or goes deeper than {@linkcode MAX_CAUSE_DEPTH},
 * ends there.
 */
export function errorJson(value: unknown): unknown {
  return describe(value, 0, new Set());
}

function describe(value: unknown, depth: number, seen: Set<Error>): unknown {
  if (!(value instanceof Error)) return value;
  seen.add(value);
  const nested = (inner: unknown) =>
    inner instanceof Error && (seen.has(inner) || depth >= MAX_CAUSE_DEPTH)
      ? undefined
      : describe(inner, depth + 1, seen);
  const out: Record<string, unknown> = {
    name: value.name,
    message: value.message,
  };
  for (const [key, field] of Object.entries(value)) {
    if (key !== "cause") out[key] = nested(field);
  }
  if (value.cause !== undefined) out.cause = nested(value.cause);
  return out;
}
