import assert from "node:assert/strict";
import { IndexSynchronizationTracker } from "../indextracker/index_synchronization_tracker.ts";
import { silentLogger } from "../logger.ts";
import { healthHandler } from "./health_handler.ts";
import { nodeListener, type NodeResponseLike } from "./node_listener.ts";

Deno.test("nodeListener: node:http serves the health endpoints on 127.0.0.1", async () => {
  const http = await import("node:http");
  const tracker = new IndexSynchronizationTracker(["ingresses"], {
    logger: silentLogger,
  });
  // The listener's type fits createServer's as it is: no cast.
  const server = http.createServer(
    nodeListener(
      healthHandler({ tracker, metrics: { render: () => "up 1\n" } }),
    ),
  );
  const listening = Promise.withResolvers<void>();
  server.listen(0, "127.0.0.1", () => listening.resolve());
  await listening.promise;
  try {
    const address = server.address();
    assert.ok(address !== null && typeof address === "object");
    const base = `http://127.0.0.1:${address.port}`;
    const readyz = await fetch(`${base}/readyz?verbose`);
    assert.equal(readyz.status, 503);
    assert.equal(
      readyz.headers.get("content-type"),
      "text/plain; charset=utf-8",
    );
    assert.equal(
      await readyz.text(),
      "[-]tracker/ingresses failed: not synced\nreadyz check failed\n",
    );
    tracker.markSynced("ingresses", 1);
    const ready = await fetch(`${base}/readyz`);
    assert.deepEqual([ready.status, await ready.text()], [200, "ok\n"]);
    const metrics = await fetch(`${base}/metrics`);
    assert.equal(
      metrics.headers.get("content-type"),
      "text/plain; version=0.0.4; charset=utf-8",
    );
    assert.equal(await metrics.text(), "up 1\n");
    const head = await fetch(`${base}/healthz`, { method: "HEAD" });
    assert.equal(head.status, 200);
    assert.equal(await head.text(), "");
  } finally {
    const closed = Promise.withResolvers<void>();
    server.close(() => closed.resolve());
    server.closeAllConnections();
    await closed.promise;
  }
});

Deno.test("nodeListener: a handler that throws or rejects answers 500", async () => {
  for (
    const handler of [
      () => {
        throw new Error("boom");
      },
      () => Promise.reject(new Error("boom")),
    ]
  ) {
    const ended = Promise.withResolvers<string | undefined>();
    const res: NodeResponseLike = {
      statusCode: 0,
      setHeader: () => {},
      end: (body) => ended.resolve(body),
    };
    nodeListener(handler)({ url: "/readyz" }, res);
    assert.equal(await ended.promise, "The handler failed: boom\n");
    assert.equal(res.statusCode, 500);
  }
});

Deno.test("nodeListener: the request's method, path and query reach the handler", async () => {
  let seen = "";
  const ended = Promise.withResolvers<void>();
  nodeListener((request) => {
    seen = `${request.method} ${new URL(request.url).pathname}${
      new URL(request.url).search
    }`;
    return new Response("x");
  })({ method: "GET", url: "/readyz?verbose" }, {
    statusCode: 0,
    setHeader: () => {},
    end: () => ended.resolve(),
  });
  await ended.promise;
  assert.equal(seen, "GET /readyz?verbose");
});
