/**
 * Every log line of the list-then-watch loop: the level, the wording, the
 * hint and the fields for each typed reason. The state machine only says
 * *why*; this module is the one place that says it in words (the writer's
 * lines are in `watcher/_log_lines.ts`).
 *
 * @module
 */
import { line, type LogLine } from "../_internal/_logging.ts";
import type { ListWatchNote } from "./list_watch_types.ts";
import { messageOf } from "./_fault.ts";

export type { LogLine };
export { write } from "../_internal/_logging.ts";

/**
 * The line for a client that refused the metadata-only `Accept` header
 * (`@cloudydeno/kubernetes-client`'s `KubectlRawRestClient` cannot set
 * headers): the loop asks for full objects from then on.
 */
export function acceptRefusedLine(path: string, error: unknown): LogLine {
  return line(
    "warn",
    `The client cannot send the metadata-only Accept header for ${path}; asking for full objects instead (the watcher keeps only their metadata)`,
    { path, error: messageOf(error) },
  );
}

/**
 * The line for a note of the state machine about the collection at `path`.
 *
 * @param note Why the machine did what it did.
 * @param path The collection path.
 * @returns Level, message and fields.
 */
export function noteLine(note: ListWatchNote, path: string): LogLine {
  switch (note.kind) {
    case "itemsWithoutMetadata":
      return line(
        "warn",
        `List of ${path} returned ${note.count} object(s) without metadata; skipped`,
        { path, skipped: note.count },
      );
    case "eventSkipped":
      return line("warn", `Watch of ${path} sent a ${skipped(note)}; skipped`, {
        path,
      });
    case "continueExpired":
      return line(
        "info",
        `Continue token expired while paging ${path}; listing again in one request`,
        { url: note.url },
      );
    case "requestFailed":
      return failedLine(note, path);
    case "relist":
      return relistLine(note, path);
    case "closedAtOnce":
      return line(
        "warn",
        `Watch of ${path} closed after ${note.afterMs} ms without any event; re-watching from resourceVersion ${note.resourceVersion}`,
        { path, resourceVersion: note.resourceVersion },
      );
    case "watchEnded":
      return line(
        "debug",
        `Watch of ${path} ended; resuming from resourceVersion ${note.resourceVersion}`,
        { path, resourceVersion: note.resourceVersion },
      );
    case "relistRequested":
      return line(
        "info",
        `Listing ${path} again as asked (the selection changed); the ${note.phase} under way is abandoned`,
        { path },
      );
    case "idle":
      return note.request === "watch"
        ? line(
          "warn",
          `Watch of ${path} received no bytes for ${note.idleMs} ms; reconnecting from resourceVersion ${note.resourceVersion}`,
          { path, resourceVersion: note.resourceVersion, idleMs: note.idleMs },
        )
        : line(
          "warn",
          `Initial event stream of ${path} received no bytes for ${note.idleMs} ms; starting it again`,
          { path, idleMs: note.idleMs },
        );
    case "streamUnsupported":
      return line(
        "info",
        `Streaming the initial list of ${path} is not supported (${
          unsupported(note)
        }); using LIST from now on`,
        { path },
      );
  }
}

/**
 * The line for a failure the loop retries in `retryInMs`.
 *
 * @param reason Why it backs off.
 * @param path The collection path.
 * @param retryInMs The wait.
 * @returns Level, message and fields.
 */
export function backoffLine(
  reason: ListWatchNote,
  path: string,
  retryInMs: number,
): LogLine {
  const { level, message, fields } = noteLine(reason, path);
  return line(level, `${message} (retrying in ${retryInMs} ms)`, {
    ...fields,
    retryInMs,
  });
}

/**
 * The line for a consumer method of the loop that threw or rejected.
 *
 * @param method The method, e.g. `onEvent`.
 * @param path The collection path.
 * @param error What it threw.
 * @returns Level, message and fields.
 */
export function sinkFailedLine(
  method: string,
  path: string,
  error: unknown,
): LogLine {
  return line(
    "error",
    `ListWatch sink ${method} failed for ${path}: ${messageOf(error)}`,
    { path, error },
  );
}

function failedLine(
  note: Extract<ListWatchNote, { kind: "requestFailed" }>,
  path: string,
): LogLine {
  const { fault, error } = note;
  const hint = hintFor(fault.code);
  const level = hint === undefined ? "warn" : "error";
  const also = hint === undefined ? "" : ` (${hint})`;
  const fields: Record<string, unknown> = {
    path,
    code: fault.code,
    reason: fault.reason,
    error,
  };
  if (hint !== undefined) fields.hint = hint;
  const message = messageOf(error);
  if (note.request === "list") {
    const url = note.url ?? path;
    return hint === undefined
      ? line(level, `List of ${url} failed: ${message}`, { ...fields, url })
      : line(
        level,
        `List of ${url} failed with ${fault.code}${
          fault.reason ? ` ${fault.reason}` : ""
        }: ${hint}`,
        { ...fields, url },
      );
  }
  if (note.request === "stream") {
    return line(
      level,
      `Initial event stream of ${path} failed: ${message}; starting it again${also}`,
      fields,
    );
  }
  // An ERROR event's error already says which watch sent it.
  const what = message.startsWith(`Watch of ${path}`)
    ? message
    : fault.kind === "undecodable"
    ? `Watch stream of ${path} could not be decoded: ${message}`
    : `Watch of ${path} failed: ${message}`;
  return line(
    level,
    `${what}; re-watching from resourceVersion ${note.resourceVersion}${also}`,
    { ...fields, resourceVersion: note.resourceVersion },
  );
}

function relistLine(
  note: Extract<ListWatchNote, { kind: "relist" }>,
  path: string,
): LogLine {
  const { fault, resourceVersion } = note;
  const pause = note.paused ? " (right after a list, so after a pause)" : "";
  const fields = {
    path,
    resourceVersion,
    code: fault.code,
    reason: fault.reason,
  };
  switch (fault.kind) {
    case "expired":
      return line(
        "info",
        `Watch history of ${path} expired at resourceVersion ${resourceVersion} (410); relisting${pause}`,
        fields,
      );
    case "tooLarge":
      return line(
        "warn",
        `The API server has not caught up with resourceVersion ${resourceVersion} of ${path} (too large resource version); relisting without a resourceVersion${pause}`,
        fields,
      );
    default:
      // A class that relists and has no wording of its own.
      return line(
        "warn",
        `Watch of ${path} at resourceVersion ${resourceVersion} failed with ${
          [fault.code, fault.reason].filter((p) => p !== undefined).join(" ") ||
          "no code"
        }; relisting${pause}`,
        fields,
      );
  }
}

function skipped(
  note: Extract<ListWatchNote, { kind: "eventSkipped" }>,
): string {
  switch (note.problem) {
    case "noMetadata":
      return `${note.eventType} event without metadata`;
    case "unknownType":
      return `event of unknown type ${JSON.stringify(note.eventType)}`;
    case "notAnEvent":
      return "line that is not a watch event";
    case "endBookmarkWithoutVersion":
      return "end bookmark without resourceVersion";
  }
}

function unsupported(
  note: Extract<ListWatchNote, { kind: "streamUnsupported" }>,
): string {
  switch (note.why) {
    case "endedEarly":
      return "the server closed the initial event stream before its end bookmark";
    case "deadline":
      return `no object and no initial-events-end bookmark came for ${note.afterMs} ms`;
    case "rejected":
      return `the server rejected it with ${note.code}: ${
        messageOf(note.error)
      }`;
  }
}

/** What a human should check, for the codes that need one. */
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
