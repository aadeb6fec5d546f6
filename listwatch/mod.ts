/**
 * The list-then-watch loop both watchers run. {@linkcode ListWatch} is the
 * driver: it performs requests and hands pages, lists and events to a
 * {@linkcode ListWatchSink}. It is driven by a private, pure state table
 * (no I/O, time only through its context) that returns the next state,
 * outputs and a command, with typed reasons ({@linkcode ListWatchNote},
 * {@linkcode Fault}) for what happened. {@linkcode Backoff} is its retry
 * schedule.
 *
 * Use `ListWatch` to keep your own structure up to date from a watch (a
 * watcher with its own store); a controller usually needs only the
 * watchers.
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
 * ## Files
 *
 * - `list_watch_types.ts`: the loop's public vocabulary: its options (the
 *   timeouts a watcher passes on, `ListWatchTimeouts`), its sink and what the
 *   sink is given (`ListPage`, `ListInfo`), its phases and last failure; its
 *   counts (`ListWatchStats`, `sumListWatchStats`); typed reasons
 *   (`ListWatchNote`, `Fault`, `FaultKind`); the loop's own errors.
 * - `_transition_types.ts`: the state table's vocabulary: states, inputs,
 *   outputs (`page`, `listed`, `event`, `note`), commands.
 * - `_fault.ts`: the failure classes, one table: how each is recognised,
 *   whether it relists.
 * - `_list_watch_transition.ts`: the pure state table, top to bottom:
 *   `switch (state.phase)`, one function per phase with one failure path each,
 *   then building each state (one shape per phase), entering a phase with its
 *   request, staying, backing off.
 * - `_list_watch_wire.ts`: what the table puts on the wire and reads back,
 *   pure: each request's query, and the checks of what the server sent (a
 *   LIST answer's parts, an event's type, an object's metadata).
 * - `list_watch.ts`: `ListWatch`, the driver: it performs each command and
 *   feeds the result back through one path (`#feed`).
 * - `_list_watch_checks.ts`: the checks of `ListWatch`'s options, the first
 *   wrong one a `WatcherConfigError`.
 * - `_loop_stats.ts`: one record per loop (counts, `lastActivityTime`) that
 *   health, metrics and logs read; its instruments; a retried failure as the
 *   loop records it (`lastError`): the error as thrown, and its JSON form
 *   with the causes.
 * - `_request_timers.ts`: a request's first-byte deadline, idle timer, deadline
 *   (from its last progress) and abort.
 * - `_bodies.ts`: what the server sends, as the loop reads it: a LIST body
 *   read whole; the loop's `ignoreFields`: how lines and LIST bodies are
 *   parsed (cut), then pruned; never a BOOKMARK's or an ERROR's object.
 * - `_log_lines.ts`: every log line of the loop: level, wording, hint, fields.
 * - `backoff.ts`, `_backoff_names.ts`: the retry delays; its option names.
 *
 * @module
 */
export * from "./list_watch.ts";
export * from "./list_watch_types.ts";
export * from "./backoff.ts";
