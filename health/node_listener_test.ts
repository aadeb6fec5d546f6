import assert from "node:assert/strict";
import { IndexSynchronizationTracker } from "../indextracker/index_synchronization_tracker.ts";
import { silentLogger } from "../logger.ts";
import {
  healthHandler,
  nodeListener,
  type NodeResponseLike,
} from "./health_handler.ts";

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

/** Sends one raw HTTP/1.1 request line to `port`; the status line back. */
async function rawStatus(port: number, requestLine: string): Promise<string> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    await conn.write(
      new TextEncoder().encode(
        `${requestLine}\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`,
      ),
    );
    const text = new TextDecoder().decode(
      await new Response(conn.readable).arrayBuffer(),
    );
    const [status] = text.split("\r\n", 1);
    const body = text.slice(text.indexOf("\r\n\r\n") + 4);
    return `${status} | ${body.trim()}`;
  } catch (error) {
    conn.close();
    throw error;
  }
}

Deno.test("nodeListener: odd requests get what Deno.serve gives: TRACE a 405, a path starting // is a path", async () => {
  const http = await import("node:http");
  const server = http.createServer(
    nodeListener(healthHandler({ metrics: { render: () => "up 1\n" } })),
  );
  const listening = Promise.withResolvers<void>();
  server.listen(0, "127.0.0.1", () => listening.resolve());
  await listening.promise;
  try {
    const address = server.address();
    assert.ok(address !== null && typeof address === "object");
    const { port } = address;
    assert.match(
      await rawStatus(port, "TRACE /healthz HTTP/1.1"),
      /^HTTP\/1\.1 405 .*\| Method not allowed: TRACE$/,
    );
    assert.match(
      await rawStatus(port, "GET //evil/healthz HTTP/1.1"),
      /^HTTP\/1\.1 404 .*\| .*\/\/evil\/healthz/,
    );
    assert.match(
      await rawStatus(port, "GET //metrics HTTP/1.1"),
      /^HTTP\/1\.1 404 .*\| .*\/\/metrics/,
    );
    assert.match(
      await rawStatus(port, "GET /healthz HTTP/1.1"),
      /^HTTP\/1\.1 200 .*\| ok$/,
    );
  } finally {
    const closed = Promise.withResolvers<void>();
    server.close(() => closed.resolve());
    server.closeAllConnections();
    await closed.promise;
  }
});
