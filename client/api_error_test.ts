import assert from "node:assert/strict";
import { ApiError, httpStatusOf } from "./api_error.ts";
import { ApiConnectionError, ResponseDecodeError } from "./errors.ts";
import { parseRetryAfter } from "./_retry_after.ts";

Deno.test("httpStatusOf() reads our ApiError", () => {
  const error = new ApiError({
    code: 410,
    status: { kind: "Status", reason: "Expired", code: 410 },
    method: "GET",
    path: "/api/v1/pods",
  });
  assert.deepEqual(httpStatusOf(error), { code: 410, reason: "Expired" });
  assert.deepEqual(
    httpStatusOf(new ApiError({ code: 503, retryAfterSeconds: 0 })),
    { code: 503, retryAfterSeconds: 0 },
  );
});

Deno.test("httpStatusOf() reads @cloudydeno/kubernetes-client's error shape", () => {
  // KubeConfigRestClient throws an Error with httpCode and the parsed Status.
  const error = Object.assign(
    new Error("Kubernetes returned HTTP 403 Forbidden: pods is forbidden"),
    {
      httpCode: 403,
      status: {
        kind: "Status",
        apiVersion: "v1",
        status: "Failure",
        reason: "Forbidden",
        code: 403,
      },
    },
  );
  assert.deepEqual(httpStatusOf(error), { code: 403, reason: "Forbidden" });
  // Their Status for a 429 carries the delay in details.
  const throttled = Object.assign(new Error("HTTP 429"), {
    httpCode: 429,
    status: { reason: "TooManyRequests", details: { retryAfterSeconds: 4 } },
  });
  assert.deepEqual(httpStatusOf(throttled), {
    code: 429,
    reason: "TooManyRequests",
    retryAfterSeconds: 4,
  });
});

Deno.test("httpStatusOf() reads a Status object from an ERROR watch event", () => {
  assert.deepEqual(
    httpStatusOf({
      kind: "Status",
      apiVersion: "v1",
      status: "Failure",
      message: "too old resource version",
      reason: "Expired",
      code: 410,
    }),
    { code: 410, reason: "Expired" },
  );
});

Deno.test("httpStatusOf() reads other clients' code, body and headers", () => {
  // The shape of @kubernetes/client-node's ApiException.
  const nodeStyle = Object.assign(new Error("HTTP-Code: 404"), {
    code: 404,
    body: '{"kind":"Status","reason":"NotFound","code":404}',
    headers: { "retry-after": "2" },
  });
  assert.deepEqual(httpStatusOf(nodeStyle), {
    code: 404,
    reason: "NotFound",
    retryAfterSeconds: 2,
  });
  assert.deepEqual(
    httpStatusOf({
      statusCode: 500,
      headers: new Headers({ "Retry-After": "9" }),
    }),
    { code: 500, retryAfterSeconds: 9 },
  );
  assert.deepEqual(httpStatusOf({ status: 502 }), { code: 502 });
});

Deno.test("httpStatusOf() follows the cause chain", () => {
  const wrapped = new Error("list failed", {
    cause: new Error("request failed", { cause: new ApiError({ code: 401 }) }),
  });
  assert.deepEqual(httpStatusOf(wrapped), { code: 401 });
});

Deno.test("httpStatusOf() gives nothing for errors without an HTTP status", () => {
  const system = Object.assign(new Error("connect ECONNREFUSED"), {
    code: "ECONNREFUSED",
  });
  const cases: unknown[] = [
    undefined,
    null,
    "oops",
    42,
    new TypeError("fetch failed"),
    new DOMException("aborted", "AbortError"),
    system,
    { code: 7 },
    new ApiConnectionError({
      server: "https://x",
      method: "GET",
      path: "/",
      detail: "refused",
    }),
    new ResponseDecodeError({
      code: 200,
      preview: "<html>",
      method: "GET",
      path: "/api/v1/pods",
    }),
  ];
  for (const error of cases) {
    assert.deepEqual(httpStatusOf(error), {}, String(error));
  }
});

Deno.test("parseRetryAfter() reads seconds and IMF dates only", () => {
  const now = Date.parse("Wed, 21 Oct 2015 07:28:00 GMT");
  assert.equal(parseRetryAfter("120", now), 120);
  assert.equal(parseRetryAfter(" 0 ", now), 0);
  assert.equal(parseRetryAfter("Wed, 21 Oct 2015 07:28:30 GMT", now), 30);
  assert.equal(parseRetryAfter("Wed, 21 Oct 2015 07:00:00 GMT", now), 0);
  assert.equal(parseRetryAfter("1.5", now), undefined);
  assert.equal(parseRetryAfter("-3", now), undefined);
  assert.equal(parseRetryAfter("soon", now), undefined);
});
