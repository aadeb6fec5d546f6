import { asPartialObjectMetadata } from "../../_internal/_objects.ts";
import type { KubeObject } from "../../types.ts";

/** The content type of a server-side Table answer. */
export const TABLE_CONTENT_TYPE =
  "application/json;as=Table;v=v1;g=meta.k8s.io";

const COLUMNS = [
  {
    name: "Name",
    type: "string",
    format: "name",
    description:
      "Name must be unique within a namespace. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names",
    priority: 0,
  },
  {
    name: "Age",
    type: "string",
    format: "",
    description:
      "CreationTimestamp is a timestamp representing the server time when this object was created.",
    priority: 0,
  },
];

/** How much of each object a row carries (`includeObject`). */
export type IncludeObject = "None" | "Metadata" | "Object";

/** Parses `includeObject`, defaulting to `Metadata` as Kubernetes does. */
export function includeObjectParam(value: string | null): IncludeObject {
  return value === "None" || value === "Object" ? value : "Metadata";
}

/** A Table (`meta.k8s.io/v1` unless told) with NAME and AGE columns. */
export function toTable(
  objects: readonly KubeObject[],
  now: number,
  include: IncludeObject,
  listMeta: Record<string, unknown> = {},
  apiVersion = "meta.k8s.io/v1",
): Record<string, unknown> {
  return {
    kind: "Table",
    apiVersion,
    metadata: listMeta,
    columnDefinitions: COLUMNS,
    rows: objects.map((obj) => ({
      cells: [obj.metadata.name ?? "", age(obj, now)],
      object: rowObject(obj, include, apiVersion),
    })),
  };
}

function rowObject(
  obj: KubeObject,
  include: IncludeObject,
  apiVersion: string,
): unknown {
  if (include === "None") return undefined;
  if (include === "Object") return obj;
  return asPartialObjectMetadata(obj, apiVersion);
}

function age(obj: KubeObject, now: number): string {
  const created = Date.parse(obj.metadata.creationTimestamp ?? "");
  return Number.isNaN(created) ? "<unknown>" : humanDuration(now - created);
}

/** Kubernetes' `duration.HumanDuration`, as kubectl prints ages. */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  if (seconds < -1) return "<invalid>";
  if (seconds < 0) return "0s";
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.trunc(seconds / 60);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.trunc(minutes / 60);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  const days = Math.trunc(hours / 24);
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${days}d` : `${days}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${days}d`;
  const years = Math.trunc(days / 365);
  if (hours < 24 * 365 * 8) {
    const d = days % 365;
    return d === 0 ? `${years}y` : `${years}y${d}d`;
  }
  return `${years}y`;
}
