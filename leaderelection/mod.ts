/**
 * Leader election on `coordination.k8s.io/v1` Leases, with client-go's
 * semantics: run a controller as several replicas, keep every replica's
 * watchers warm, and let only the leader act. See
 * {@linkcode LeaderElector} for the guarantees and their assumptions.
 *
 * The root module exports `LeaderElector` and its config; import from here
 * for the options, the health snapshot and the config error.
 *
 * @example Health of an elector that has not started
 * ```ts
 * import { FetchClient } from "@haptic/k8s-watcher";
 * import {
 *   LeaderElector,
 *   type LeaderElectorHealth,
 * } from "@haptic/k8s-watcher/leaderelection";
 * import assert from "node:assert/strict";
 *
 * using client = new FetchClient({ server: "https://127.0.0.1:6443" });
 * const elector = new LeaderElector({
 *   lease: { namespace: "haptic", name: "haptic-controller" },
 *   identity: "replica-a",
 *   onStartedLeading: () => {},
 * }, client);
 * const health: LeaderElectorHealth = elector.health();
 * assert.equal(health.leading, false);
 * ```
 *
 * ## Files
 *
 * - `leader_elector.ts`: one leader among replicas on a Lease (writes guarded
 *   by resourceVersion, a renew deadline); its checks (client-go's timing
 *   rules), `LeaderElectionConfigError`.
 * - `_lease.ts`: reading and writing the Lease record.
 * - `_elector_metrics.ts`: `leader_election_master_status` (client-go's name),
 *   transitions, renew failures.
 *
 * @module
 */
export * from "./leader_elector.ts";
