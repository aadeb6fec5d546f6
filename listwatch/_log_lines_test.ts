import assert from "node:assert/strict";
import {
  acceptRefusedLine,
  backoffLine,
  noteLine,
  sinkFailedLine,
} from "./_log_lines.ts";
import type { Fault, ListWatchNote } from "./list_watch_types.ts";
import { ApiError } from "../client/api_error.ts";

const PATH = "/apis/example.com/v1/widgets";

function failed(code: number | undefined, error: unknown): ListWatchNote {
  const fault: Fault = {
    kind: code === 404 ? "rejected" : "retryable",
    code,
    reason: code === 404 ? "NotFound" : undefined,
    retryAfterMs: undefined,
  };
  return {
    kind: "requestFailed",
    request: "list",
    fault,
    error,
    url: `${PATH}?limit=500`,
    resourceVersion: undefined,
  };
}

Deno.test("noteLine logs failures a human must fix at error level with a hint, others at warn", () => {
  const missing = noteLine(
    failed(404, new ApiError({ code: 404, status: { reason: "NotFound" } })),
    PATH,
  );
  assert.equal(missing.level, "error");
  assert.equal(
    missing.message,
    `List of ${PATH}?limit=500 failed with 404 NotFound: CRD not installed, namespace missing, or a typo in the group/version/resource?`,
  );
  assert.equal(missing.fields.url, `${PATH}?limit=500`);
  assert.match(String(missing.fields.hint), /CRD not installed/);

  const refused = noteLine(
    failed(undefined, new TypeError("Connection refused")),
    PATH,
  );
  assert.equal(refused.level, "warn");
  assert.equal(
    refused.message,
    `List of ${PATH}?limit=500 failed: Connection refused`,
  );
  assert.equal("hint" in refused.fields, false);
});

Deno.test("backoffLine says when the loop retries", () => {
  const line = backoffLine(
    { kind: "closedAtOnce", afterMs: 12, resourceVersion: "7" },
    PATH,
    1_600,
  );
  assert.equal(line.level, "warn");
  assert.equal(
    line.message,
    `Watch of ${PATH} closed after 12 ms without any event; re-watching from resourceVersion 7 (retrying in 1600 ms)`,
  );
  assert.equal(line.fields.retryInMs, 1_600);
  assert.equal(line.fields.resourceVersion, "7");
});

Deno.test("noteLine does not repeat what an ERROR event's error already says", () => {
  const error = new ApiError({
    code: 500,
    message: `Watch of ${PATH} sent an ERROR event: 500 etcd unavailable`,
  });
  const line = noteLine({
    kind: "requestFailed",
    request: "watch",
    fault: {
      kind: "retryable",
      code: 500,
      reason: undefined,
      retryAfterMs: undefined,
    },
    error,
    url: undefined,
    resourceVersion: "11",
  }, PATH);
  assert.equal(
    line.message,
    `Watch of ${PATH} sent an ERROR event: 500 etcd unavailable; re-watching from resourceVersion 11`,
  );
});

Deno.test("sinkFailedLine names the consumer method and the collection", () => {
  const line = sinkFailedLine("onEvent", PATH, new Error("boom"));
  assert.equal(line.level, "error");
  assert.equal(line.message, `ListWatch sink onEvent failed for ${PATH}: boom`);
});

Deno.test("acceptRefusedLine warns that full objects are asked for, naming the collection", () => {
  const { level, message, fields } = acceptRefusedLine(
    PATH,
    new Error("cannot include arbitrary Accept header"),
  );
  assert.equal(level, "warn");
  assert.match(message, /asking for full objects instead/);
  assert.equal(fields.path, PATH);
  assert.equal(fields.error, "cannot include arbitrary Accept header");
});

Deno.test("noteLine words a relist of a class without wording of its own by its code and reason", () => {
  // A failure class added to the fault table with `relist`, and nothing else:
  // its relist is still logged, naming what the server answered.
  const relist = noteLine({
    kind: "relist",
    fault: {
      kind: "retryable",
      code: 500,
      reason: "InternalError",
      retryAfterMs: undefined,
    },
    resourceVersion: "7",
    paused: false,
  }, PATH);
  assert.equal(relist.level, "warn");
  assert.equal(
    relist.message,
    `Watch of ${PATH} at resourceVersion 7 failed with 500 InternalError; relisting`,
  );
  assert.equal(relist.fields.resourceVersion, "7");
});
