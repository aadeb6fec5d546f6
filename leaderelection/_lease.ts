import type { Gvr, KubeObject } from "../types.ts";
import type { JsonValue } from "../client/rest_client.ts";

/** `coordination.k8s.io/v1` Leases. */
export const LEASES: Gvr = {
  group: "coordination.k8s.io",
  version: "v1",
  resource: "leases",
};

/** The part of a Lease's `spec` an election reads and writes. */
export interface LeaseRecord {
  /** Who holds the lease; `""` when nobody does (never set, or released). */
  holderIdentity: string;
  /** How long the holder claims it for, in whole seconds. */
  leaseDurationSeconds: number | undefined;
  /** How often the holder changed, as the holders counted it. */
  leaseTransitions: number;
  acquireTime: string | undefined;
  renewTime: string | undefined;
}

/** A Lease as read from (or returned by) the API server. */
export interface ObservedLease {
  object: KubeObject;
  resourceVersion: string;
  record: LeaseRecord;
  /**
   * The record as one string: two reads show the same record exactly when
   * their keys are equal. Only the election fields count, so that a label
   * written by someone else does not look like a renewal.
   */
  key: string;
}

/**
 * Reads a Lease from an API answer.
 *
 * @throws {TypeError} When the answer is not a Lease with a resourceVersion
 * (a proxy's error page would otherwise look like an empty, free lease).
 */
export function readLease(answer: JsonValue): ObservedLease {
  const object = answer as KubeObject;
  const resourceVersion = isRecord(object) && isRecord(object.metadata)
    ? object.metadata.resourceVersion
    : undefined;
  if (typeof resourceVersion !== "string" || resourceVersion === "") {
    throw new TypeError(
      "The API server answered with something that is not a Lease (no metadata.resourceVersion)",
    );
  }
  const spec = isRecord(object.spec) ? object.spec : {};
  const record: LeaseRecord = {
    holderIdentity: typeof spec.holderIdentity === "string"
      ? spec.holderIdentity
      : "",
    leaseDurationSeconds: typeof spec.leaseDurationSeconds === "number" &&
        spec.leaseDurationSeconds > 0
      ? spec.leaseDurationSeconds
      : undefined,
    leaseTransitions: typeof spec.leaseTransitions === "number" &&
        Number.isSafeInteger(spec.leaseTransitions) &&
        spec.leaseTransitions >= 0
      ? spec.leaseTransitions
      : 0,
    acquireTime: typeof spec.acquireTime === "string"
      ? spec.acquireTime
      : undefined,
    renewTime: typeof spec.renewTime === "string" ? spec.renewTime : undefined,
  };
  return {
    object,
    resourceVersion,
    record,
    key: JSON.stringify([
      record.holderIdentity,
      record.leaseDurationSeconds,
      record.leaseTransitions,
      record.acquireTime,
      record.renewTime,
    ]),
  };
}

/** A new Lease held by `record.holderIdentity`, for a POST. */
export function newLease(
  namespace: string,
  name: string,
  record: LeaseRecord,
): JsonValue {
  return {
    apiVersion: "coordination.k8s.io/v1",
    kind: "Lease",
    metadata: { name, namespace },
    spec: specOf(record),
  };
}

/**
 * `current` with its election fields replaced, for a PUT. Its
 * `metadata.resourceVersion` stays, so the write fails with 409 Conflict if
 * anyone wrote the Lease after it was read; other fields (labels, a
 * `spec.strategy`) are kept as they were.
 */
export function replacedLease(
  current: ObservedLease,
  record: LeaseRecord,
): JsonValue {
  const spec = isRecord(current.object.spec) ? current.object.spec : {};
  return {
    ...current.object,
    apiVersion: "coordination.k8s.io/v1",
    kind: "Lease",
    metadata: {
      ...current.object.metadata,
      resourceVersion: current.resourceVersion,
    },
    spec: { ...spec, ...specOf(record) },
  } as JsonValue;
}

function specOf(record: LeaseRecord): { [key: string]: JsonValue } {
  const spec: { [key: string]: JsonValue } = {
    holderIdentity: record.holderIdentity,
    leaseTransitions: record.leaseTransitions,
  };
  if (record.leaseDurationSeconds !== undefined) {
    spec.leaseDurationSeconds = record.leaseDurationSeconds;
  }
  if (record.acquireTime !== undefined) spec.acquireTime = record.acquireTime;
  if (record.renewTime !== undefined) spec.renewTime = record.renewTime;
  return spec;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
