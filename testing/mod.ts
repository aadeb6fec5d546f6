/**
 * Test helpers for code built on `@haptic/k8s-watcher`: an in-process
 * Kubernetes API server, a `fetch` mock, a fake clock and a recording logger.
 *
 * @module
 */
export * from "./fake_clock.ts";
export * from "./recording_logger.ts";
export { FakeApiServer } from "./fake_api_server.ts";
export type {
  FakeApiListener,
  FakeApiServerOptions,
} from "./fake_api_server.ts";
export { FakeApiError } from "./fake_api_error.ts";
export { mockFetch } from "./mock_fetch.ts";
export { builtinResources } from "./resources.ts";
export type {
  ResourceDefinition,
  ResourceInfo,
  ResourceRef,
} from "./resources.ts";
export type {
  Fault,
  FaultAction,
  FaultHandle,
  FaultMatch,
  FaultVerb,
} from "./faults.ts";
export type { RequestRecord } from "./request_record.ts";
