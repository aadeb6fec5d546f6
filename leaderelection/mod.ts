/**
 * Leader election on `coordination.k8s.io/v1` Leases.
 *
 * @module
 */
export * from "./leader_elector.ts";
export * from "./leader_election_config_error.ts";
