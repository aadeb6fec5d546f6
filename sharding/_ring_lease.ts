/**
 * A ring member's Lease: who holds it, for how long, and the view it has
 * acknowledged (an annotation), read from a LIST of the ring's Leases and
 * written back on each renewal.
 *
 * @module
 */
import type { Gvr, KubeObject } from "../types.ts";
import type { JsonValue } from "../client/rest_client.ts";
import type { View } from "./_ring_view.ts";

/** `coordination.k8s.io/v1` Leases. */
export const LEASES: Gvr = {
  group: "coordination.k8s.io",
  version: "v1",
  resource: "leases",
};

/** The label that makes a Lease a member of a ring (its value: the ring's name). */
export const RING_LABEL = "k8s-watcher.haptic.dev/ring";
/** The annotation holding the view a member acknowledged, as a JSON array. */
export const ACKED_ANNOTATION = "k8s-watcher.haptic.dev/acked-view";

/** A member's Lease as a LIST showed it. */
export interface MemberLease {
  readonly leaseName: string;
  readonly identity: string;
  readonly durationMs: number | undefined;
  readonly acked: View | undefined;
  readonly resourceVersion: string;
  /** Two reads show the same renewal exactly when their keys are equal. */
  readonly key: string;
}

/**
 * The members a LIST answer shows; a Lease without a holder (released) or
 * with an unreadable acknowledgement counts as holding no view.
 */
export function readMembers(answer: JsonValue): MemberLease[] {
  const items = (answer as { items?: unknown })?.items;
  if (!Array.isArray(items)) {
    throw new TypeError(
      "The API server answered a LIST of Leases with something that has no items",
    );
  }
  const out: MemberLease[] = [];
  for (const item of items as KubeObject[]) {
    const spec = (item?.spec ?? {}) as Record<string, unknown>;
    const identity = spec.holderIdentity;
    if (typeof identity !== "string" || identity === "") continue;
    const seconds = spec.leaseDurationSeconds;
    const acked = parseView(item.metadata?.annotations?.[ACKED_ANNOTATION]);
    out.push({
      leaseName: String(item.metadata?.name ?? ""),
      identity,
      durationMs: typeof seconds === "number" && seconds > 0
        ? seconds * 1000
        : undefined,
      acked,
      resourceVersion: String(item.metadata?.resourceVersion ?? ""),
      key: JSON.stringify([identity, spec.renewTime, seconds, acked]),
    });
  }
  return out;
}

function parseView(text: string | undefined): View | undefined {
  if (text === undefined) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    if (Array.isArray(value) && value.every((v) => typeof v === "string")) {
      return value;
    }
  } catch {
    // Unreadable: no view acknowledged.
  }
  return undefined;
}

/** What a member writes into its Lease on each renewal. */
export interface MemberRecord {
  readonly ring: string;
  readonly namespace: string;
  readonly leaseName: string;
  readonly identity: string;
  readonly leaseDurationSeconds: number;
  readonly renewTime: string;
  readonly acked: View | undefined;
  /** The resourceVersion the write is based on; none for a create. */
  readonly resourceVersion?: string;
}

/** The member's Lease, for a POST (no resourceVersion) or a PUT. */
export function memberLease(record: MemberRecord): JsonValue {
  const metadata: Record<string, JsonValue> = {
    name: record.leaseName,
    namespace: record.namespace,
    labels: { [RING_LABEL]: record.ring },
    annotations: record.acked === undefined
      ? {}
      : { [ACKED_ANNOTATION]: JSON.stringify(record.acked) },
  };
  if (record.resourceVersion !== undefined) {
    metadata.resourceVersion = record.resourceVersion;
  }
  return {
    apiVersion: "coordination.k8s.io/v1",
    kind: "Lease",
    metadata,
    spec: {
      holderIdentity: record.identity,
      leaseDurationSeconds: record.leaseDurationSeconds,
      renewTime: record.renewTime,
    },
  };
}
