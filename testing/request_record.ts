/**
 * One request the fake API server answered, as kept in
 * `FakeApiServer.requests`.
 *
 * @example What a LIST request looked like
 * ```ts
 * import { FakeApiServer, type RequestRecord } from "@haptic/k8s-watcher/testing";
 * import assert from "node:assert/strict";
 *
 * using server = new FakeApiServer();
 * await server.handle(new Request(`${server.url}/api/v1/namespaces/default/configmaps?limit=5`));
 * const [record]: readonly RequestRecord[] = server.requests;
 * assert.equal(record.verb, "list");
 * assert.equal(record.query.limit, "5");
 * ```
 */
export interface RequestRecord {
  /** HTTP method. */
  readonly method: string;
  /** URL path, without the query. */
  readonly path: string;
  /** Query parameters (the last value of each). */
  readonly query: Readonly<Record<string, string>>;
  /**
   * What the request does: `list`, `watch`, `get`, `create`, `update`,
   * `patch`, `delete`, `deletecollection`, `discovery`, or `unknown`.
   */
  readonly verb: string;
  /** Plural resource name, for resource requests. */
  readonly resource?: string;
  /** Namespace from the path, when there is one. */
  readonly namespace?: string;
  /** Object name from the path, when there is one. */
  readonly name?: string;
}
