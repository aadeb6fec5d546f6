/**
 * Thrown by `ShardRing.start()` after `stop()`: a member leaves its ring
 * once; make a new `ShardRing` to join again.
 *
 * @example Starting a stopped member
 * ```ts
 * import { ShardRing, ShardRingStoppedError } from "@haptic/k8s-watcher/sharding";
 * import { FetchClient } from "@haptic/k8s-watcher/client";
 * import { FakeApiServer, mockFetch } from "@haptic/k8s-watcher/testing";
 * import assert from "node:assert/strict";
 *
 * await using server = new FakeApiServer();
 * using _fetch = mockFetch(server);
 * using client = new FetchClient({ server: server.url });
 * const ring = new ShardRing({ name: "widgets", namespace: "shop", identity: "pod-1" }, client);
 * await ring.stop();
 * assert.throws(() => ring.start(), ShardRingStoppedError);
 * ```
 */
export class ShardRingStoppedError extends Error {
  /** The ring's name. */
  readonly ring: string;
  /** The member's identity. */
  readonly identity: string;

  /**
   * Creates the error.
   *
   * @example The message
   * ```ts
   * import { ShardRingStoppedError } from "@haptic/k8s-watcher/sharding";
   * import assert from "node:assert/strict";
   *
   * assert.equal(
   *   new ShardRingStoppedError("widgets", "pod-1").message,
   *   "Shard ring member pod-1 of widgets was stopped: make a new ShardRing to join again",
   * );
   * ```
   *
   * @param ring The ring's name.
   * @param identity The member's identity.
   */
  constructor(ring: string, identity: string) {
    super(
      `Shard ring member ${identity} of ${ring} was stopped: make a new ShardRing to join again`,
    );
    this.name = "ShardRingStoppedError";
    this.ring = ring;
    this.identity = identity;
  }
}
