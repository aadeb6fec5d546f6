/**
 * What several boxes do to an object: reduce it to the metadata-only form
 * the API server answers when asked for it (and ask for that form), freeze
 * it, render one of its field values, hash it for a shard.
 *
 * Freezing an object and everything it holds: the debug aid that makes a
 * mutation of a stored object throw (`MemoryStore`'s `freeze`, a watcher's
 * `freezeObjects`). A walk of the whole object, so off unless asked for.
 *
 * FNV-1a 64 over a string's UTF-8 bytes: the hash KEP-5866's
 * `shardRange()` applies to `metadata.uid` or `metadata.namespace`, so that
 * a replica's ranges can be asked of the API server as they are checked
 * here. The 64-bit state is kept in four 16-bit limbs of plain numbers: a
 * BigInt per byte would cost more than the rest of an event's handling.
 *
 * @module
 */
import type { KubeObject } from "../types.ts";

/**
 * The `apiVersion` of `PartialObjectMetadata` objects and lists, the
 * metadata-only form the API server answers when asked for it.
 */
export const PARTIAL_OBJECT_METADATA_API_VERSION = "meta.k8s.io/v1";

/**
 * `Accept` for a metadata-only LIST. The plain `application/json` after it
 * lets servers that do not serve `meta.k8s.io/v1` answer full objects
 * instead of 406 (Kubernetes before 1.15 served only `v1beta1`; aggregated
 * API servers not built on `k8s.io/apiserver` may ignore `as=`), which the
 * caller then reduces with {@linkcode asPartialObjectMetadata}.
 */
export const PARTIAL_OBJECT_METADATA_LIST_ACCEPT =
  "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json";

/**
 * `Accept` for a metadata-only WATCH (and GET): each event's object is one
 * `PartialObjectMetadata`. The API server converts watch events one object
 * at a time, so the singular kind is the one to ask for here.
 */
export const PARTIAL_OBJECT_METADATA_ACCEPT =
  "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json";

/**
 * `obj` as the API server sends it in the metadata-only form:
 * `kind: PartialObjectMetadata`, `apiVersion` (default `meta.k8s.io/v1`) and
 * the same `metadata` (shared, not copied). A watcher uses it on answers
 * from clients or servers that ignored the `Accept` header and sent full
 * objects, so that what it stores does not depend on which client fetched
 * it; the fake API server uses it to answer. An object already in that form
 * is returned as is.
 */
export function asPartialObjectMetadata(
  obj: KubeObject,
  apiVersion: string = PARTIAL_OBJECT_METADATA_API_VERSION,
): KubeObject {
  if (obj.kind === "PartialObjectMetadata" && obj.apiVersion === apiVersion) {
    return obj;
  }
  return { kind: "PartialObjectMetadata", apiVersion, metadata: obj.metadata };
}

/**
 * Freezes `value` and every object and array under it; stops at what is
 * frozen already (a part shared with an object frozen before).
 */
export function deepFreeze(value: unknown): void {
  if (value === null || typeof value !== "object" || Object.isFrozen(value)) {
    return;
  }
  Object.freeze(value);
  for (const child of Object.values(value)) deepFreeze(child);
}

/**
 * Renders a JSON value as an index key or field-selector operand: strings
 * as-is, numbers via `String` (so integers have no fractional part), booleans
 * as `true`/`false`, objects and arrays as JSON. `null` and `undefined` (a
 * missing field) give `undefined`.
 */
export function renderValue(value: unknown): string | undefined {
  switch (typeof value) {
    case "string":
      return value;
    case "number":
    case "bigint":
      return String(value);
    case "boolean":
      return value ? "true" : "false";
    case "object":
      return value === null ? undefined : JSON.stringify(value);
    default:
      return undefined;
  }
}

/** A 64-bit hash as its two unsigned 32-bit halves. */
export interface Hash64 {
  /** Bits 63…32. */
  readonly hi: number;
  /** Bits 31…0. */
  readonly lo: number;
}

const encoder = new TextEncoder();

/** FNV-1a 64 of `text`'s UTF-8 encoding. */
export function fnv1a64(text: string): Hash64 {
  // The offset basis 0xcbf29ce484222325, lowest limb first.
  let h0 = 0x2325, h1 = 0x8422, h2 = 0x9ce4, h3 = 0xcbf2;
  const step = (byte: number) => {
    h0 ^= byte;
    // h × 0x100000001b3 mod 2⁶⁴: h × 0x1b3 plus h shifted left by 40 bits
    // (limb 2 gains limb 0 × 0x100, limb 3 gains limb 1 × 0x100).
    const r0 = h0 * 0x1b3;
    const r1 = h1 * 0x1b3 + (r0 >>> 16);
    const r2 = h2 * 0x1b3 + h0 * 0x100 + (r1 >>> 16);
    const r3 = h3 * 0x1b3 + h1 * 0x100 + (r2 >>> 16);
    h0 = r0 & 0xffff;
    h1 = r1 & 0xffff;
    h2 = r2 & 0xffff;
    h3 = r3 & 0xffff;
  };
  let ascii = true;
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) > 0x7f) {
      ascii = false;
      break;
    }
  }
  if (ascii) {
    // uids and namespaces are ASCII: no encoder, no byte array.
    for (let i = 0; i < text.length; i++) step(text.charCodeAt(i));
  } else {
    for (const byte of encoder.encode(text)) step(byte);
  }
  return { hi: ((h3 << 16) | h2) >>> 0, lo: ((h1 << 16) | h0) >>> 0 };
}
