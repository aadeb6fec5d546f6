/**
 * How our contender gets the metadata-only form, in one place so that the
 * switch to the Watcher's own `metadataOnly` is one line.
 *
 * @module
 */

import type { FetchClient, RequestOptions, RestClient } from "../client/mod.ts";
import {
  PARTIAL_OBJECT_METADATA_ACCEPT,
  PARTIAL_OBJECT_METADATA_LIST_ACCEPT,
} from "../client/_partial_object_metadata.ts";

/**
 * Until the Watcher has `metadataOnly`, metadata-only runs use a client that
 * asks for the metadata-only form on every request the Watcher makes; the
 * Watcher then stores `PartialObjectMetadata` objects through its
 * full-object path. Set this to `true` once `metadataOnly` exists: the runs
 * then pass `metadataOnly: true` and the plain client instead.
 */
export const NATIVE_METADATA_ONLY = false;

/**
 * A client asking for `PartialObjectMetadata` on the Watcher's behalf: the
 * list form for LISTs, the object form for WATCHes (told apart by the
 * `watch` parameter, as the Watcher reads both as streams).
 */
export function askingForMetadata(client: FetchClient): RestClient {
  return {
    defaultNamespace: client.defaultNamespace,
    performRequest: (opts: RequestOptions) =>
      client.performRequest({
        ...opts,
        accept: opts.querystring?.has("watch")
          ? PARTIAL_OBJECT_METADATA_ACCEPT
          : PARTIAL_OBJECT_METADATA_LIST_ACCEPT,
      }),
  } as unknown as RestClient;
}
