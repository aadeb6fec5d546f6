import assert from "node:assert/strict";
import { ApiError } from "../client/api_error.ts";
import { errorJson, failureRecord } from "./_loop_stats.ts";

Deno.test("a failure record holds the error as thrown and compares as its two fields", () => {
  const error = new ApiError({ code: 503, method: "GET", path: "/x" });
  const record = failureRecord(error, 42);
  assert.equal(record.error, error);
  assert.deepEqual(record, { error, time: 42 });
  assert.deepEqual({ ...record }, { error, time: 42 });
  assert.deepEqual(JSON.parse(JSON.stringify(record)), {
    error: {
      name: "ApiError",
      message: error.message,
      code: 503,
      method: "GET",
      path: "/x",
    },
    time: 42,
  });
});

Deno.test("errorJson follows causes, and errors among the fields", () => {
  const root = new Error("connection refused");
  const fetchFailed = new TypeError("fetch failed", { cause: root });
  const wrapped = Object.assign(
    new Error("cannot reach the server", { cause: fetchFailed }),
    { name: "ReachError", attempt: 2, last: new RangeError("too far") },
  );
  assert.deepEqual(JSON.parse(JSON.stringify(errorJson(wrapped))), {
    name: "ReachError",
    message: "cannot reach the server",
    attempt: 2,
    last: { name: "RangeError", message: "too far" },
    cause: {
      name: "TypeError",
      message: "fetch failed",
      cause: { name: "Error", message: "connection refused" },
    },
  });
});

Deno.test("errorJson leaves what is not an Error to JSON, and ends a looping cause chain", () => {
  assert.equal(errorJson("timeout"), "timeout");
  assert.deepEqual(errorJson({ code: 7 }), { code: 7 });
  assert.deepEqual(errorJson(new Error("why", { cause: "a string" })), {
    name: "Error",
    message: "why",
    cause: "a string",
  });
  const a = new Error("a");
  const b = new Error("b", { cause: a });
  a.cause = b;
  assert.equal(
    JSON.stringify(errorJson(a)),
    '{"name":"Error","message":"a","cause":{"name":"Error","message":"b"}}',
  );
  const aborted = new DOMException("The signal has been aborted", "AbortError");
  assert.deepEqual(errorJson(aborted), {
    name: "AbortError",
    message: "The signal has been aborted",
  });
});

Deno.test("errorJson stops a chain of causes eight deep", () => {
  let error = new Error("0");
  for (let i = 1; i <= 20; i++) error = new Error(String(i), { cause: error });
  let depth = 0;
  let json = errorJson(error) as { cause?: unknown } | undefined;
  while (json?.cause !== undefined) {
    depth++;
    json = json.cause as { cause?: unknown };
  }
  assert.equal(depth, 8);
});
