/**
 * JSONPath-lite, index-key extraction, ignored fields and client-side field
 * selectors.
 *
 * @module
 */
export * from "./jsonpath.ts";
export * from "./indexer.ts";
export * from "./field_selector.ts";
export * from "./label_selector.ts";
