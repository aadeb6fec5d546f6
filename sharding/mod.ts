/**
 * Sharding a controller's objects across its replicas on Kubernetes itself:
 * `ShardRing`, one Lease per replica labelled with the ring's name; the
 * hash space (FNV-1a 64 of `metadata.uid` or `metadata.namespace`, as
 * KEP-5866's server-side `shardSelector` hashes) cut into one contiguous
 * range per live member; keys handed over only through acknowledgements in
 * those Leases, so no key is worked by two replicas at once.
 *
 * @example One member
 * ```ts
 * import { ShardRing } from "@haptic/k8s-watcher/sharding";
 * import { FetchClient } from "@haptic/k8s-watcher/client";
 * import { FakeApiServer, mockFetch } from "@haptic/k8s-watcher/testing";
 *
 * await using server = new FakeApiServer();
 * using _fetch = mockFetch(server);
 * using client = new FetchClient({ server: server.url });
 * await using ring = new ShardRing({ name: "widgets", namespace: "shop", identity: "pod-1" }, client);
 * ```
 *
 * ## Files
 *
 * - `shard_ring.ts`: `ShardRing`: one Lease per replica, labelled with the
 *   ring; the live Leases are the members; the rule and its guarantee (see the
 *   class); `ShardRingStoppedError`; every log line of a ring (ranges as people
 *   read them); a member's series: members, assigned and permitted shares,
 *   changes, failed renewals.
 * - `shard_ring_config.ts`: a ring's config, options and state;
 *   `ShardRingConfigError`, the first wrong one; `ShardRange`, `ShardBy`,
 *   `shardSelector`.
 * - `_ring_plan.ts`: a ring's config and options checked once into one frozen
 *   plan.
 * - `_ring_view.ts`: the arithmetic, no I/O: one contiguous range per member
 *   of a view, what a member may work on given every acknowledgement, the
 *   share of the hash space ranges cover.
 * - `_ring_lease.ts`: a member's Lease: holder, renewal, the acknowledged view
 *   (an annotation).
 *
 * @module
 */
export * from "./shard_ring.ts";
export * from "./shard_ring_config.ts";
