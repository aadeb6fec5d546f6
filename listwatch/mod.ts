/**
 * The list-then-watch loop both watchers run. {@linkcode ListWatch} is the
 * driver: it performs requests and hands pages, lists and events to a
 * {@linkcode ListWatchSink}. It is driven by {@linkcode listWatchTransition},
 * a pure state table (no I/O, time only through its context) that returns
 * the next state, outputs and a command, with typed reasons
 * ({@linkcode ListWatchNote}, {@linkcode Fault}) for what happened.
 * {@linkcode Backoff} is its retry schedule.
 *
 * Use `ListWatch` to keep your own structure up to date from a watch (a
 * watcher with its own store), or the state table to reason about the
 * loop in tests; a controller usually needs only the watchers.
 *
 * @example A set of names kept up to date
 * ```ts
 * import { FetchClient } from "@haptic/k8s-watcher";
 * import { ListWatch } from "@haptic/k8s-watcher/listwatch";
 * import { FakeApiServer, mockFetch, waitFor } from "@haptic/k8s-watcher/testing";
 * import assert from "node:assert/strict";
 *
 * await using server = new FakeApiServer();
 * server.create("configmaps", { metadata: { name: "a", namespace: "shop" } });
 * using _fetch = mockFetch(server);
 * using client = new FetchClient({ server: server.url });
 * const names = new Set<string>();
 * let listing: string[] = [];
 * const loop = new ListWatch(client, {
 *   onListPage: (page) => {
 *     if (page.first) listing = [];
 *     listing.push(...page.items.map((o) => o.metadata.name!));
 *   },
 *   onListEnd: () => {
 *     names.clear();
 *     for (const name of listing) names.add(name);
 *   },
 *   onEvent: (type, o) => {
 *     if (type === "DELETED") names.delete(o.metadata.name!);
 *     else names.add(o.metadata.name!);
 *   },
 * }, { gvr: { group: "", version: "v1", resource: "configmaps" }, namespace: "shop" });
 * const controller = new AbortController();
 * const done = loop.run(controller.signal);
 * await waitFor(() => loop.synced);
 * server.create("configmaps", { metadata: { name: "b", namespace: "shop" } });
 * await waitFor(() => names.size === 2);
 * controller.abort();
 * await done;
 * ```
 *
 * @module
 */
export * from "./list_watch.ts";
export * from "./list_watch_options.ts";
export * from "./list_watch_stats.ts";
export * from "./list_watch_transition.ts";
export * from "./list_watch_types.ts";
export * from "./list_watch_notes.ts";
export * from "./list_watch_errors.ts";
export * from "./backoff.ts";
