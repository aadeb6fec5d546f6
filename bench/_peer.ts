/**
 * The pinned peer, a bench-only dependency. Imported dynamically from this
 * constant so that `deno check .` neither resolves nor downloads it.
 *
 * @module
 */

/** npm specifier of the peer. */
export const PEER_SPECIFIER = "npm:@kubernetes/client-node@2.0.1";
