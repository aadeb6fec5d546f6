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
 * @module
 */
export * from "./shard_ring.ts";
export * from "./shard_ring_config.ts";
export * from "./shard_ring_config_error.ts";
export * from "./shard_ring_stopped_error.ts";
export * from "./shard_range.ts";
