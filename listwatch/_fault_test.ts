import assert from "node:assert/strict";
import { classifyFault, errorEventError, relistReasonOf } from "./_fault.ts";
import { ApiError } from "../client/api_error.ts";
import { ResponseDecodeError } from "../client/errors.ts";
import { JsonLinesError } from "../client/json_lines.ts";

const PATH = "/api/v1/pods";

Deno.test("classifyFault names what each HTTP answer means for the loop", () => {
  const cases: [number, string][] = [
    [410, "expired"],
    [429, "throttled"],
    [401, "unauthorized"],
    [403, "unauthorized"],
    [400, "rejected"],
    [404, "rejected"],
    [405, "rejected"],
    [422, "rejected"],
    [408, "retryable"],
    [500, "retryable"],
    [503, "retryable"],
    [504, "retryable"],
  ];
  for (const [code, kind] of cases) {
    const fault = classifyFault(new ApiError({ code }));
    assert.equal(fault.kind, kind, `code ${code}`);
    assert.equal(fault.code, code);
  }
});

Deno.test("classifyFault recognises a too large resourceVersion by its cause or its message", () => {
  const byCause = new ApiError({
    code: 504,
    status: {
      reason: "Timeout",
      message: "request timed out",
      details: { causes: [{ reason: "ResourceVersionTooLarge" }] },
    },
  });
  assert.equal(classifyFault(byCause).kind, "tooLarge");
  const byMessage = new ApiError({
    code: 500,
    status: { message: "Too large resource version: 20, current: 12" },
  });
  assert.equal(classifyFault(byMessage).kind, "tooLarge");
  // A plain 504 Timeout is only retryable.
  const timeout = new ApiError({ code: 504, status: { reason: "Timeout" } });
  assert.equal(classifyFault(timeout).kind, "retryable");
});

Deno.test("classifyFault passes Retry-After on in milliseconds", () => {
  const fault = classifyFault(
    new ApiError({ code: 503, retryAfterSeconds: 3 }),
  );
  assert.deepEqual(fault, {
    kind: "retryable",
    code: 503,
    reason: undefined,
    retryAfterMs: 3_000,
  });
  assert.equal(
    classifyFault(new ApiError({ code: 500 })).retryAfterMs,
    undefined,
  );
});

Deno.test("classifyFault reads @cloudydeno/kubernetes-client errors and plain ones", () => {
  const foreign = Object.assign(new Error("Kubernetes returned HTTP 410"), {
    httpCode: 410,
    status: { kind: "Status", code: 410, reason: "Expired" },
  });
  assert.deepEqual(classifyFault(foreign), {
    kind: "expired",
    code: 410,
    reason: "Expired",
    retryAfterMs: undefined,
  });
  assert.equal(
    classifyFault(new TypeError("connection reset")).kind,
    "retryable",
  );
  assert.equal(classifyFault("a string").kind, "retryable");
  assert.equal(
    classifyFault(new JsonLinesError("truncated", '{"type"')).kind,
    "undecodable",
  );
  // A 2xx answer whose body is not JSON carries no failing status.
  const decode = new ResponseDecodeError({
    code: 200,
    contentType: "text/html",
    preview: "<html>",
    method: "GET",
    path: PATH,
  });
  assert.equal(classifyFault(decode).code, undefined);
  assert.equal(classifyFault(decode).kind, "retryable");
});

Deno.test("errorEventError turns an ERROR event into an ApiError classified like a request", () => {
  const gone = errorEventError(
    { kind: "Status", code: 410, reason: "Expired", message: "too old" },
    PATH,
  );
  assert.ok(gone instanceof ApiError);
  assert.equal(gone.code, 410);
  assert.equal(gone.reason, "Expired");
  assert.equal(
    gone.message,
    `Watch of ${PATH} sent an ERROR event: 410 Expired too old`,
  );
  assert.equal(classifyFault(gone).kind, "expired");

  const throttled = errorEventError({
    kind: "Status",
    code: 429,
    details: { retryAfterSeconds: 7 },
  }, PATH);
  assert.equal(classifyFault(throttled).kind, "throttled");
  assert.equal(classifyFault(throttled).retryAfterMs, 7_000);

  for (const object of [{ kind: "Status" }, "not a status", null]) {
    const unknown = errorEventError(object, PATH);
    assert.equal(unknown.code, 0, "0 stands for no code");
    assert.match(unknown.message, /ERROR event: unknown code/);
    assert.equal(classifyFault(unknown).kind, "retryable");
  }
});

Deno.test("relistReasonOf: the loop relists on an expired history and a too large resourceVersion, and backs off on the rest", () => {
  const reasons = [410, 504, 429, 403, 400, 500, undefined].map((code) =>
    relistReasonOf(classifyFault(
      code === 504
        ? new ApiError({
          code,
          status: {
            reason: "Timeout",
            details: { causes: [{ reason: "ResourceVersionTooLarge" }] },
          },
        })
        : code === undefined
        ? new TypeError("connection reset")
        : new ApiError({ code }),
    ))
  );
  assert.deepEqual(reasons, [
    "gone",
    "too_large",
    undefined,
    undefined,
    undefined,
    undefined,
    undefined,
  ]);
});
