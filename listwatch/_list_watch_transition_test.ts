import assert from "node:assert/strict";
import {
  initialListWatchState,
  listWatchTransition,
} from "./_list_watch_transition.ts";
import type {
  ListWatchCommand,
  ListWatchContext,
  ListWatchInput,
  ListWatchOutput,
  ListWatchState,
  ListWatchStep,
} from "./_transition_types.ts";
import { type LogLine, noteLine } from "./_log_lines.ts";
import { MalformedListError, WatchClosedError } from "./list_watch_types.ts";
import { ApiError } from "../client/api_error.ts";
import { JsonLinesError } from "../client/json_lines.ts";
import type { KubeObject } from "../types.ts";

const PATH = "/api/v1/namespaces/default/configmaps";

function context(
  overrides: Partial<ListWatchContext> & { time?: { now: number } } = {},
): ListWatchContext {
  const time = overrides.time ?? { now: 0 };
  return {
    path: PATH,
    pageSize: 500,
    random: () => 0.5,
    now: () => time.now,
    ...overrides,
  };
}

function obj(name: string, rv = "1"): KubeObject {
  return { metadata: { name, namespace: "default", resourceVersion: rv } };
}

function page(rv: string, items: unknown[], cont?: string): ListWatchInput {
  return {
    type: "listPage",
    list: {
      kind: "ConfigMapList",
      metadata: cont ? { resourceVersion: rv, continue: cont } : {
        resourceVersion: rv,
      },
      items,
    },
  };
}

function event(type: string, object: unknown): ListWatchInput {
  return { type: "watchEvent", event: { type, object } };
}

function bookmark(rv: string, end = false): ListWatchInput {
  return event("BOOKMARK", {
    kind: "ConfigMap",
    metadata: {
      resourceVersion: rv,
      ...(end ? { annotations: { "k8s.io/initial-events-end": "true" } } : {}),
    },
  });
}

function command<T extends ListWatchCommand["type"]>(
  step: ListWatchStep,
  type: T,
): Extract<ListWatchCommand, { type: T }> {
  assert.equal(step.command?.type, type, `expected a ${type} command`);
  return step.command as Extract<ListWatchCommand, { type: T }>;
}

function outputs<T extends ListWatchOutput["type"]>(
  step: ListWatchStep,
  type: T,
): Extract<ListWatchOutput, { type: T }>[] {
  return step.outputs.filter((o) => o.type === type) as Extract<
    ListWatchOutput,
    { type: T }
  >[];
}

/**
 * The backoff a step asks for, with the log line the driver writes for its
 * reason (the wording lives in `_log_lines.ts`, the decision here).
 */
function backoff(
  step: ListWatchStep,
): Extract<ListWatchCommand, { type: "backoff" }> & LogLine {
  const cmd = command(step, "backoff");
  return { ...cmd, ...noteLine(cmd.reason, PATH) };
}

/** The log lines of a step's notes. */
function logs(step: ListWatchStep): LogLine[] {
  return outputs(step, "note").map((o) => noteLine(o.note, PATH));
}

/** Lists completed by a step, with the objects of the step's pages. */
function completed(
  step: ListWatchStep,
): { objects: KubeObject[]; resourceVersion: string; initial: boolean }[] {
  const objects = outputs(step, "page").flatMap((p) => p.items);
  return outputs(step, "listed").map((l) => ({
    objects,
    resourceVersion: l.resourceVersion,
    initial: l.initial,
  }));
}

/** Runs inputs one after another from `state`, returning every step. */
function run(
  state: ListWatchState,
  inputs: ListWatchInput[],
  ctx: ListWatchContext = context(),
): ListWatchStep[] {
  const steps: ListWatchStep[] = [];
  for (const input of inputs) {
    const step = listWatchTransition(state, input, ctx);
    steps.push(step);
    state = step.state;
  }
  return steps;
}

/** A watching state reached through a one-page list at `rv`. */
function watchingAt(
  rv: string,
  ctx: ListWatchContext = context(),
  options: { events?: number } = {},
): ListWatchState {
  const steps = run(initialListWatchState(), [
    { type: "start" },
    page(rv, [obj("a")]),
    { type: "watchOpened" },
    ...Array.from(
      { length: options.events ?? 1 },
      (_, i) => event("MODIFIED", obj("a", `${Number(rv) + i + 1}`)),
    ),
  ], ctx);
  return steps.at(-1)!.state;
}

Deno.test("listWatchTransition starts with a first LIST page with limit and selectors in the query", () => {
  const ctx = context({
    labelSelector: "app=web",
    fieldSelector: "metadata.name=x",
  });
  const step = listWatchTransition(
    initialListWatchState(),
    { type: "start" },
    ctx,
  );
  assert.equal(step.state.phase, "listing");
  const { query } = command(step, "list");
  assert.equal(query.get("limit"), "500");
  assert.equal(query.get("labelSelector"), "app=web");
  assert.equal(query.get("fieldSelector"), "metadata.name=x");
  assert.equal(query.has("continue"), false);
  assert.equal(query.has("watch"), false);
  assert.equal(query.has("resourceVersion"), false);
});

Deno.test("listWatchTransition follows every page, then delivers the whole list once and watches from its resourceVersion", () => {
  const ctx = context({ pageSize: 2 });
  const [start, first, second, last] = run(initialListWatchState(), [
    { type: "start" },
    page("100", [obj("a"), obj("b")], "token-1"),
    page("100", [obj("c"), obj("d")], "token-2"),
    page("100", [obj("e")]),
  ], ctx);
  assert.equal(command(start, "list").query.get("limit"), "2");

  assert.equal(command(first, "list").query.get("continue"), "token-1");
  assert.equal(command(first, "list").query.get("limit"), "2");
  assert.deepEqual(outputs(first, "page"), [{
    type: "page",
    items: [obj("a"), obj("b")],
    first: true,
    listedSoFar: 2,
  }]);
  assert.equal(completed(first).length, 0);

  assert.equal(command(second, "list").query.get("continue"), "token-2");
  assert.deepEqual(outputs(second, "page")[0].listedSoFar, 4);
  assert.equal(outputs(second, "page")[0].first, false);

  // Each page goes out as it arrives; the last one completes the list.
  const pages = [first, second, last].flatMap((s) => outputs(s, "page"));
  assert.deepEqual(
    pages.flatMap((p) => p.items).map((o) => o.metadata.name),
    ["a", "b", "c", "d", "e"],
  );
  const [delivered] = outputs(last, "listed");
  assert.equal(delivered.resourceVersion, "100");
  assert.equal(delivered.initial, true);
  assert.deepEqual(outputs(last, "page")[0].listedSoFar, 5);
  assert.deepEqual(
    last.outputs.map((o) => o.type),
    ["page", "listed"],
    "the last page comes before the list is complete",
  );

  assert.equal(last.state.phase, "watching");
  assert.equal(last.state.synced, true);
  const watch = command(last, "watch");
  assert.equal(watch.initialStream, false);
  assert.equal(watch.reconnect, false);
  assert.equal(watch.query.get("watch"), "1");
  assert.equal(watch.query.get("resourceVersion"), "100");
  assert.equal(watch.query.get("allowWatchBookmarks"), "true");
  assert.equal(watch.query.has("limit"), false);
});

Deno.test("listWatchTransition draws the watch timeoutSeconds in [300, 600]", () => {
  for (
    const [random, expected] of [[0, "300"], [0.5, "450"], [
      0.9999999,
      "600",
    ]] as const
  ) {
    const state =
      run(initialListWatchState(), [{ type: "start" }], context())[0].state;
    const step = listWatchTransition(
      state,
      page("5", []),
      context({ random: () => random }),
    );
    assert.equal(command(step, "watch").query.get("timeoutSeconds"), expected);
  }
});

Deno.test("listWatchTransition skips listed objects without metadata with a warning", () => {
  const [, last] = run(initialListWatchState(), [
    { type: "start" },
    page("7", [obj("a"), { kind: "ConfigMap" }, null, obj("b")]),
  ]);
  const [delivered] = completed(last);
  assert.deepEqual(delivered.objects.map((o) => o.metadata.name), ["a", "b"]);
  const [warning] = logs(last);
  assert.equal(warning.level, "warn");
  assert.match(warning.message, /2 object\(s\) without metadata/);
});

Deno.test("listWatchTransition backs off on an answer that is not a list, then asks for the same page again", () => {
  const [, first, bad] = run(initialListWatchState(), [
    { type: "start" },
    page("7", [obj("a")], "next"),
    { type: "listPage", list: { kind: "Status", items: [] } },
  ]);
  assert.equal(first.state.phase, "listing");
  const failed_ = backoff(bad);
  assert.ok(failed_.error instanceof MalformedListError);
  assert.match(failed_.message, /no metadata\.resourceVersion/);
  assert.equal(bad.state.phase, "backingOff");

  const retry = listWatchTransition(
    bad.state,
    { type: "backoffElapsed" },
    context(),
  );
  assert.equal(command(retry, "list").query.get("continue"), "next");
  assert.equal(retry.state.phase === "listing" && retry.state.listed, 1);
});

Deno.test("listWatchTransition restarts with one full list when the continue token expires", () => {
  const expired = new ApiError({
    code: 410,
    status: {
      reason: "Expired",
      message: "The provided continue parameter is too old",
    },
  });
  const [, first, restart, done] = run(initialListWatchState(), [
    { type: "start" },
    page("10", [obj("a")], "old-token"),
    { type: "listFailed", error: expired },
    page("12", [obj("a"), obj("b")]),
  ]);
  assert.equal(first.state.phase, "listing");
  const { query } = command(restart, "list");
  assert.equal(query.has("continue"), false);
  assert.equal(query.has("limit"), false, "one full list, not paged");
  assert.equal(logs(restart)[0].level, "info");
  assert.equal(
    restart.state.phase === "listing" && restart.state.listed,
    0,
  );

  const [delivered] = completed(done);
  assert.deepEqual(delivered.objects.map((o) => o.metadata.name), ["a", "b"]);
  assert.equal(delivered.resourceVersion, "12");

  // The next relist pages again.
  const again = listWatchTransition(
    done.state,
    event("ERROR", { kind: "Status", code: 410, reason: "Expired" }),
    context(),
  );
  const relist = again.state.phase === "backingOff"
    ? listWatchTransition(again.state, { type: "backoffElapsed" }, context())
    : again;
  assert.equal(command(relist, "list").query.get("limit"), "500");
});

Deno.test("listWatchTransition logs 401/403/404 on LIST at error level with the URL and a hint, and retries", () => {
  const cases = [
    [401, "Unauthorized", /credentials rejected/],
    [403, "Forbidden", /RBAC missing\?/],
    [404, "NotFound", /CRD not installed/],
  ] as const;
  for (const [code, reason, hint] of cases) {
    const ctx = context({ labelSelector: "app=web" });
    const [, failed] = run(initialListWatchState(), [
      { type: "start" },
      {
        type: "listFailed",
        error: new ApiError({
          code,
          status: { reason },
          method: "GET",
          path: PATH,
        }),
      },
    ], ctx);
    const failed_ = backoff(failed);
    assert.equal(failed_.level, "error");
    assert.match(failed_.message, hint);
    assert.ok(
      failed_.message.includes(`${PATH}?limit=500&labelSelector=app%3Dweb`),
      failed_.message,
    );
    assert.equal(failed_.fields.code, code);
    assert.equal(failed_.retryAfterMs, undefined);
    assert.equal(failed.state.phase, "backingOff");
    const retry = listWatchTransition(
      failed.state,
      { type: "backoffElapsed" },
      ctx,
    );
    assert.equal(command(retry, "list").query.get("limit"), "500");
  }
});

Deno.test("listWatchTransition passes Retry-After on, and classifies foreign client errors", () => {
  const [, throttled] = run(initialListWatchState(), [
    { type: "start" },
    {
      type: "listFailed",
      error: new ApiError({
        code: 429,
        status: { reason: "TooManyRequests" },
        retryAfterSeconds: 7,
      }),
    },
  ]);
  const failed_ = backoff(throttled);
  assert.equal(failed_.retryAfterMs, 7_000);
  assert.equal(failed_.level, "warn");

  // @cloudydeno/kubernetes-client reports httpCode and the Status.
  const foreign = Object.assign(
    new Error("Kubernetes returned HTTP 403 Forbidden"),
    {
      httpCode: 403,
      status: { kind: "Status", code: 403, reason: "Forbidden" },
    },
  );
  const [, forbidden] = run(initialListWatchState(), [
    { type: "start" },
    { type: "listFailed", error: foreign },
  ]);
  assert.equal(backoff(forbidden).level, "error");

  const [, refused] = run(initialListWatchState(), [
    { type: "start" },
    { type: "listFailed", error: new TypeError("Connection refused") },
  ]);
  assert.equal(backoff(refused).level, "warn");
  assert.match(backoff(refused).message, /Connection refused/);
});

Deno.test("listWatchTransition delivers watch events and tracks the resourceVersion of each, bookmarks included", () => {
  const ctx = context();
  const [, , opened, added, mark, deleted] = run(initialListWatchState(), [
    { type: "start" },
    page("10", []),
    { type: "watchOpened" },
    event("ADDED", obj("a", "11")),
    bookmark("15"),
    event("DELETED", obj("a", "16")),
  ], ctx);
  assert.equal(opened.command, undefined);
  assert.equal(opened.state.phase === "watching" && opened.state.opened, true);

  assert.equal(added.command, undefined);
  assert.deepEqual(added.outputs, [{
    type: "event",
    eventType: "ADDED",
    object: obj("a", "11"),
  }]);
  assert.equal(
    added.state.phase === "watching" && added.state.resourceVersion,
    "11",
  );

  assert.deepEqual(mark.outputs, []);
  assert.equal(mark.command, undefined);
  assert.equal(
    mark.state.phase === "watching" && mark.state.resourceVersion,
    "15",
  );

  assert.equal(
    deleted.outputs[0].type === "event" && deleted.outputs[0].eventType,
    "DELETED",
  );
  assert.equal(
    deleted.state.phase === "watching" && deleted.state.resourceVersion,
    "16",
  );
});

Deno.test("listWatchTransition skips events without metadata, of unknown type, or not events at all", () => {
  const state = watchingAt("10");
  for (
    const input of [
      event("MODIFIED", { kind: "ConfigMap" }),
      event("ADDED", "oops"),
      event("SOMETHING", obj("a", "99")),
      { type: "watchEvent", event: [1, 2] },
      { type: "watchEvent", event: null },
    ] as ListWatchInput[]
  ) {
    const step = listWatchTransition(state, input, context());
    assert.equal(step.command, undefined);
    assert.equal(step.outputs.length, 1);
    const [warning] = logs(step);
    assert.equal(warning.level, "warn");
    assert.match(warning.message, /skipped/);
    assert.equal(
      step.state.phase === "watching" && step.state.resourceVersion,
      "11",
    );
  }
});

Deno.test("listWatchTransition re-watches from the last resourceVersion when the stream ends cleanly", () => {
  const time = { now: 0 };
  const ctx = context({ time });
  const state = watchingAt("10", ctx, { events: 2 });
  time.now += 300_000;
  const step = listWatchTransition(state, { type: "watchEnded" }, ctx);
  const watch = command(step, "watch");
  assert.equal(watch.query.get("resourceVersion"), "12");
  assert.equal(watch.reconnect, true);
  assert.equal(step.outputs.some((o) => o.type === "listed"), false);
  assert.equal(logs(step)[0].level, "debug");
});

Deno.test("listWatchTransition backs off when a watch closes at once without any event", () => {
  const time = { now: 0 };
  const ctx = context({ time });
  const [, , opened] = run(initialListWatchState(), [
    { type: "start" },
    page("10", []),
    { type: "watchOpened" },
  ], ctx);
  time.now += 20;
  const step = listWatchTransition(opened.state, { type: "watchEnded" }, ctx);
  const failed_ = backoff(step);
  assert.ok(failed_.error instanceof WatchClosedError);
  assert.equal(
    step.state.phase === "backingOff" && step.state.next.phase,
    "watching",
  );
  const again = listWatchTransition(
    step.state,
    { type: "backoffElapsed" },
    ctx,
  );
  assert.equal(command(again, "watch").query.get("resourceVersion"), "10");

  // A quiet watch that lasted its time is fine.
  time.now += 300_000;
  const quiet = listWatchTransition(
    listWatchTransition(
      again.state,
      { type: "watchOpened" },
      context({ time: { now: 0 } }),
    ).state,
    { type: "watchEnded" },
    ctx,
  );
  assert.equal(command(quiet, "watch").query.get("resourceVersion"), "10");
});

Deno.test("listWatchTransition relists on 410, as an ERROR event and as an HTTP status", () => {
  const inputs: ListWatchInput[] = [
    event("ERROR", {
      kind: "Status",
      status: "Failure",
      code: 410,
      reason: "Expired",
      message: "too old resource version: 11 (20)",
    }),
    {
      type: "watchFailed",
      error: new ApiError({ code: 410, status: { reason: "Gone" } }),
    },
  ];
  for (const input of inputs) {
    const step = listWatchTransition(watchingAt("10"), input, context());
    const list = command(step, "list");
    assert.equal(list.query.has("resourceVersion"), false);
    assert.equal(list.query.has("continue"), false);
    assert.equal(step.state.phase, "listing");
    assert.equal(step.state.synced, true);
    assert.equal(logs(step)[0].level, "info");
    assert.match(logs(step)[0].message, /410/);

    const relisted = listWatchTransition(
      step.state,
      page("30", [obj("b")]),
      context(),
    );
    assert.equal(completed(relisted)[0].initial, false);
    assert.equal(command(relisted, "watch").query.get("resourceVersion"), "30");
  }
});

Deno.test("listWatchTransition pauses before relisting when a watch fails with 410 right after its list", () => {
  const [, , opened] = run(initialListWatchState(), [
    { type: "start" },
    page("10", []),
    { type: "watchOpened" },
  ]);
  const step = listWatchTransition(
    opened.state,
    event("ERROR", { kind: "Status", code: 410, reason: "Expired" }),
    context(),
  );
  command(step, "backoff");
  assert.equal(
    step.state.phase === "backingOff" && step.state.next.phase,
    "listing",
  );
  assert.equal(
    command(
      listWatchTransition(step.state, { type: "backoffElapsed" }, context()),
      "list",
    ).query.get("limit"),
    "500",
  );
});

Deno.test("listWatchTransition relists without a resourceVersion on 'Too large resource version'", () => {
  const tooLarge = {
    kind: "Status",
    code: 504,
    reason: "Timeout",
    message: "Timeout: Too large resource version: 20, current: 12",
    details: {
      causes: [{
        reason: "ResourceVersionTooLarge",
        message: "Too large resource version",
      }],
    },
  };
  const inputs: ListWatchInput[] = [
    event("ERROR", tooLarge),
    event("ERROR", { ...tooLarge, message: "request timed out" }),
    event("ERROR", {
      kind: "Status",
      code: 500,
      message: "Too large resource version: 20",
    }),
    {
      type: "watchFailed",
      error: new ApiError({ code: 504, status: tooLarge }),
    },
  ];
  for (const input of inputs) {
    const step = listWatchTransition(watchingAt("10"), input, context());
    const list = command(step, "list");
    assert.equal(list.query.has("resourceVersion"), false);
    assert.equal(list.query.has("resourceVersionMatch"), false);
    assert.match(logs(step)[0].message, /too large resource version/);
  }
});

Deno.test("listWatchTransition backs off and re-watches from the last resourceVersion on other ERROR events", () => {
  for (
    const status of [
      {
        kind: "Status",
        code: 500,
        reason: "InternalError",
        message: "etcd unavailable",
      },
      { kind: "Status", message: "something odd" },
      "not a status",
    ]
  ) {
    const step = listWatchTransition(
      watchingAt("10"),
      event("ERROR", status),
      context(),
    );
    const failed_ = backoff(step);
    assert.ok(failed_.error instanceof ApiError);
    assert.match(failed_.message, /ERROR event/);
    assert.match(failed_.message, /re-watching from resourceVersion 11/);
    assert.equal(step.state.phase, "backingOff");
    const again = listWatchTransition(
      step.state,
      { type: "backoffElapsed" },
      context(),
    );
    const watch = command(again, "watch");
    assert.equal(watch.query.get("resourceVersion"), "11");
    assert.equal(watch.reconnect, true);
  }
  const unknown = listWatchTransition(
    watchingAt("10"),
    event("ERROR", { kind: "Status" }),
    context(),
  );
  assert.match(backoff(unknown).message, /unknown code/);
});

Deno.test("listWatchTransition honours retryAfterSeconds of a 429 ERROR event", () => {
  const step = listWatchTransition(
    watchingAt("10"),
    event("ERROR", {
      kind: "Status",
      code: 429,
      reason: "TooManyRequests",
      details: { retryAfterSeconds: 7 },
    }),
    context(),
  );
  assert.equal(command(step, "backoff").retryAfterMs, 7_000);
  const plain = listWatchTransition(
    watchingAt("10"),
    event("ERROR", { kind: "Status", code: 500 }),
    context(),
  );
  assert.equal(command(plain, "backoff").retryAfterMs, undefined);
});

Deno.test("listWatchTransition backs off and re-watches on undecodable lines and broken connections", () => {
  const errors: [unknown, RegExp, string][] = [
    [
      new JsonLinesError("truncated", '{"type":"ADD'),
      /could not be decoded/,
      "warn",
    ],
    [
      new JsonLinesError("invalid-json", "<html>"),
      /could not be decoded/,
      "warn",
    ],
    [new TypeError("error reading a body from connection"), /failed/, "warn"],
    [new ApiError({ code: 500 }), /failed/, "warn"],
    [new ApiError({ code: 503, retryAfterSeconds: 3 }), /failed/, "warn"],
    [
      new ApiError({ code: 403, status: { reason: "Forbidden" } }),
      /RBAC missing/,
      "error",
    ],
  ];
  for (const [error, message, level] of errors) {
    const step = listWatchTransition(
      watchingAt("10"),
      { type: "watchFailed", error },
      context(),
    );
    const failed_ = backoff(step);
    assert.equal(failed_.error, error);
    assert.match(failed_.message, message);
    assert.equal(failed_.level, level);
    const again = listWatchTransition(
      step.state,
      { type: "backoffElapsed" },
      context(),
    );
    assert.equal(command(again, "watch").query.get("resourceVersion"), "11");
  }
  const throttled = listWatchTransition(
    watchingAt("10"),
    {
      type: "watchFailed",
      error: new ApiError({ code: 503, retryAfterSeconds: 3 }),
    },
    context(),
  );
  assert.equal(command(throttled, "backoff").retryAfterMs, 3_000);
});

Deno.test("listWatchTransition resumes from the last resourceVersion after an idle timeout, without relisting", () => {
  const step = listWatchTransition(watchingAt("10"), {
    type: "idleTimeout",
    idleMs: 180_000,
  }, context());
  const watch = command(step, "watch");
  assert.equal(watch.query.get("resourceVersion"), "11");
  assert.equal(watch.reconnect, true);
  const [warning] = logs(step);
  assert.equal(warning.level, "warn");
  assert.match(warning.message, /no bytes for 180000 ms/);
});

Deno.test("listWatchTransition ignores inputs that do not fit the phase", () => {
  const watching = watchingAt("10");
  for (
    const input of [
      { type: "initialStreamDeadline", afterMs: 1 },
      { type: "backoffElapsed" },
      { type: "start" },
      page("99", []),
      { type: "listFailed", error: new Error("late") },
    ] as ListWatchInput[]
  ) {
    const step = listWatchTransition(watching, input, context());
    assert.equal(step.state, watching);
    assert.equal(step.command, undefined);
    assert.deepEqual(step.outputs, []);
  }
  const listing =
    listWatchTransition(initialListWatchState(), { type: "start" }, context())
      .state;
  for (
    const input of [
      { type: "watchOpened" },
      bookmark("3"),
      { type: "watchEnded" },
      { type: "idleTimeout", idleMs: 1 },
    ] as ListWatchInput[]
  ) {
    assert.equal(listWatchTransition(listing, input, context()).state, listing);
  }
});

// --- initialList: "stream" -------------------------------------------------

function streamStart(): ListWatchStep {
  return listWatchTransition(initialListWatchState({ initialList: "stream" }), {
    type: "start",
  }, context({ labelSelector: "app=web" }));
}

Deno.test("listWatchTransition streams the initial list with sendInitialEvents when asked to", () => {
  const step = streamStart();
  assert.equal(step.state.phase, "streamingInitial");
  const watch = command(step, "watch");
  assert.equal(watch.initialStream, true);
  assert.equal(watch.query.get("watch"), "1");
  assert.equal(watch.query.get("sendInitialEvents"), "true");
  assert.equal(watch.query.get("resourceVersionMatch"), "NotOlderThan");
  assert.equal(watch.query.get("allowWatchBookmarks"), "true");
  assert.equal(watch.query.get("labelSelector"), "app=web");
  assert.equal(watch.query.has("resourceVersion"), false);
  const seconds = Number(watch.query.get("timeoutSeconds"));
  assert.ok(seconds >= 300 && seconds <= 600);
});

Deno.test("listWatchTransition collects initial events until the end bookmark, then delivers them and keeps watching", () => {
  const steps = run(streamStart().state, [
    { type: "watchOpened" },
    event("ADDED", obj("a", "5")),
    event("ADDED", obj("b", "6")),
    bookmark("7"),
    event("ADDED", obj("c", "8")),
    event("DELETED", obj("b", "9")),
    bookmark("9", true),
    event("MODIFIED", obj("a", "10")),
  ]);
  for (const step of steps.slice(0, -2)) {
    assert.equal(step.command, undefined);
    assert.deepEqual(step.outputs, []);
    assert.equal(step.state.phase, "streamingInitial");
  }
  const end = steps.at(-2)!;
  assert.equal(end.command, undefined, "the same stream goes on");
  const [delivered] = completed(end);
  assert.deepEqual(delivered.objects.map((o) => o.metadata.name), ["a", "c"]);
  assert.equal(delivered.resourceVersion, "9");
  assert.equal(delivered.initial, true);
  assert.equal(end.state.phase, "watching");
  assert.equal(end.state.synced, true);

  const next = steps.at(-1)!;
  assert.equal(outputs(next, "event")[0].eventType, "MODIFIED");
  assert.equal(
    next.state.phase === "watching" && next.state.resourceVersion,
    "10",
  );

  // A clean end later resumes with an ordinary watch.
  const resumed = listWatchTransition(
    next.state,
    { type: "watchEnded" },
    context(),
  );
  const watch = command(resumed, "watch");
  assert.equal(watch.initialStream, false);
  assert.equal(watch.query.get("resourceVersion"), "10");
  assert.equal(watch.query.has("sendInitialEvents"), false);
});

Deno.test("listWatchTransition falls back to LIST for good when the server rejects streaming", () => {
  const rejected = listWatchTransition(streamStart().state, {
    type: "watchFailed",
    error: new ApiError({
      code: 422,
      status: {
        reason: "Invalid",
        message: "resourceVersionMatch is forbidden for watch",
      },
    }),
  }, context());
  const list = command(rejected, "list");
  assert.equal(list.query.get("limit"), "500");
  assert.equal(rejected.state.initialList, "list");
  const [info] = logs(rejected);
  assert.equal(info.level, "info");
  assert.match(info.message, /using LIST from now on/);

  // A later relist lists too.
  const relisted = run(rejected.state, [
    page("10", [obj("a")]),
    { type: "watchOpened" },
    event("ADDED", obj("b", "11")),
    event("ERROR", { kind: "Status", code: 410, reason: "Expired" }),
  ]).at(-1)!;
  command(relisted, "list");
  assert.equal(relisted.state.initialList, "list");
});

Deno.test("listWatchTransition falls back to LIST when the stream closes early or misses the deadline", () => {
  const opened =
    listWatchTransition(streamStart().state, { type: "watchOpened" }, context())
      .state;
  const withItems =
    listWatchTransition(opened, event("ADDED", obj("a", "5")), context()).state;
  for (
    const input of [
      { type: "watchEnded" },
      { type: "initialStreamDeadline", afterMs: 60_000 },
    ] as ListWatchInput[]
  ) {
    const step = listWatchTransition(withItems, input, context());
    command(step, "list");
    assert.equal(step.state.phase === "listing" && step.state.listed, 0);
    assert.equal(step.state.initialList, "list");
    assert.equal(logs(step)[0].level, "info");
  }
});

Deno.test("listWatchTransition retries the stream, without falling back, on transient and auth failures", () => {
  for (
    const error of [
      new ApiError({ code: 503 }),
      new ApiError({ code: 429, retryAfterSeconds: 2 }),
      new ApiError({ code: 403, status: { reason: "Forbidden" } }),
      new TypeError("connection reset"),
      new JsonLinesError("truncated", "{"),
    ]
  ) {
    const step = listWatchTransition(
      streamStart().state,
      { type: "watchFailed", error },
      context(),
    );
    command(step, "backoff");
    assert.equal(step.state.initialList, "stream");
    const again = listWatchTransition(
      step.state,
      { type: "backoffElapsed" },
      context(),
    );
    assert.equal(command(again, "watch").initialStream, true);
  }
});

Deno.test("listWatchTransition restarts the stream on an ERROR event or idle timeout during the initial events", () => {
  const opened =
    listWatchTransition(streamStart().state, { type: "watchOpened" }, context())
      .state;
  const error = listWatchTransition(
    opened,
    event("ERROR", { kind: "Status", code: 500 }),
    context(),
  );
  command(error, "backoff");
  const restarted = listWatchTransition(
    error.state,
    { type: "backoffElapsed" },
    context(),
  );
  assert.equal(command(restarted, "watch").initialStream, true);

  const idle = listWatchTransition(
    opened,
    { type: "idleTimeout", idleMs: 5 },
    context(),
  );
  assert.equal(command(idle, "watch").initialStream, true);
  assert.equal(idle.state.initialList, "stream");
});

Deno.test("listWatchTransition streams again on a relist while streaming works", () => {
  const watching = run(streamStart().state, [
    { type: "watchOpened" },
    event("ADDED", obj("a", "5")),
    bookmark("6", true),
    event("ADDED", obj("b", "7")),
  ]).at(-1)!.state;
  const relist = listWatchTransition(watching, {
    type: "watchFailed",
    error: new ApiError({ code: 410 }),
  }, context());
  const watch = command(relist, "watch");
  assert.equal(watch.initialStream, true);
  const [end] = run(relist.state, [bookmark("20", true)]);
  assert.equal(completed(end)[0].initial, false);
});

// --- relist on request, shardSelector -----------------------------------------

Deno.test("listWatchTransition lists again from the first page when a relist is asked for while watching", () => {
  const watching = watchingAt("10");
  const step = listWatchTransition(watching, { type: "relist" }, context());
  assert.equal(step.state.phase, "listing");
  assert.equal(step.state.synced, true);
  assert.equal(step.state.resourceVersion, watching.resourceVersion);
  const { query } = command(step, "list");
  assert.equal(query.has("continue"), false);
  assert.equal(query.has("resourceVersion"), false);
  assert.deepEqual(
    outputs(step, "note").map((o) => o.note),
    [{ kind: "relistRequested", phase: "watching" }],
  );
  assert.equal(logs(step)[0].level, "info");
  // The list that follows is a relist, not an initial one.
  const done = listWatchTransition(
    step.state,
    page("20", [obj("a")]),
    context(),
  );
  assert.deepEqual(
    completed(done).map((c) => c.initial),
    [false],
  );
});

Deno.test("listWatchTransition restarts a list under way, or the initial stream, when a relist is asked for", () => {
  const steps = run(initialListWatchState(), [
    { type: "start" },
    page("10", [obj("a")], "next"),
    { type: "relist" },
  ]);
  const restarted = steps[2];
  assert.equal(restarted.state.phase, "listing");
  assert.equal(restarted.state.synced, false);
  assert.equal(command(restarted, "list").query.has("continue"), false);
  assert.equal(
    restarted.state.phase === "listing" && restarted.state.listed,
    0,
  );

  const stream = streamStart();
  const collecting = listWatchTransition(
    stream.state,
    event("ADDED", obj("a")),
    context(),
  );
  const again = listWatchTransition(
    collecting.state,
    { type: "relist" },
    context(),
  );
  assert.equal(again.state.phase, "streamingInitial");
  assert.equal(
    again.state.phase === "streamingInitial" && again.state.items.size,
    0,
  );
  assert.equal(command(again, "watch").initialStream, true);
  // A streamed list says it was streamed: it tells nothing of a shard.
  const ended = run(again.state, [
    { type: "watchOpened" },
    event("ADDED", obj("b")),
    bookmark("30", true),
  ]).at(-1)!;
  assert.deepEqual(
    outputs(ended, "listed").map((l) => [l.streamed, l.shardSelector]),
    [[true, undefined]],
  );
});

Deno.test("listWatchTransition keeps a backoff's wait on a relist, then lists afresh; idle ignores it", () => {
  const watching = watchingAt("10");
  const failed = listWatchTransition(watching, {
    type: "watchFailed",
    error: new TypeError("connection reset"),
  }, context());
  assert.equal(failed.state.phase, "backingOff");
  const relist = listWatchTransition(
    failed.state,
    { type: "relist" },
    context(),
  );
  assert.equal(relist.command, undefined);
  assert.equal(relist.state.phase, "backingOff");
  const after = listWatchTransition(
    relist.state,
    { type: "backoffElapsed" },
    context(),
  );
  assert.equal(after.state.phase, "listing");
  command(after, "list");

  const idle = initialListWatchState();
  const step = listWatchTransition(idle, { type: "relist" }, context());
  assert.equal(step.state, idle);
  assert.equal(step.command, undefined);
});

Deno.test("listWatchTransition sends the context's shardSelector on LIST and WATCH, and reports the one the server applied", () => {
  const selector =
    "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')";
  const ctx = context({ shardSelector: selector });
  const start = listWatchTransition(initialListWatchState(), {
    type: "start",
  }, ctx);
  assert.equal(command(start, "list").query.get("shardSelector"), selector);
  const listed = listWatchTransition(start.state, {
    type: "listPage",
    list: {
      metadata: { resourceVersion: "5", shardInfo: { selector } },
      items: [],
    },
  }, ctx);
  assert.equal(outputs(listed, "listed")[0].shardSelector, selector);
  assert.equal(command(listed, "watch").query.get("shardSelector"), selector);
  // A server that ignored it answers no shardInfo; an empty selector is
  // not sent.
  const plain = run(initialListWatchState(), [
    { type: "start" },
    page("5", []),
  ], context({ shardSelector: "" }));
  assert.equal(command(plain[0], "list").query.has("shardSelector"), false);
  assert.equal(outputs(plain[1], "listed")[0].shardSelector, undefined);
});
