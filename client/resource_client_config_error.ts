/**
 * Thrown when a `ResourceClient`'s options, or the options of one of its
 * calls, are wrong; the message names the option and what was wrong with
 * it, {@linkcode ResourceClientConfigError.field} holds its path. Nothing
 * was sent.
 *
 * @example An apply without a field manager
 * ```ts
 * import { ResourceClient, ResourceClientConfigError } from "@haptic/k8s-watcher/client";
 * import { FakeApiServer, mockFetch } from "@haptic/k8s-watcher/testing";
 * import { FetchClient } from "@haptic/k8s-watcher";
 * import assert from "node:assert/strict";
 *
 * await using server = new FakeApiServer();
 * using _fetch = mockFetch(server);
 * using client = new FetchClient({ server: server.url });
 * const configMaps = new ResourceClient({ client, gvr: { group: "", version: "v1", resource: "configmaps" } });
 * await assert.rejects(
 *   // A caller without types can leave the required field manager out.
 *   configMaps.apply(
 *     { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "a" } },
 *     {} as { fieldManager: string },
 *   ),
 *   (error: unknown) => error instanceof ResourceClientConfigError && error.field === "fieldManager",
 * );
 * ```
 */
export class ResourceClientConfigError extends TypeError {
  /** What took the options: `ResourceClient`, or a call such as `ResourceClient.apply`. */
  readonly component: string;
  /** The option's path, e.g. `gvr.resource` or `fieldManager`. */
  readonly field: string;

  /**
   * Creates the error.
   *
   * @example Naming the option
   * ```ts
   * import { ResourceClientConfigError } from "@haptic/k8s-watcher/client";
   * import assert from "node:assert/strict";
   *
   * const error = new ResourceClientConfigError("ResourceClient", "gvr.resource", "must be a non-empty string, got \"\"");
   * assert.equal(error.message, 'Invalid ResourceClient options: gvr.resource: must be a non-empty string, got ""');
   * ```
   *
   * @param component `ResourceClient`, or the call.
   * @param field The option's path.
   * @param message What is wrong with it, worded to follow the path.
   */
  constructor(component: string, field: string, message: string) {
    super(`Invalid ${component} options: ${field}: ${message}`);
    this.name = "ResourceClientConfigError";
    this.component = component;
    this.field = field;
  }
}
