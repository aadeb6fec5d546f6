/**
 * The `events.k8s.io/v1` Event an `EventRecorder` writes: the fields
 * kube-apiserver checks, checked first; the references; the name; and the
 * two keys the recorder groups Events by (a series, a rate limit bucket).
 *
 * @module
 */
import { microTime } from "../_internal/_time.ts";
import type { EventInput, EventObject } from "./event_recorder_config.ts";

/** kube-apiserver's limits on `reason` and `action`, in characters. */
const FIELD_LIMIT = 128;
/** kube-apiserver's limit on `note`, in bytes. */
const NOTE_LIMIT = 1024;
/** A DNS-1123 subdomain's longest: what an Event's name must be. */
const NAME_LIMIT = 253;

/** A `core/v1` `ObjectReference`, as `regarding` and `related` are. */
export interface ObjectRef {
  apiVersion: string;
  kind: string;
  name: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
}

/** An Event as the recorder creates it. */
export interface EventBody {
  apiVersion: "events.k8s.io/v1";
  kind: "Event";
  metadata: { name: string; namespace: string };
  eventTime: string;
  reportingController: string;
  reportingInstance: string;
  type: string;
  reason: string;
  action: string;
  note?: string;
  regarding: ObjectRef;
  related?: ObjectRef;
  series?: { count: number; lastObservedTime: string };
}

/** Why the Event cannot be written, or undefined when it can. */
export function eventProblem(
  regarding: EventObject,
  event: EventInput,
): string | undefined {
  if (event === null || typeof event !== "object") {
    return `the event must be an object, got ${String(event)}`;
  }
  const wrong = objectProblem("regarding", regarding) ??
    (event.related === undefined
      ? undefined
      : objectProblem("related", event.related));
  if (wrong) return wrong;
  if (event.type !== "Normal" && event.type !== "Warning") {
    return `type must be "Normal" or "Warning", got ${
      JSON.stringify(event.type) ?? String(event.type)
    }`;
  }
  for (const field of ["reason", "action"] as const) {
    const value = event[field];
    if (typeof value !== "string" || value === "") {
      return `${field} must be a non-empty string, got ${
        JSON.stringify(value) ?? String(value)
      }`;
    }
    if (value.length > FIELD_LIMIT) {
      return `${field} must be at most ${FIELD_LIMIT} characters, got ${value.length}`;
    }
  }
  if (event.note !== undefined && typeof event.note !== "string") {
    return `note must be a string, got ${String(event.note)}`;
  }
  return undefined;
}

function objectProblem(field: string, obj: unknown): string | undefined {
  if (obj === null || typeof obj !== "object") {
    return `${field} must be an object, got ${String(obj)}`;
  }
  const o = obj as EventObject;
  for (
    const [name, value] of [
      ["apiVersion", o.apiVersion],
      ["kind", o.kind],
      ["metadata.name", o.metadata?.name],
    ] as const
  ) {
    if (typeof value !== "string" || value === "") {
      return `${field}.${name} must be a non-empty string, got ${
        JSON.stringify(value) ?? String(value)
      }${
        name === "metadata.name"
          ? ""
          : " (the items of a LIST lack apiVersion and kind: add them)"
      }`;
    }
  }
  return undefined;
}

/** The reference to a checked object: the fields it has. */
export function referenceTo(obj: EventObject): ObjectRef {
  const meta = obj.metadata!;
  const ref: ObjectRef = {
    apiVersion: obj.apiVersion!,
    kind: obj.kind!,
    name: meta.name!,
  };
  if (meta.namespace) ref.namespace = meta.namespace;
  if (meta.uid) ref.uid = meta.uid;
  if (meta.resourceVersion) ref.resourceVersion = meta.resourceVersion;
  return ref;
}

/**
 * What makes two Events one series: the type, reason and action, the
 * object (one incarnation of it: its uid) and the related one. Not the
 * object's resourceVersion, which every status write changes, nor the
 * note, which often carries a changing detail (client-go keys on neither).
 */
export function seriesKey(
  event: EventInput,
  regarding: ObjectRef,
  related: ObjectRef | undefined,
): string {
  return JSON.stringify([
    event.type,
    event.reason,
    event.action,
    identity(regarding),
    related && identity(related),
  ]);
}

/** A rate limit bucket: the object and the type (client-go's spam key). */
export function bucketKey(type: string, regarding: ObjectRef): string {
  return JSON.stringify([type, identity(regarding)]);
}

function identity(ref: ObjectRef): string[] {
  return [
    ref.apiVersion,
    ref.kind,
    ref.namespace ?? "",
    ref.name,
    ref.uid ?? "",
  ];
}

/** The Event's body, without a series. */
export function eventBody(
  reporter: { reportingController: string; reportingInstance: string },
  event: EventInput,
  regarding: ObjectRef,
  related: ObjectRef | undefined,
  name: string,
  now: number,
): EventBody {
  const body: EventBody = {
    apiVersion: "events.k8s.io/v1",
    kind: "Event",
    // A cluster-scoped object's Events live in "default", as client-go's.
    metadata: { name, namespace: regarding.namespace || "default" },
    eventTime: microTime(now),
    reportingController: reporter.reportingController,
    reportingInstance: reporter.reportingInstance,
    type: event.type,
    reason: event.reason,
    action: event.action,
    regarding,
  };
  if (event.note) body.note = cutNote(event.note);
  if (related) body.related = related;
  return body;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** `note` within 1024 bytes of UTF-8, cut between two characters. */
export function cutNote(note: string): string {
  const bytes = encoder.encode(note);
  if (bytes.length <= NOTE_LIMIT) return note;
  let end = NOTE_LIMIT;
  // Back off the continuation bytes of a character cut in two.
  while (end > 0 && (bytes[end] & 0xc0) === 0x80) end--;
  return decoder.decode(bytes.subarray(0, end));
}

/**
 * A name for an Event about `objectName`: the object's name, a dot and a
 * number in hex that grows with time (client-go's nanoseconds; here the
 * milliseconds times a million, plus `unique`), kept a DNS subdomain.
 */
export function eventName(
  objectName: string,
  now: number,
  unique: number,
): string {
  const suffix = (BigInt(Math.max(0, Math.floor(now))) * 1_000_000n +
    BigInt(unique % 1_000_000)).toString(16);
  const base = objectName.toLowerCase()
    .replace(/[^a-z0-9.-]/g, "-")
    .slice(0, NAME_LIMIT - suffix.length - 1)
    .replace(/^[^a-z0-9]+|[^a-z0-9]+$/g, "");
  return `${base || "event"}.${suffix}`;
}
