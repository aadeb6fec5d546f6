import assert from "node:assert/strict";
import { FakeApiServer } from "./fake_api_server.ts";
import { FakeClock } from "./fake_clock.ts";
import { mockFetch } from "./mock_fetch.ts";
import { summary, WatchReader } from "./_watch_reader_test.ts";

Deno.test("mockFetch answers the server's URL and restores fetch on dispose", async () => {
  const original = globalThis.fetch;
  using server = new FakeApiServer();
  {
    using _mock = mockFetch(server);
    assert.notEqual(globalThis.fetch, original);
    const created = await fetch(
      `${server.url}/api/v1/namespaces/default/configmaps`,
      {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ metadata: { name: "a" }, data: { k: "v" } }),
      },
    );
    assert.equal(created.status, 201);
    await created.body?.cancel();
    const res = await fetch(new URL("/api/v1/configmaps", server.url));
    const list = await res.json();
    assert.deepEqual(
      list.items.map((i: { metadata: { name: string } }) => i.metadata.name),
      ["a"],
    );
    assert.equal(server.requests.length, 2);
  }
  assert.equal(globalThis.fetch, original);
});

Deno.test("mockFetch rejects requests to other origins with a clear error", async () => {
  using server = new FakeApiServer();
  using _mock = mockFetch(server);
  await assert.rejects(
    fetch("http://elsewhere.example/api"),
    (err: unknown) =>
      err instanceof TypeError &&
      err.message.includes("http://elsewhere.example/api") &&
      err.message.includes("http://k8s.fake"),
  );
});

Deno.test("mockFetch serves several servers and refuses to mock one URL twice", async () => {
  const original = globalThis.fetch;
  using a = new FakeApiServer({ url: "http://a.fake" });
  using b = new FakeApiServer({ url: "https://b.fake:6443/" });
  a.create("pods", { metadata: { name: "from-a" } });
  b.create("pods", { metadata: { name: "from-b" } });
  const mockA = mockFetch(a);
  const mockB = mockFetch(b);
  assert.throws(() => mockFetch(a), /already answering http:\/\/a\.fake/);
  const names = async (url: string) =>
    (await (await fetch(`${url}/api/v1/pods`)).json()).items.map((
      p: { metadata: { name: string } },
    ) => p.metadata.name);
  assert.deepEqual(await names("http://a.fake"), ["from-a"]);
  assert.deepEqual(await names("https://b.fake:6443"), ["from-b"]);
  mockA[Symbol.dispose]();
  assert.notEqual(globalThis.fetch, original, "still mocked for b");
  await assert.rejects(fetch("http://a.fake/api/v1/pods"), TypeError);
  mockB[Symbol.dispose]();
  mockB[Symbol.dispose]();
  assert.equal(globalThis.fetch, original);
});

Deno.test("mockFetch honours an already aborted signal", async () => {
  using server = new FakeApiServer();
  using _mock = mockFetch(server);
  const controller = new AbortController();
  controller.abort();
  await assert.rejects(
    fetch(`${server.url}/api/v1/pods?watch=1`, { signal: controller.signal }),
    (err: unknown) => err instanceof DOMException && err.name === "AbortError",
  );
  assert.equal(server.openWatchCount, 0);
});

Deno.test("mockFetch: aborting a watch errors its body and ends it on the server", async () => {
  const clock = new FakeClock();
  using server = new FakeApiServer({ clock });
  using _mock = mockFetch(server);
  const controller = new AbortController();
  const res = await fetch(
    `${server.url}/api/v1/pods?watch=1&allowWatchBookmarks=true`,
    {
      signal: controller.signal,
    },
  );
  const w = new WatchReader(res);
  server.create("pods", { metadata: { name: "p" } });
  // A WatchList-era server ends the (empty) initial events with a bookmark.
  assert.deepEqual(summary(await w.take(2)), ["BOOKMARK 0", "ADDED p"]);
  assert.equal(server.openWatchCount, 1);
  controller.abort(new DOMException("stop", "AbortError"));
  await w.available();
  assert.ok(w.error instanceof DOMException && w.error.name === "AbortError");
  assert.equal(server.openWatchCount, 0);
  assert.equal(clock.pendingTimers, 0);
});
