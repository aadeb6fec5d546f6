import assert from "node:assert/strict";
import { FakeApiServer } from "./fake_api_server.ts";
import { FakeClock } from "./fake_clock.ts";
import type { Reactor, ReactorCall } from "./reactor.ts";
import { summary, WatchReader } from "./_watch_reader_test.ts";

function req(
  server: FakeApiServer,
  path: string,
  init?: RequestInit,
): Promise<Response> {
  return server.handle(new Request(`${server.url}${path}`, init));
}

/** A reactor answering `code` to whatever it sees. */
function answer(code: number, match: Omit<Reactor, "react"> = {}): Reactor {
  return { ...match, react: () => new Response(null, { status: code }) };
}

async function status(server: FakeApiServer, path: string): Promise<number> {
  const res = await req(server, path);
  await res.body?.cancel();
  return res.status;
}

Deno.test("reactor: the first that answers is the only one; prepended ones come first", async () => {
  using server = new FakeApiServer();
  const later = server.addReactor(answer(500));
  const earlier = server.prependReactor(answer(503));
  assert.equal(await status(server, "/api/v1/pods"), 503);
  assert.equal(earlier.hits, 1);
  assert.equal(later.hits, 0);
  earlier.cancel();
  assert.equal(await status(server, "/api/v1/pods"), 500);
  later.cancel();
  assert.equal(await status(server, "/api/v1/pods"), 200);
});

Deno.test("reactor: a pass goes on to the next reactor and the server, and is not a hit", async () => {
  using server = new FakeApiServer();
  const seen: ReactorCall[] = [];
  const passing = server.addReactor({
    react: (call) => {
      seen.push(call);
      return undefined;
    },
  });
  server.addReactor(answer(418, { verb: "get", times: 1 }));
  server.create("configmaps", { metadata: { name: "a", namespace: "shop" } });
  assert.equal(await status(server, "/api/v1/namespaces/shop/configmaps"), 200);
  assert.equal(
    await status(server, "/api/v1/namespaces/shop/configmaps/a"),
    418,
  );
  assert.equal(passing.hits, 0);
  assert.equal(passing.active, true);
  assert.deepEqual(
    seen.map((c) => [c.verb, c.resource?.kind, c.namespace, c.name]),
    [["list", "ConfigMap", "shop", undefined], [
      "get",
      "ConfigMap",
      "shop",
      "a",
    ]],
  );
  assert.equal(
    seen[1].url.pathname,
    "/api/v1/namespaces/shop/configmaps/a",
  );
});

Deno.test("reactor: matches by verb (one or several), resource, namespace and name", async () => {
  using server = new FakeApiServer();
  server.create("configmaps", { metadata: { name: "a", namespace: "shop" } });
  server.create("configmaps", { metadata: { name: "b", namespace: "shop" } });
  server.create("pods", { metadata: { name: "b", namespace: "shop" } });
  server.addReactor(answer(403, { namespace: "locked" }));
  server.addReactor(answer(404, { resource: "cm", name: "b" }));
  server.addReactor(answer(409, { verb: ["create", "delete"] }));
  assert.equal(await status(server, "/api/v1/namespaces/locked/pods"), 403);
  assert.equal(
    await status(server, "/api/v1/namespaces/locked/configmaps/x"),
    403,
  );
  assert.equal(await status(server, "/api/v1/namespaces/shop/pods"), 200);
  assert.equal(await status(server, "/api/v1/pods"), 200, "no namespace");
  assert.equal(
    await status(server, "/api/v1/namespaces/shop/configmaps/b"),
    404,
  );
  assert.equal(
    await status(server, "/api/v1/namespaces/shop/configmaps/a"),
    200,
  );
  assert.equal(await status(server, "/api/v1/namespaces/shop/pods/b"), 200);
  const del = await req(server, "/api/v1/namespaces/shop/configmaps/a", {
    method: "DELETE",
  });
  await del.body?.cancel();
  assert.equal(del.status, 409);
  assert.equal(server.list("configmaps").length, 2, "nothing was deleted");
});

Deno.test("reactor: times and forMs disarm it, on the server clock", async () => {
  const clock = new FakeClock();
  using server = new FakeApiServer({ clock });
  const twice = server.addReactor(answer(500, { verb: "list", times: 2 }));
  const aSecond = server.addReactor(answer(503, { verb: "get", forMs: 1_000 }));
  server.create("pods", { metadata: { name: "p", namespace: "default" } });
  for (let i = 0; i < 3; i++) {
    assert.equal(await status(server, "/api/v1/pods"), i < 2 ? 500 : 200);
    assert.equal(
      await status(server, "/api/v1/namespaces/default/pods/p"),
      503,
    );
  }
  assert.deepEqual([twice.hits, twice.active], [2, false]);
  await clock.tick(1_000);
  assert.equal(aSecond.active, false);
  assert.equal(await status(server, "/api/v1/namespaces/default/pods/p"), 200);
  assert.equal(aSecond.hits, 3);
});

Deno.test("reactor: serve() wraps the server's own answer, which no later reactor sees", async () => {
  using server = new FakeApiServer();
  server.create("configmaps", { metadata: { name: "a", namespace: "shop" } });
  const after = server.addReactor(answer(500, { verb: "list" }));
  server.prependReactor({
    verb: "list",
    react: async (call) => {
      const list = await (await call.serve()).json();
      list.items.push({ metadata: { name: "extra" } });
      return Response.json(list);
    },
  });
  const res = await req(server, "/api/v1/configmaps");
  assert.deepEqual(
    (await res.json()).items.map((o: { metadata: { name: string } }) =>
      o.metadata.name
    ),
    ["a", "extra"],
  );
  assert.equal(after.hits, 0);
});

Deno.test("reactor: a watch tap rewrites this watch's lines only", async () => {
  using server = new FakeApiServer();
  server.addReactor({
    verb: "watch",
    times: 1,
    react: (call) =>
      call.serve({
        watch: {
          line: (text) => text.replace('"name":"a"', '"name":"renamed"'),
        },
      }),
  });
  const tapped = new WatchReader(
    await req(server, "/api/v1/configmaps?watch=1"),
  );
  const plain = new WatchReader(
    await req(server, "/api/v1/configmaps?watch=1"),
  );
  server.create("configmaps", { metadata: { name: "a", namespace: "shop" } });
  assert.deepEqual(summary(await tapped.available()), ["ADDED renamed"]);
  assert.deepEqual(summary(await plain.available()), ["ADDED a"]);
  await tapped.cancel();
  await plain.cancel();
});

Deno.test("reactor: a watch tap can send an ERROR event after N lines, in the write that sent the Nth", async () => {
  using server = new FakeApiServer();
  server.addReactor({
    verb: "watch",
    react: (call) =>
      call.serve({
        watch: {
          sent: (stream) => {
            if (stream.lines < 1) return;
            stream.error({
              kind: "Status",
              apiVersion: "v1",
              status: "Failure",
              reason: "InternalError",
              code: 500,
            });
          },
        },
      }),
  });
  const w = new WatchReader(
    await req(server, "/api/v1/configmaps?watch=1&resourceVersion=0"),
  );
  assert.equal(server.openWatchCount, 1);
  server.create("configmaps", { metadata: { name: "a", namespace: "shop" } });
  assert.equal(server.openWatchCount, 0, "ended by the write");
  server.create("configmaps", { metadata: { name: "b", namespace: "shop" } });
  assert.deepEqual(summary(await w.drain()), ["ADDED a", "ERROR 500"]);
  assert.ok(w.ended && !w.error);
});

Deno.test("reactor: hold() answers nothing until the server closes", async () => {
  const server = new FakeApiServer();
  server.addReactor({ verb: "get", react: (call) => call.hold() });
  const res = await req(server, "/api/v1/namespaces/default/pods/p");
  assert.equal(res.status, 200);
  const text = res.text();
  await server.close();
  assert.equal(await text, "");
});

Deno.test("reactor: one that throws answers 500 with its message", async () => {
  using server = new FakeApiServer();
  server.addReactor({
    react: () => {
      throw new Error("reactor bug");
    },
  });
  const res = await req(server, "/api/v1/pods");
  assert.equal(res.status, 500);
  assert.match(
    (await res.json()).message,
    /fake API server failed: reactor bug/,
  );
});

Deno.test("reactor: authentication comes before any reactor", async () => {
  using server = new FakeApiServer({ token: "t" });
  const reactor = server.addReactor(answer(503));
  assert.equal(await status(server, "/api/v1/pods"), 401);
  assert.equal(reactor.hits, 0);
});

Deno.test("reactor: clearFaults removes every reactor", async () => {
  using server = new FakeApiServer();
  const reactor = server.addReactor(answer(500));
  server.injectFault({ kind: "status", code: 503, times: Infinity });
  server.clearFaults();
  assert.equal(reactor.active, false);
  assert.equal(await status(server, "/api/v1/pods"), 200);
});

Deno.test("reactor: invalid reactors are rejected with the reason", () => {
  using server = new FakeApiServer();
  const react = () => undefined;
  const bad: [unknown, RegExp][] = [
    [null, /Invalid reactor: expected an object/],
    [{}, /react must be a function/],
    [{ react, verb: "fetch" }, /unknown verb "fetch"/],
    [{ react, verb: ["get", "poke"] }, /unknown verb "poke"/],
    [{ react, namespace: 3 }, /namespace must be a string/],
    [{ react, times: 0 }, /times must be a positive integer or Infinity/],
    [{ react, forMs: Infinity }, /forMs/],
  ];
  for (const [reactor, message] of bad) {
    assert.throws(() => server.addReactor(reactor as never), message);
  }
  assert.throws(
    () => server.prependReactor({ react, resource: "widgets" }),
    /Unknown resource "widgets"/,
  );
});

Deno.test("reactor: an async react that passes (undefined) or answers no Response is a clean 500 naming the reactor's mistake", async () => {
  using server = new FakeApiServer();
  const passes = server.addReactor({
    verb: "list",
    react: () => Promise.resolve(undefined) as never,
  });
  const res = await req(server, "/api/v1/pods");
  assert.ok(res instanceof Response, "handle() resolves to a Response");
  assert.equal(res.status, 500);
  assert.match(
    (await res.json()).message,
    /reactor's react resolved to undefined, not a Response \(to pass, return undefined without a promise\)/,
  );
  passes.cancel();
  server.addReactor({
    verb: "list",
    react: () => Promise.resolve({ status: 503 }) as never,
  });
  const other = await req(server, "/api/v1/pods");
  assert.equal(other.status, 500);
  assert.match(
    (await other.json()).message,
    /reactor's react resolved to an object, not a Response/,
  );
});

Deno.test("reactor and fault options with a name they do not take are refused, naming it", () => {
  using server = new FakeApiServer();
  const react = () => undefined;
  assert.throws(
    () => server.addReactor({ react, verbs: "watch" } as never),
    /Invalid reactor: verbs: is not a Reactor option \(did you mean verb\?\)/,
  );
  assert.throws(
    () => server.addReactor({ react, time: 2 } as never),
    /Invalid reactor: time: is not a Reactor option \(did you mean times\?\)/,
  );
  assert.throws(
    () =>
      server.injectFault(
        { kind: "status", code: 503, tims: 2 } as never,
      ),
    /Invalid fault: tims: is not a FakeApiFault option \(did you mean times\?\)/,
  );
  assert.throws(
    () => server.injectFault({ kind: "drop", afterEvent: 2 } as never),
    /Invalid fault: afterEvent: is not a FakeApiFault option \(did you mean afterEvents\?\)/,
  );
});
