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
