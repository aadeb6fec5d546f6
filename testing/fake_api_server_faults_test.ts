import assert from "node:assert/strict";
import { FakeApiServer } from "./fake_api_server.ts";
import { FakeClock, settle } from "./fake_clock.ts";
import { summary, WatchReader } from "./_watch_reader_test.ts";

function req(
  server: FakeApiServer,
  path: string,
  init?: RequestInit,
): Promise<Response> {
  return server.handle(new Request(`${server.url}${path}`, init));
}

Deno.test("fault: status answers for the next N matching requests, with Retry-After", async () => {
  using server = new FakeApiServer();
  const fault = server.injectFault({
    verb: "list",
    kind: "status",
    code: 503,
    retryAfterSeconds: 3,
    times: 2,
  });
  assert.ok(fault.active);
  for (let i = 0; i < 2; i++) {
    const res = await req(server, "/api/v1/pods");
    assert.equal(res.status, 503);
    assert.equal(res.headers.get("retry-after"), "3");
    const status = await res.json();
    assert.equal(status.kind, "Status");
    assert.equal(status.reason, "ServiceUnavailable");
    assert.equal(status.code, 503);
    assert.deepEqual(status.details, { retryAfterSeconds: 3 });
  }
  // A GET is not a list: untouched even while armed.
  assert.equal(fault.hits, 2);
  assert.equal(fault.active, false);
  const ok = await req(server, "/api/v1/pods");
  assert.equal(ok.status, 200);
  await ok.body?.cancel();
});

Deno.test("fault: matches by verb and resource, first injected first", async () => {
  using server = new FakeApiServer();
  server.create("configmaps", { metadata: { name: "a" } });
  server.injectFault({
    verb: "get",
    resource: "configmaps",
    kind: "status",
    code: 500,
  });
  server.injectFault({ verb: "any", kind: "status", code: 429 });
  const pods = await req(server, "/api/v1/pods");
  assert.equal(pods.status, 429);
  assert.equal((await pods.json()).reason, "TooManyRequests");
  const get = await req(server, "/api/v1/namespaces/default/configmaps/a");
  assert.equal(get.status, 500);
  assert.equal((await get.json()).reason, "InternalError");
  const again = await req(server, "/api/v1/namespaces/default/configmaps/a");
  assert.equal(again.status, 200);
  await again.body?.cancel();
});

Deno.test("fault: namespace narrows it; times: Infinity keeps it until cancelled", async () => {
  using server = new FakeApiServer();
  const forbidden = server.injectFault({
    namespace: "b",
    kind: "status",
    code: 403,
    times: Infinity,
  });
  for (let i = 0; i < 3; i++) {
    const res = await req(server, "/api/v1/namespaces/b/configmaps?watch=1");
    assert.equal(res.status, 403);
    assert.equal((await res.json()).reason, "Forbidden");
  }
  const other = await req(server, "/api/v1/namespaces/a/configmaps");
  assert.equal(other.status, 200);
  await other.body?.cancel();
  assert.equal(forbidden.hits, 3);
  forbidden.cancel();
  const after = await req(server, "/api/v1/namespaces/b/configmaps");
  assert.equal(after.status, 200);
  await after.body?.cancel();
});

Deno.test("fault: forMs keeps answering until the server clock passes it", async () => {
  const clock = new FakeClock();
  using server = new FakeApiServer({ clock });
  const fault = server.injectFault({
    verb: "watch",
    kind: "status",
    code: 500,
    forMs: 1_000,
  });
  for (let i = 0; i < 3; i++) {
    const res = await req(server, "/api/v1/pods?watch=1");
    assert.equal(res.status, 500);
    await res.body?.cancel();
  }
  await clock.tick(1_000);
  assert.equal(fault.active, false);
  const res = await req(server, "/api/v1/pods?watch=1");
  assert.equal(res.status, 200);
  await res.body?.cancel();
  assert.equal(fault.hits, 3);
});

Deno.test("fault: cancel and clearFaults disarm", async () => {
  using server = new FakeApiServer();
  const a = server.injectFault({ kind: "status", code: 500 });
  a.cancel();
  server.injectFault({ kind: "status", code: 500, times: 5 });
  server.clearFaults();
  const res = await req(server, "/api/v1/pods");
  assert.equal(res.status, 200);
  await res.body?.cancel();
  assert.equal(a.hits, 0);
});

Deno.test("fault: drop closes a watch cleanly after N events", async () => {
  using server = new FakeApiServer();
  for (const name of ["a", "b", "c"]) {
    server.create("configmaps", { metadata: { name } });
  }
  server.injectFault({ verb: "watch", kind: "drop", afterEvents: 2 });
  const w = new WatchReader(await req(server, "/api/v1/configmaps?watch=1"));
  assert.deepEqual(summary(await w.drain()), ["ADDED a", "ADDED b"]);
  assert.ok(w.ended && !w.error);
  assert.equal(server.openWatchCount, 0);

  // The next watch is healthy again and counts live events too.
  server.injectFault({ verb: "watch", kind: "drop", afterEvents: 1 });
  const live = new WatchReader(
    await req(server, "/api/v1/configmaps?watch=1&resourceVersion=3"),
  );
  server.create("configmaps", { metadata: { name: "d" } });
  server.create("configmaps", { metadata: { name: "e" } });
  assert.deepEqual(summary(await live.drain()), ["ADDED d"]);
});

Deno.test("fault: drop with no afterEvents closes a watch before any event", async () => {
  using server = new FakeApiServer();
  server.create("configmaps", { metadata: { name: "a" } });
  server.injectFault({ verb: "watch", kind: "drop" });
  const initial = new WatchReader(
    await req(server, "/api/v1/configmaps?watch=1"),
  );
  assert.deepEqual(summary(await initial.drain()), []);
  assert.ok(initial.ended && !initial.error);

  server.injectFault({ verb: "watch", kind: "drop", afterEvents: 0 });
  const live = new WatchReader(
    await req(server, "/api/v1/configmaps?watch=1&resourceVersion=1"),
  );
  assert.equal(server.openWatchCount, 0);
  server.create("configmaps", { metadata: { name: "b" } });
  assert.deepEqual(summary(await live.drain()), []);
  assert.ok(live.ended && !live.error);
});

Deno.test("fault: truncate sends half a line, then ends the watch", async () => {
  using server = new FakeApiServer();
  server.create("configmaps", { metadata: { name: "a" } });
  server.injectFault({ verb: "watch", kind: "truncate", afterEvents: 1 });
  const w = new WatchReader(await req(server, "/api/v1/configmaps?watch=1"));
  assert.deepEqual(summary(await w.drain()), ["ADDED a"]);
  assert.ok(w.partial.length > 0, "a partial line arrived");
  assert.ok(!w.partial.includes("\n"));
  assert.throws(() => JSON.parse(w.partial), SyntaxError);

  server.injectFault({ verb: "watch", kind: "truncate" });
  const w0 = new WatchReader(await req(server, "/api/v1/configmaps?watch=1"));
  assert.deepEqual(await w0.drain(), []);
  assert.ok(w0.partial.startsWith('{"type":'));
});

Deno.test("fault: truncate and drop on a list break its body", async () => {
  using server = new FakeApiServer();
  server.create("configmaps", { metadata: { name: "a" } });
  server.injectFault({ verb: "list", kind: "truncate" });
  const truncated = await req(server, "/api/v1/configmaps");
  assert.equal(truncated.status, 200);
  const text = await truncated.text();
  assert.ok(text.startsWith('{"kind":"ConfigMapList"'));
  assert.throws(() => JSON.parse(text), SyntaxError);

  server.injectFault({ verb: "get", kind: "drop" });
  const dropped = await req(server, "/api/v1/namespaces/default/configmaps/a");
  await assert.rejects(dropped.text(), /Connection reset/);
});

Deno.test("fault: stall sends headers, then nothing until the client aborts", async () => {
  const clock = new FakeClock();
  using server = new FakeApiServer({ clock });
  server.injectFault({ verb: "list", kind: "stall" });
  const controller = new AbortController();
  const res = await req(server, "/api/v1/pods", { signal: controller.signal });
  assert.equal(res.status, 200);
  const reader = res.body!.getReader();
  let settled = false;
  const read = reader.read().finally(() => settled = true);
  await clock.tick(60_000);
  await settle();
  assert.equal(settled, false, "nothing arrives");
  controller.abort();
  await assert.rejects(
    read,
    (err: unknown) => err instanceof DOMException && err.name === "AbortError",
  );
});

Deno.test("fault: a stalled watch ends when the server closes", async () => {
  const server = new FakeApiServer();
  server.injectFault({ verb: "watch", kind: "stall" });
  const w = new WatchReader(await req(server, "/api/v1/pods?watch=1"));
  server.create("pods", { metadata: { name: "ignored" } });
  assert.deepEqual(await w.available(), []);
  await server.close();
  assert.deepEqual(await w.drain(), []);
  assert.ok(w.ended && !w.error);
});

Deno.test("fault: invalid faults are rejected with the reason", () => {
  using server = new FakeApiServer();
  const bad: [unknown, RegExp][] = [
    [{ kind: "status", code: 200 }, /code must be an HTTP error code/],
    [{ kind: "explode" }, /unknown kind "explode"/],
    [{ kind: "drop", afterEvents: -1 }, /afterEvents/],
    [{ kind: "stall", verb: "fetch" }, /unknown verb "fetch"/],
    [{ kind: "stall", times: 0 }, /times must be a positive integer/],
    [{ kind: "stall", forMs: -5 }, /forMs/],
  ];
  for (const [fault, message] of bad) {
    assert.throws(() => server.injectFault(fault as never), message);
  }
  assert.throws(
    () => server.injectFault({ kind: "stall", resource: "widgets" }),
    /Unknown resource "widgets"/,
  );
});

Deno.test("compactHistory makes older watches expire while closeAllWatches resumes cleanly", async () => {
  using server = new FakeApiServer();
  server.create("configmaps", { metadata: { name: "a" } });
  const w = new WatchReader(
    await req(server, "/api/v1/configmaps?watch=1&resourceVersion=1"),
  );
  server.create("configmaps", { metadata: { name: "b" } });
  server.closeAllWatches();
  assert.deepEqual(summary(await w.drain()), ["ADDED b"]);
  server.compactHistory();
  const resumed = new WatchReader(
    await req(server, "/api/v1/configmaps?watch=1&resourceVersion=1"),
  );
  assert.deepEqual(summary(await resumed.drain()), ["ERROR 410"]);
  const current = new WatchReader(
    await req(server, "/api/v1/configmaps?watch=1&resourceVersion=2"),
  );
  assert.deepEqual(await current.available(), []);
  await current.cancel();
});
