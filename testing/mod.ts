/**
 * Test helpers for code built on `@haptic/k8s-watcher`: an in-process
 * Kubernetes API server, a `fetch` mock, a fake clock and a recording logger.
 *
 * @module
 */
export * from "./fake_clock.ts";
export * from "./recording_logger.ts";
