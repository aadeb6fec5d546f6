// FetchClient's metrics under client-go's names, labels and meanings, so
// that dashboards built on client-go's read them as they are: requests by
// code, method and host; the duration of a request whose body is read
// whole, by verb and host (a watch is not timed); exec plugin calls by exit
// code and call status.
import assert from "node:assert/strict";
import { FakeClock, waitFor } from "../testing/fake_clock.ts";
import { MetricsRegistry } from "../metrics/registry.ts";
import { FetchClient } from "./fetch_client.ts";
import { samples } from "../tests/prometheus_text.ts";

const V1 = "client.authentication.k8s.io/v1";
const SYSTEM_PATH = "/usr/bin:/bin";

/** The samples of `registry` whose name starts with `prefix`. */
function family(registry: MetricsRegistry, prefix: string) {
  return Object.fromEntries(
    [...samples(registry.render())].filter(([name]) => name.startsWith(prefix)),
  );
}

/** Replaces globalThis.fetch with `answer` for the test's scope. */
function stubFetch(
  answer: (request: Request) => Promise<Response>,
): Disposable {
  const original = globalThis.fetch;
  globalThis.fetch = (input, init) => answer(new Request(input, init));
  return {
    [Symbol.dispose]() {
      globalThis.fetch = original;
    },
  };
}

async function settled(promise: Promise<unknown>): Promise<void> {
  await promise.catch(() => {});
}

Deno.test("FetchClient counts requests as client-go's rest_client_requests_total{code,host,method}", async () => {
  using _fetch = stubFetch((request) => {
    const path = new URL(request.url).pathname;
    if (path === "/down") return Promise.reject(new TypeError("refused"));
    if (path === "/missing") {
      return Promise.resolve(
        Response.json({ kind: "Status", code: 404 }, { status: 404 }),
      );
    }
    return Promise.resolve(
      Response.json({}, { status: request.method === "POST" ? 201 : 200 }),
    );
  });
  const registry = new MetricsRegistry();
  using client = new FetchClient({ server: "https://api.example:6443" }, {
    meter: registry,
  });
  // In-cluster config names the port even when it is the default one;
  // client-go's host label keeps it as written.
  using inCluster = new FetchClient({ server: "https://10.96.0.1:443" }, {
    meter: registry,
  });
  await client.performRequest({ method: "GET", path: "/a", expectJson: true });
  await client.performRequest({ method: "GET", path: "/b", expectJson: true });
  await client.performRequest({
    method: "POST",
    path: "/a",
    bodyJson: {},
    expectJson: true,
  });
  await settled(client.performRequest({ method: "GET", path: "/missing" }));
  await settled(client.performRequest({ method: "DELETE", path: "/down" }));
  await inCluster.performRequest({ method: "GET", path: "/a" });
  assert.deepEqual(family(registry, "rest_client_requests_total"), {
    'rest_client_requests_total{code="200",host="api.example:6443",method="GET"}':
      2,
    'rest_client_requests_total{code="201",host="api.example:6443",method="POST"}':
      1,
    'rest_client_requests_total{code="404",host="api.example:6443",method="GET"}':
      1,
    'rest_client_requests_total{code="<error>",host="api.example:6443",method="DELETE"}':
      1,
    'rest_client_requests_total{code="200",host="10.96.0.1:443",method="GET"}':
      1,
  });
  assert.doesNotMatch(registry.render(), /k8s_watcher_client_requests/);
});

Deno.test("FetchClient times a request until its body is read, as client-go's rest_client_request_duration_seconds{host,verb}; a watch is counted, not timed", async () => {
  const clock = new FakeClock({ now: 1_700_000_000_000 });
  const bodies: PromiseWithResolvers<void>[] = [];
  using _fetch = stubFetch((request) => {
    if (new URL(request.url).searchParams.has("watch")) {
      return Promise.resolve(new Response(new ReadableStream()));
    }
    // The headers come at once, the body when the test says.
    const body = Promise.withResolvers<void>();
    bodies.push(body);
    return Promise.resolve(
      new Response(
        new ReadableStream({
          async pull(controller) {
            await body.promise;
            controller.enqueue(new TextEncoder().encode('{"items":[]}'));
            controller.close();
          },
        }),
      ),
    );
  });
  const registry = new MetricsRegistry();
  using client = new FetchClient({ server: "https://api.example:6443" }, {
    meter: registry,
    clock,
  });
  // A LIST parsed whole: its body comes 1.5 s after the headers.
  const listing = client.performRequest({
    method: "GET",
    path: "/api/v1/pods",
    expectJson: true,
  });
  await waitFor(() => bodies.length === 1);
  await clock.tick(1_500);
  bodies[0].resolve();
  assert.deepEqual(await listing, { items: [] });
  // A LIST read as a byte stream, as a watcher's loop reads one: timed to
  // the stream's end, 2.5 s after its headers.
  const stream = await client.performRequest({
    method: "GET",
    path: "/api/v1/pods",
    expectStream: true,
  });
  await clock.tick(2_500);
  bodies[1].resolve();
  assert.equal(await new Response(stream).text(), '{"items":[]}');
  // A watch: its stream lasts a minute, and is not timed.
  const controller = new AbortController();
  const watch = await client.performRequest({
    method: "GET",
    path: "/api/v1/pods",
    querystring: new URLSearchParams({ watch: "true" }),
    expectStream: true,
    abortSignal: controller.signal,
  });
  await clock.tick(60_000);
  controller.abort();
  await watch.cancel();
  const series = 'host="api.example:6443",verb="GET"';
  assert.deepEqual(family(registry, "rest_client_request_duration_seconds"), {
    // client-go's buckets: 1.5 s and 2.5 s fall above 1, one of them below 2.
    ...Object.fromEntries(
      [0.005, 0.025, 0.1, 0.25, 0.5, 1].map((le) => [
        `rest_client_request_duration_seconds_bucket{${series},le="${le}"}`,
        0,
      ]),
    ),
    [`rest_client_request_duration_seconds_bucket{${series},le="2"}`]: 1,
    ...Object.fromEntries(
      [4, 8, 15, 30, 60, "+Inf"].map((le) => [
        `rest_client_request_duration_seconds_bucket{${series},le="${le}"}`,
        2,
      ]),
    ),
    [`rest_client_request_duration_seconds_sum{${series}}`]: 4,
    [`rest_client_request_duration_seconds_count{${series}}`]: 2,
  });
  assert.equal(
    family(registry, "rest_client_requests_total")[
      'rest_client_requests_total{code="200",host="api.example:6443",method="GET"}'
    ],
    3,
  );
  assert.doesNotMatch(registry.render(), /k8s_watcher_client_request/);
});

async function withPlugins(
  fn: (dir: string) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "k8s-watcher-exec-metrics-" });
  try {
    await Deno.mkdir(`${dir}/bin`);
    const plugins: Record<string, string> = {
      ok:
        `printf '{"apiVersion":"${V1}","kind":"ExecCredential","status":{"token":"tok-1"}}'`,
      exits3: "echo 'login first' >&2; exit 3",
      garbage: "echo 'token=tok-1'",
      hangs: "exec sleep 600",
    };
    for (const [name, body] of Object.entries(plugins)) {
      await Deno.writeTextFile(`${dir}/bin/${name}`, `#!/bin/sh\n${body}\n`);
      await Deno.chmod(`${dir}/bin/${name}`, 0o755);
    }
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("FetchClient counts exec plugin calls as client-go's rest_client_exec_plugin_call_total{call_status,code}", async () => {
  await withPlugins(async (dir) => {
    using _fetch = stubFetch(() => Promise.resolve(Response.json({})));
    const registry = new MetricsRegistry();
    const clock = new FakeClock();
    const run = async (command: string) => {
      using client = new FetchClient({
        server: "https://exec.example:6443",
        exec: { apiVersion: V1, command },
      }, {
        meter: registry,
        clock,
        execTimeoutMs: 5_000,
        env: { PATH: SYSTEM_PATH },
      });
      const request = settled(
        client.performRequest({ method: "GET", path: "/api" }),
      );
      if (command.endsWith("hangs")) {
        await waitFor(() => clock.pendingTimers === 1);
        await clock.tick(5_000);
      }
      await request;
    };
    await run(`${dir}/bin/ok`);
    await run(`${dir}/bin/ok`);
    await run(`${dir}/bin/exits3`);
    await run(`${dir}/bin/absent`);
    // Exit code 0 with no usable credential: a call without error, as
    // client-go counts the process; the failure is this package's count.
    await run(`${dir}/bin/garbage`);
    // Stopped at the timeout: killed, as Go reports a process a signal ended.
    await run(`${dir}/bin/hangs`);
    assert.deepEqual(family(registry, "rest_client_exec_plugin_call_total"), {
      'rest_client_exec_plugin_call_total{call_status="no_error",code="0"}': 3,
      'rest_client_exec_plugin_call_total{call_status="plugin_execution_error",code="3"}':
        1,
      'rest_client_exec_plugin_call_total{call_status="plugin_not_found_error",code="1"}':
        1,
      'rest_client_exec_plugin_call_total{call_status="plugin_execution_error",code="-1"}':
        1,
    });
    assert.deepEqual(
      family(registry, "k8s_watcher_client_exec_plugin_failures_total"),
      { "k8s_watcher_client_exec_plugin_failures_total": 4 },
    );
    assert.doesNotMatch(registry.render(), /exec_plugin_runs/);
  });
});
