import { ApiError, type KubeStatus } from "../client/api_error.ts";

/**
 * An error from the programmatic API of `FakeApiServer` (`create`, `get`,
 * `update`, …), carrying the same Kubernetes `Status` the HTTP API would
 * answer: 404 `NotFound`, 409 `AlreadyExists`/`Conflict`, 422 `Invalid`.
 * It is an {@linkcode ApiError}, so code that handles real API errors
 * handles these too.
 *
 * @example Getting an object that does not exist
 * ```ts
 * import { FakeApiError, FakeApiServer } from "@haptic/k8s-watcher/testing";
 * import assert from "node:assert/strict";
 *
 * using server = new FakeApiServer();
 * assert.throws(
 *   () => server.get("configmaps", "default", "missing"),
 *   (err) => err instanceof FakeApiError && err.code === 404 && err.reason === "NotFound",
 * );
 * ```
 */
export class FakeApiError extends ApiError {
  /** The Kubernetes `Status` describing the failure. */
  override readonly status: KubeStatus;

  /**
   * Creates the error from a `Status`; the message is the status message.
   *
   * @example A 404 Status as the server would send it
   * ```ts
   * import { FakeApiError } from "@haptic/k8s-watcher/testing";
   * import assert from "node:assert/strict";
   *
   * const err = new FakeApiError({
   *   kind: "Status",
   *   apiVersion: "v1",
   *   status: "Failure",
   *   reason: "NotFound",
   *   message: 'configmaps "x" not found',
   *   code: 404,
   * });
   * assert.equal(err.code, 404);
   * assert.equal(err.reason, "NotFound");
   * ```
   *
   * @param status The failure, with `code`, `reason` and `message`.
   */
  constructor(status: KubeStatus) {
    super({
      code: status.code ?? 500,
      status,
      message: status.message ?? `Fake API server failed with ${status.code}`,
    });
    this.name = "FakeApiError";
    this.status = status;
  }
}
