/**
 * The Kubernetes client contract, a `fetch`-based client and URL helpers.
 *
 * @module
 */
export * from "./rest_client.ts";
export * from "./api_error.ts";
export * from "./paths.ts";
export * from "./json_lines.ts";
export * from "./http_status.ts";
export * from "./errors.ts";
export * from "./fetch_client_config.ts";
export * from "./fetch_client.ts";
