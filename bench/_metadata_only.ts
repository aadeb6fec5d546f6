/**
 * How our contender gets the metadata-only form, in one place: the
 * Watcher's own `metadataOnly` (`NATIVE_METADATA_ONLY`), or, for measuring
 * a Watcher without it, a client that asks for the form on its behalf.
 *
 * @module
 */

import type { FetchClient, RestClient } from "../mod.ts";
import type { RequestOptions } from "../client/mod.ts";
import {
  PARTIAL_OBJECT_METADATA_ACCEPT,
  PARTIAL_OBJECT_METADATA_LIST_ACCEPT,
} from "../_internal/_objects.ts";

/**
 * `true`: metadata-only runs pass `metadataOnly: true` and the plain
 * client. `false`: they use {@linkcode askingForMetadata}, and the Watcher
 * stores `PartialObjectMetadata` objects through its full-object path (how
 * the figures before `metadataOnly` existed were taken).
 */
export const NATIVE_METADATA_ONLY = true;

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
      } as RequestOptions),
  } as unknown as RestClient;
}
