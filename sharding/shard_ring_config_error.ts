/**
 * Thrown when a `ShardRing`'s config or options are wrong; the message
 * names the option and what was wrong with it, and
 * {@linkcode ShardRingConfigError.field} holds its path.
 *
 * @example A ring without a name
 * ```ts
 * import { ShardRing, ShardRingConfigError } from "@haptic/k8s-watcher/sharding";
 * import { FakeApiServer, mockFetch } from "@haptic/k8s-watcher/testing";
 * import { FetchClient } from "@haptic/k8s-watcher/client";
 * import assert from "node:assert/strict";
 *
 * await using server = new FakeApiServer();
 * using _fetch = mockFetch(server);
 * using client = new FetchClient({ server: server.url });
 * assert.throws(
 *   () => new ShardRing({ name: "", namespace: "shop", identity: "pod-1" }, client),
 *   (error: unknown) => error instanceof ShardRingConfigError && error.field === "name",
 * );
 * ```
 */
export class ShardRingConfigError extends TypeError {
  /** The option's path, e.g. `renewDeadlineMs`. */
  readonly field: string;

  /**
   * Creates the error.
   *
   * @example Naming the option
   * ```ts
   * import { ShardRingConfigError } from "@haptic/k8s-watcher/sharding";
   * import assert from "node:assert/strict";
   *
   * const error = new ShardRingConfigError("identity", "must be a non-empty string, got \"\"");
   * assert.equal(error.message, 'Invalid ShardRing config: identity: must be a non-empty string, got ""');
   * ```
   *
   * @param field The option's path.
   * @param message What is wrong with it, worded to follow the path.
   */
  constructor(field: string, message: string) {
    super(`Invalid ShardRing config: ${field}: ${message}`);
    this.name = "ShardRingConfigError";
    this.field = field;
  }
}
