/**
 * Every log line of the store writer and the watcher: the level, the
 * wording and the fields for each typed reason. The writer only says *why*;
 * this module is the one place that says it in words.
 *
 * @module
 */
import type { ChangeStats } from "../types.ts";
import { line, type LogLine } from "../_internal/_logging.ts";
import { JsonPath } from "../selection/jsonpath.ts";

export { write } from "../_internal/_logging.ts";

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
  };

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
          ? `indexBy path ${note.path} is absent on all ${note.listed} listed objects of ${resource}; none could be indexed (${
            pathHint(note.path)
          })`
          : `indexBy path ${note.path} is absent on ${note.skipped} of ${note.listed} listed objects of ${resource}; they were skipped`,
        {
          resource,
          path: note.path,
          skipped: note.skipped,
          listed: note.listed,
        },
      );
    case "selectorPathAbsent":
      return line(
        "warn",
        `fieldSelector path ${note.path} is absent on all ${note.listed} listed objects of ${resource}; the selector matches by missing fields only (${
          pathHint(note.path)
        })`,
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

/**
 * The line for a `SingleWatcher` without a namespace that was sent an
 * object with one: the config left `namespace` out for a namespaced type,
 * so its requests went to every namespace.
 */
export function namespacedObjectSkippedLine(
  resource: string,
  namespace: string,
  name: string,
): LogLine {
  return line(
    "warn",
    `Skipped ${resource} ${namespace}/${name}: the watcher has no namespace, so it watches a cluster-scoped object of that name; set namespace to watch this one`,
    { resource, namespace, name },
  );
}

/**
 * The line for a sharded watcher's choice of who filters (once decided,
 * and again if a later list says otherwise): the server, when its LIST
 * said it applied the `shardSelector`; the watcher itself otherwise.
 */
export function shardModeLine(
  resource: string,
  mode: "server" | "client",
  selector: string,
): LogLine {
  return mode === "server"
    ? line(
      "info",
      `Watching only this shard of ${resource}: the API server applies the shardSelector`,
      { resource, shardMode: mode, shardSelector: selector },
    )
    : line(
      "info",
      `Watching only this shard of ${resource}: the API server ignored the shardSelector (no ShardedListAndWatch), so every object is received and the other shards' are dropped here`,
      { resource, shardMode: mode, shardSelector: selector },
    );
}

/**
 * Maps whose keys often hold dots (`app.kubernetes.io/name`): written as a
 * path, such a key reads as nested fields and is never found.
 */
const DOTTED_KEY_MAPS = new Set([
  "labels",
  "annotations",
  "matchLabels",
  "nodeSelector",
]);

/**
 * What to check about a path no listed object has: for a label or
 * annotation key written with its dots as a path
 * (`metadata.labels.app.kubernetes.io/name`), its bracketed form
 * (`metadata.labels["app.kubernetes.io/name"]`); else whether it is right.
 */
function pathHint(path: string): string {
  let segments: JsonPath["segments"];
  try {
    segments = new JsonPath(path).segments;
  } catch {
    return "is the path right?";
  }
  const at = segments.findIndex((s) =>
    s.kind === "key" && DOTTED_KEY_MAPS.has(s.key)
  );
  const rest = segments.slice(at + 1);
  // Their values are strings: a path going two keys deeper split one key.
  if (at < 0 || rest.length < 2 || rest.some((s) => s.kind !== "key")) {
    return "is the path right?";
  }
  const head = segments.slice(0, at + 1).map((s, i) =>
    s.kind === "index"
      ? `[${s.index}]`
      : s.kind === "wildcard"
      ? "[*]"
      : /^[A-Za-z_][\w-]*$/.test(s.key)
      ? `${i === 0 ? "" : "."}${s.key}`
      : `[${JSON.stringify(s.key)}]`
  ).join("");
  const key = rest.map((s) => (s as { key: string }).key).join(".");
  return `a key with dots needs brackets: ${head}[${JSON.stringify(key)}]`;
}

function identity(namespace: string | undefined, name: string | undefined) {
  return namespace ? `${namespace}/${name}` : String(name);
}
