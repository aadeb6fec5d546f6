/**
 * Every log line of the list-then-watch loop and of the store writer: the
 * level, the wording, the hint and the fields for each typed reason. The
 * state machine and the writer only say *why*; this module is the one place
 * that says it in words.
 *
 * @module
 */
import type { ChangeStats, Logger } from "../types.ts";
import type { LogLevel } from "../logger.ts";
import type { ListWatchNote } from "./list_watch_notes.ts";
import { messageOf } from "./_fault.ts";

/** One line for the logger. */
export interface LogLine {
  level: LogLevel;
  message: string;
  fields: Record<string, unknown>;
}

/** Why the store writer did not store something, or how far a list got. */
export type WriterNote =
  | { kind: "invalidObject"; error: unknown }
  | {
    kind: "missingKey";
    namespace: string | undefined;
    name: string | undefined;
    missing: string | undefined;
  }
  | { kind: "eventWithoutName"; type: string }
  | { kind: "listProgress"; listed: number }
  | {
    kind: "transformFailed";
    namespace: string | undefined;
    name: string | undefined;
    error: unknown;
  }
  | {
    /** After a list: objects skipped for lacking an `indexBy` path. */
    kind: "keyPathMissing";
    path: string;
    skipped: number;
    listed: number;
  }
  | {
    /** After a list: a field-selector path that no listed object has. */
    kind: "selectorPathAbsent";
    path: string;
    listed: number;
  }
  | {
    /** At construction: `metadataOnly` leaves nothing at this path. */
    kind: "pathNeverPresent";
    option: "fieldSelector" | "indexBy";
    path: string;
  };

/** Writes `line` to `logger`. */
export function write(logger: Logger, line: LogLine): void {
  logger[line.level](line.message, line.fields);
}

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

/**
 * The line for a note of the store writer of `resource`.
 *
 * @param note What the writer did not store, or how far a list got.
 * @param resource The resource, e.g. `ingresses.networking.k8s.io`.
 * @returns Level, message and fields.
 */
export function writerLine(note: WriterNote, resource: string): LogLine {
  switch (note.kind) {
    case "invalidObject":
      return line(
        "warn",
        "Object skipped: it is not a valid Kubernetes object",
        { resource, error: note.error },
      );
    case "missingKey":
      // Per object at debug level only: a wrong path would flood the log;
      // the list after it says so once (keyPathMissing).
      return line("debug", "Object skipped: an index key is missing", {
        resource,
        namespace: note.namespace,
        name: note.name,
        missing: note.missing,
      });
    case "transformFailed":
      return line(
        "error",
        `transform threw for ${
          identity(note.namespace, note.name)
        }; object skipped, the stored version (if any) is kept`,
        {
          resource,
          namespace: note.namespace,
          name: note.name,
          error: note.error,
        },
      );
    case "keyPathMissing":
      return line(
        "warn",
        note.skipped === note.listed
          ? `indexBy path ${note.path} is absent on all ${note.listed} listed objects of ${resource}; none could be indexed (is the path right?)`
          : `indexBy path ${note.path} is absent on ${note.skipped} of ${note.listed} listed objects of ${resource}; they were skipped`,
        {
          resource,
          path: note.path,
          skipped: note.skipped,
          listed: note.listed,
        },
      );
    case "pathNeverPresent":
      return line(
        "warn",
        `${note.option} path ${note.path} of ${resource} can never be present: metadataOnly keeps only apiVersion, kind and metadata${
          note.option === "indexBy"
            ? ", so no object can be indexed"
            : ", so the selector matches by missing fields only"
        }`,
        { resource, option: note.option, path: note.path },
      );
    case "selectorPathAbsent":
      return line(
        "warn",
        `fieldSelector path ${note.path} is absent on all ${note.listed} listed objects of ${resource}; the selector matches by missing fields only (is the path right?)`,
        { resource, path: note.path, listed: note.listed },
      );
    case "eventWithoutName":
      return line("warn", "Watch event without metadata.name skipped", {
        resource,
        type: note.type,
      });
    case "listProgress":
      return line("debug", "Listing", { resource, listed: note.listed });
  }
}

/**
 * The line for a watcher's `onChange` that threw or rejected: the batch's
 * counts only (its objects could be thousands).
 */
export function changeCallbackFailedLine(
  error: unknown,
  batch: ChangeStats,
): LogLine {
  const { created, modified, deleted, isInitialSync } = batch;
  return line("error", "Change callback failed", {
    error,
    stats: { created, modified, deleted, isInitialSync },
  });
}

function identity(namespace: string | undefined, name: string | undefined) {
  return namespace ? `${namespace}/${name}` : String(name);
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
  return fault.kind === "expired"
    ? line(
      "info",
      `Watch history of ${path} expired at resourceVersion ${resourceVersion} (410); relisting${pause}`,
      fields,
    )
    : line(
      "warn",
      `The API server has not caught up with resourceVersion ${resourceVersion} of ${path} (too large resource version); relisting without a resourceVersion${pause}`,
      fields,
    );
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
      return `the initial-events-end bookmark did not arrive within ${note.afterMs} ms`;
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

function line(
  level: LogLevel,
  message: string,
  fields: Record<string, unknown>,
): LogLine {
  return { level, message, fields };
}
