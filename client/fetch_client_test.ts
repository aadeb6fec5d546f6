import assert from "node:assert/strict";
import { FakeClock } from "../testing/fake_clock.ts";
import { ApiError, httpStatusOf } from "./api_error.ts";
import {
  ApiConnectionError,
  KubeConfigError,
  ResponseDecodeError,
} from "./errors.ts";
import { FetchClient } from "./fetch_client.ts";

interface Seen {
  url: string;
  method: string;
  headers: Headers;
  body: string | undefined;
  signal: AbortSignal | undefined;
  client: unknown;
}

/** Replaces globalThis.fetch until disposed; records every request. */
function stubFetch(
  answer: (seen: Seen) => Response | Promise<Response>,
): Disposable & { seen: Seen[] } {
  const original = globalThis.fetch;
  const seen: Seen[] = [];
  globalThis.fetch = async (input, init) => {
    const request = new Request(input, init);
    const entry: Seen = {
      url: request.url,
      method: request.method,
      headers: request.headers,
      body: request.body ? await request.text() : undefined,
      signal: init?.signal ?? undefined,
      client: (init as { client?: unknown } | undefined)?.client,
    };
    seen.push(entry);
    return answer(entry);
  };
  return {
    seen,
    [Symbol.dispose]() {
      globalThis.fetch = original;
    },
  };
}

const SERVER = "https://k8s.example:6443";
const TOKEN = "sekret-token-1234567890";

function status(code: number, reason: string, message: string) {
  return {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message,
    reason,
    code,
  };
}

/** Everything an error could show a user or a log. */
function everyText(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current !== undefined && depth < 10; depth++) {
    parts.push(String(current), Deno.inspect(current, { depth: 10 }));
    if (current instanceof Error) {
      parts.push(current.message, current.stack ?? "");
      current = current.cause;
    } else break;
  }
  return parts.join("\n");
}

async function caught(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  assert.fail("expected the request to fail");
}

Deno.test("FetchClient sends the path, query and bearer token to the server", async () => {
  const client = new FetchClient({ server: `${SERVER}/prefix/`, token: TOKEN });
  // Installed after construction: the client must look fetch up per request.
  using stub = stubFetch(() => Response.json({ kind: "PodList", items: [] }));
  const list = await client.performRequest({
    method: "GET",
    path: "/api/v1/namespaces/web/pods",
    querystring: new URLSearchParams({ limit: "500", labelSelector: "a=b" }),
    expectJson: true,
  });
  assert.deepEqual(list, { kind: "PodList", items: [] });
  assert.equal(stub.seen.length, 1);
  const [seen] = stub.seen;
  assert.equal(
    seen.url,
    `${SERVER}/prefix/api/v1/namespaces/web/pods?limit=500&labelSelector=a%3Db`,
  );
  assert.equal(seen.method, "GET");
  assert.equal(seen.headers.get("authorization"), `Bearer ${TOKEN}`);
  assert.equal(seen.headers.get("accept"), "application/json");
  assert.equal(seen.client, undefined);
});

Deno.test("FetchClient sends no Authorization header without a token", async () => {
  const client = FetchClient.kubectlProxy();
  using stub = stubFetch(() => new Response("ok"));
  const bytes = await client.performRequest({
    method: "GET",
    path: "/healthz",
  });
  assert.ok(bytes instanceof Uint8Array);
  assert.equal(new TextDecoder().decode(bytes), "ok");
  assert.equal(stub.seen[0].url, "http://127.0.0.1:8001/healthz");
  assert.equal(stub.seen[0].headers.has("authorization"), false);
  assert.equal(stub.seen[0].headers.has("accept"), false);
});

Deno.test("FetchClient sends JSON and raw bodies with their content type", async () => {
  const client = new FetchClient({ server: SERVER });
  using stub = stubFetch(() => Response.json({}));
  await client.performRequest({
    method: "POST",
    path: "/api/v1/namespaces/a/configmaps",
    bodyJson: { metadata: { name: "x" } },
    expectJson: true,
  });
  await client.performRequest({
    method: "PATCH",
    path: "/api/v1/namespaces/a/configmaps/x",
    bodyRaw: new TextEncoder().encode('{"data":{}}'),
    contentType: "application/merge-patch+json",
  });
  assert.equal(stub.seen[0].body, '{"metadata":{"name":"x"}}');
  assert.equal(stub.seen[0].headers.get("content-type"), "application/json");
  assert.equal(stub.seen[1].body, '{"data":{}}');
  assert.equal(
    stub.seen[1].headers.get("content-type"),
    "application/merge-patch+json",
  );
});

Deno.test("FetchClient returns the body as a stream, or as parsed lines", async () => {
  const client = new FetchClient({ server: SERVER });
  using _stub = stubFetch(() =>
    new Response('{"type":"ADDED"}\n{"type":"BOOKMARK"}\n')
  );
  const bytes = await client.performRequest({
    method: "GET",
    path: "/api/v1/pods",
    querystring: new URLSearchParams({ watch: "1" }),
    expectStream: true,
  });
  assert.equal(
    await new Response(bytes).text(),
    '{"type":"ADDED"}\n{"type":"BOOKMARK"}\n',
  );
  const events = await client.performRequest({
    method: "GET",
    path: "/api/v1/pods",
    expectStream: true,
    expectJson: true,
  });
  assert.deepEqual(await Array.fromAsync(events), [
    { type: "ADDED" },
    { type: "BOOKMARK" },
  ]);
});

Deno.test("FetchClient turns a Status answer into an ApiError", async () => {
  const client = new FetchClient({ server: SERVER, token: TOKEN });
  using _stub = stubFetch(() =>
    Response.json(
      status(410, "Expired", "too old resource version: 1 (5)"),
      { status: 410 },
    )
  );
  const error = await caught(client.performRequest({
    method: "GET",
    path: "/api/v1/pods",
    querystring: new URLSearchParams({ watch: "1", resourceVersion: "1" }),
    expectStream: true,
  }));
  assert.ok(error instanceof ApiError);
  assert.equal(error.code, 410);
  assert.equal(error.reason, "Expired");
  assert.equal(error.status?.message, "too old resource version: 1 (5)");
  assert.equal(error.method, "GET");
  assert.equal(error.path, "/api/v1/pods");
  assert.equal(error.retryAfterSeconds, undefined);
  assert.match(error.message, /410 Expired for GET \/api\/v1\/pods: too old/);
  assert.doesNotMatch(error.message, /resourceVersion=/);
  assert.deepEqual(httpStatusOf(error), { code: 410, reason: "Expired" });
});

Deno.test("FetchClient reads Retry-After as seconds, as a date, or from the Status", async (t) => {
  const client = new FetchClient({ server: SERVER });
  const request = () =>
    caught(client.performRequest({ method: "GET", path: "/api/v1/pods" }));
  await t.step("seconds", async () => {
    using _stub = stubFetch(() =>
      Response.json(status(429, "TooManyRequests", "slow down"), {
        status: 429,
        headers: { "retry-after": "7" },
      })
    );
    const error = await request();
    assert.ok(error instanceof ApiError);
    assert.equal(error.retryAfterSeconds, 7);
  });
  await t.step("HTTP date in the past", async () => {
    using _stub = stubFetch(() =>
      new Response("busy", {
        status: 503,
        headers: { "retry-after": "Wed, 21 Oct 2015 07:28:00 GMT" },
      })
    );
    const error = await request();
    assert.ok(error instanceof ApiError);
    assert.equal(error.retryAfterSeconds, 0);
  });
  await t.step("Status details", async () => {
    using _stub = stubFetch(() =>
      Response.json({
        ...status(429, "TooManyRequests", "slow down"),
        details: { retryAfterSeconds: 3 },
      }, { status: 429 })
    );
    const error = await request();
    assert.ok(error instanceof ApiError);
    assert.equal(error.retryAfterSeconds, 3);
  });
  await t.step("unparseable", async () => {
    using _stub = stubFetch(() =>
      new Response("", { status: 503, headers: { "retry-after": "soon" } })
    );
    const error = await request();
    assert.ok(error instanceof ApiError);
    assert.equal(error.retryAfterSeconds, undefined);
  });
});

Deno.test("FetchClient describes a non-JSON error answer by its first bytes", async () => {
  const client = new FetchClient({ server: SERVER });
  const page = "<html><body>502 Bad Gateway</body></html>" + " ".repeat(500);
  using _stub = stubFetch(() =>
    new Response(page, {
      status: 502,
      headers: { "content-type": "text/html" },
    })
  );
  const error = await caught(
    client.performRequest({
      method: "GET",
      path: "/api/v1/pods",
      expectJson: true,
    }),
  );
  assert.ok(error instanceof ApiError);
  assert.equal(error.code, 502);
  assert.equal(error.status, undefined);
  assert.match(error.message, /502 for GET \/api\/v1\/pods \(text\/html\)/);
  assert.match(error.message, /502 Bad Gateway/);
  assert.ok(error.message.length < 400);
});

Deno.test("FetchClient reports a 2xx answer that is not the JSON expected", async (t) => {
  const client = new FetchClient({ server: SERVER });
  const cases = [
    ["HTML", "<!doctype html><title>Sign in</title>", "text/html", /Sign in/],
    [
      "truncated JSON",
      '{"kind":"PodList","items":[{"meta',
      "application/json",
      /PodList/,
    ],
    ["empty", "", "application/json", /empty body/],
  ] as const;
  for (const [name, body, type, pattern] of cases) {
    await t.step(name, async () => {
      using _stub = stubFetch(() =>
        new Response(body, { headers: { "content-type": type } })
      );
      const error = await caught(client.performRequest({
        method: "GET",
        path: "/api/v1/pods",
        querystring: new URLSearchParams({ limit: "1" }),
        expectJson: true,
      }));
      assert.ok(error instanceof ResponseDecodeError, String(error));
      assert.equal(error.code, 200);
      assert.equal(error.contentType, type);
      assert.equal(error.preview, body);
      assert.equal(error.path, "/api/v1/pods");
      assert.match(error.message, pattern);
      assert.match(error.message, /not JSON/);
      assert.deepEqual(httpStatusOf(error), {});
    });
  }
});

Deno.test("FetchClient wraps a connection failure in ApiConnectionError", async () => {
  const client = new FetchClient({ server: SERVER });
  using _stub = stubFetch(() => {
    throw new TypeError("error sending request: connection refused");
  });
  const error = await caught(
    client.performRequest({ method: "GET", path: "/api/v1/pods" }),
  );
  assert.ok(error instanceof ApiConnectionError);
  assert.equal(error.server, SERVER);
  assert.equal(error.path, "/api/v1/pods");
  assert.match(error.message, /connection refused/);
  assert.ok(error.cause instanceof TypeError);
  assert.deepEqual(httpStatusOf(error), {});
});

Deno.test("FetchClient rejects with the abort reason when aborted", async () => {
  const client = new FetchClient({ server: SERVER });
  using _stub = stubFetch(({ signal }) =>
    new Promise((_, reject) => {
      if (signal!.aborted) reject(signal!.reason);
      signal!.addEventListener("abort", () => reject(signal!.reason), {
        once: true,
      });
    })
  );
  const controller = new AbortController();
  const pending = client.performRequest({
    method: "GET",
    path: "/api/v1/pods",
    abortSignal: controller.signal,
  });
  const reason = new Error("watcher stopped");
  controller.abort(reason);
  assert.equal(await caught(pending), reason);
});

Deno.test("FetchClient keeps the bearer token out of every error", async (t) => {
  const client = new FetchClient({ server: SERVER, token: TOKEN });
  const request = () =>
    caught(client.performRequest({
      method: "GET",
      path: "/api/v1/secrets",
      expectJson: true,
    }));
  const answers: [string, () => Response | never][] = [
    [
      "401 Status",
      () =>
        Response.json(status(401, "Unauthorized", "Unauthorized"), {
          status: 401,
        }),
    ],
    ["500 HTML", () => new Response("<html>oops</html>", { status: 500 })],
    [
      "proxy page echoing the header",
      () =>
        new Response(`<pre>Authorization: Bearer ${TOKEN}</pre>`, {
          status: 502,
        }),
    ],
    ["Status echoing the token", () =>
      Response.json(
        {
          ...status(401, "Unauthorized", `token ${TOKEN} expired`),
          details: { causes: [{ message: TOKEN }] },
        },
        { status: 401 },
      )],
    ["200 garbage", () => new Response("<html>login</html>")],
    ["connection error quoting the header", () => {
      throw new TypeError(`Invalid header value: "Bearer ${TOKEN}"`);
    }],
    ["connection error with the token in its cause", () => {
      throw new TypeError("fetch failed", {
        cause: new Error(`proxy rejected Authorization: Bearer ${TOKEN}`),
      });
    }],
  ];
  for (const [name, answer] of answers) {
    await t.step(name, async () => {
      using stub = stubFetch(answer);
      const error = await request();
      assert.ok(error instanceof Error);
      assert.equal(
        stub.seen[0].headers.get("authorization"),
        `Bearer ${TOKEN}`,
      );
      assert.ok(!everyText(error).includes(TOKEN), everyText(error));
    });
  }
  await t.step("a JWT-sized token cut by the preview", async () => {
    const jwt = "eyJ" + "a".repeat(300) + "." + "b".repeat(600) + ".sig";
    const client = new FetchClient({ server: SERVER, token: jwt });
    for (const code of [200, 500]) {
      using _stub = stubFetch(() =>
        new Response(`${"<p>".repeat(50)}Bearer ${jwt}</p>`, { status: code })
      );
      const error = await caught(client.performRequest({
        method: "GET",
        path: "/api/v1/pods",
        expectJson: true,
      }));
      assert.ok(error instanceof Error);
      assert.ok(!everyText(error).includes(jwt.slice(0, 40)), everyText(error));
    }
  });
  await t.step("the client itself", () => {
    assert.ok(!Deno.inspect(client, { depth: 10 }).includes(TOKEN));
    assert.ok(!JSON.stringify(client).includes(TOKEN));
  });
  await t.step("a token that cannot go in a header", () => {
    const bad = `${TOKEN}\ninjected`;
    const error = (() => {
      try {
        new FetchClient({ server: SERVER, token: bad });
      } catch (error) {
        return error;
      }
      assert.fail("expected a KubeConfigError");
    })();
    assert.ok(error instanceof KubeConfigError);
    assert.match(error.message, /not allowed in an HTTP header/);
    assert.ok(!everyText(error).includes(TOKEN));
  });
});

Deno.test("FetchClient re-reads a token file when it changes, at most every refresh interval, keeping its token through a half-written file", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const tokenFile = `${dir}/token`;
    await Deno.writeTextFile(tokenFile, "first-token\n");
    const clock = new FakeClock({ now: 1_000 });
    const client = new FetchClient({ server: SERVER, tokenFile }, {
      clock,
      tokenRefreshMs: 60_000,
    });
    using stub = stubFetch(() => new Response("ok"));
    const sent = async () => {
      await client.performRequest({ method: "GET", path: "/version" });
      return stub.seen.at(-1)!.headers.get("authorization");
    };
    assert.equal(await sent(), "Bearer first-token");
    await Deno.writeTextFile(tokenFile, "second-longer-token");
    await clock.tick(59_000);
    assert.equal(await sent(), "Bearer first-token", "cached within 60 s");
    await clock.tick(1_000);
    assert.equal(await sent(), "Bearer second-longer-token");

    // A 401 forces a re-read on the next request, before the interval.
    await Deno.writeTextFile(tokenFile, "third");
    stub.seen.length = 0;
    {
      using _unauthorized = stubFetch(() => new Response("", { status: 401 }));
      await caught(client.performRequest({ method: "GET", path: "/version" }));
    }
    assert.equal(await sent(), "Bearer third");

    // A file caught empty mid-rotation keeps the token we have.
    await Deno.writeTextFile(tokenFile, "");
    await clock.tick(60_000);
    assert.equal(await sent(), "Bearer third");
    await Deno.writeTextFile(tokenFile, "fourth");
    await clock.tick(60_000);
    assert.equal(await sent(), "Bearer fourth");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("FetchClient reports an unreadable or invalid token file without its content", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const missing = new FetchClient({
      server: SERVER,
      tokenFile: `${dir}/none`,
    });
    using _stub = stubFetch(() => new Response("ok"));
    const error = await caught(
      missing.performRequest({ method: "GET", path: "/version" }),
    );
    assert.ok(error instanceof KubeConfigError);
    assert.match(
      error.message,
      /Cannot read the bearer token file .*none: NotFound/,
    );

    await Deno.writeTextFile(`${dir}/bad`, `${TOKEN}\r\nX-Other: 1`);
    const bad = new FetchClient({ server: SERVER, tokenFile: `${dir}/bad` });
    const badError = await caught(
      bad.performRequest({ method: "GET", path: "/version" }),
    );
    assert.ok(badError instanceof KubeConfigError);
    assert.ok(!everyText(badError).includes(TOKEN));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("FetchClient rejects unusable explicit settings", () => {
  assert.throws(
    () => new FetchClient({ server: "localhost:6443" }),
    (err) => err instanceof KubeConfigError && /https:\/\//.test(err.message),
  );
  assert.throws(
    () => new FetchClient({ server: "not a url" }),
    (err) =>
      err instanceof KubeConfigError && /not a valid URL/.test(err.message),
  );
  assert.throws(
    () => new FetchClient({ server: "https://user:pw@host" }),
    KubeConfigError,
  );
  assert.throws(
    () => new FetchClient({ server: SERVER, certData: "x" }),
    /certificate is set without its key/,
  );
  assert.throws(
    () => new FetchClient({ server: SERVER, caData: "bm90IGEgY2VydA==" }),
    /caData is neither PEM text nor base64-encoded PEM/,
  );
  assert.throws(
    () => new FetchClient({ server: SERVER, token: "  " }),
    /token setting is empty/,
  );
});

Deno.test("FetchClient uses the configured namespace, else default", () => {
  assert.equal(
    new FetchClient({ server: SERVER, namespace: "web" }).defaultNamespace,
    "web",
  );
  assert.equal(new FetchClient({ server: SERVER }).defaultNamespace, "default");
  assert.equal(new FetchClient({ server: SERVER }).source, "explicit config");
});

Deno.test("FetchClient refuses requests once closed", async () => {
  const client = new FetchClient({ server: SERVER });
  client.close();
  client.close();
  using stub = stubFetch(() => new Response("ok"));
  const error = await caught(
    client.performRequest({ method: "GET", path: "/version" }),
  );
  assert.ok(error instanceof ApiConnectionError);
  assert.match(error.message, /closed/);
  assert.equal(stub.seen.length, 0);
});

Deno.test("FetchClient stream: aborting the signal cancels a live watch body", async () => {
  let streamCancelled = false;
  const serverClosed = Promise.withResolvers<void>();
  await using server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () =>
      new Response(
        new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(new TextEncoder().encode('{"type":"ADDED"}\n'));
            // Stays open, like a watch with no further events.
          },
          cancel() {
            streamCancelled = true;
            serverClosed.resolve();
          },
        }),
      ),
  );
  using client = new FetchClient({
    server: `http://127.0.0.1:${server.addr.port}`,
  });
  const controller = new AbortController();
  const stream = await client.performRequest({
    method: "GET",
    path: "/api/v1/pods",
    querystring: new URLSearchParams({ watch: "1" }),
    abortSignal: controller.signal,
    expectStream: true,
  });
  const reader = stream.getReader();
  const first = await reader.read();
  assert.equal(new TextDecoder().decode(first.value), '{"type":"ADDED"}\n');
  const pending = reader.read();
  controller.abort(new Error("stop"));
  await assert.rejects(pending);
  reader.releaseLock();
  await serverClosed.promise;
  assert.equal(streamCancelled, true);
});

Deno.test("FetchClient stream of JSON lines: cancelling it unread cancels the body", async () => {
  const bodyCancelled = Promise.withResolvers<unknown>();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode('{"type":"ADDED"}\n'));
      // Stays open, like a watch with no further events.
    },
    cancel(reason) {
      bodyCancelled.resolve(reason);
    },
  });
  const client = new FetchClient({ server: SERVER });
  using _stub = stubFetch(() => new Response(body));
  const events = await client.performRequest({
    method: "GET",
    path: "/api/v1/pods",
    querystring: new URLSearchParams({ watch: "1" }),
    expectStream: true,
    expectJson: true,
  });
  await events.cancel();
  await bodyCancelled.promise;
  assert.equal(body.locked, false);
});

Deno.test("FetchClient stream of JSON lines: cancelling it while a read waits cancels the body", async () => {
  const bodyCancelled = Promise.withResolvers<unknown>();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode('{"type":"ADDED"}\n'));
    },
    cancel(reason) {
      bodyCancelled.resolve(reason);
    },
  });
  const client = new FetchClient({ server: SERVER });
  using _stub = stubFetch(() => new Response(body));
  const events = await client.performRequest({
    method: "GET",
    path: "/api/v1/pods",
    expectStream: true,
    expectJson: true,
  });
  const reader = events.getReader();
  assert.deepEqual(await reader.read(), {
    done: false,
    value: { type: "ADDED" },
  });
  const pending = reader.read();
  await reader.cancel(new Error("enough"));
  assert.deepEqual(await pending, { done: true, value: undefined });
  assert.match(String(await bodyCancelled.promise), /enough/);
});

Deno.test("FetchClient rejects an execTimeoutMs a timer cannot wait, naming it", () => {
  // Above 2³¹−1 ms, setTimeout fires after 1 ms; 0 or NaN fired at once.
  const cases: [number, RegExp][] = [
    [
      2 ** 31,
      /^execTimeoutMs must be at most 2147483647 ms \(2³¹−1\), got 2147483648$/,
    ],
    [0, /^execTimeoutMs must be a positive number of milliseconds, got 0$/],
    [NaN, /^execTimeoutMs must be a positive number of milliseconds, got NaN$/],
  ];
  for (const [execTimeoutMs, message] of cases) {
    assert.throws(
      () => new FetchClient({ server: SERVER }, { execTimeoutMs }),
      (err) => err instanceof KubeConfigError && message.test(err.message),
      String(execTimeoutMs),
    );
  }
  using _accepted = new FetchClient({ server: SERVER }, {
    execTimeoutMs: 2 ** 31 - 1,
  });
});
