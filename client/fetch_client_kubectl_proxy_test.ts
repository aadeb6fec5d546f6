// A client for kubectl proxy keeps the options it is given: reached through
// fromEnv()'s fallback or made directly with kubectlProxy(), its requests
// are counted on the meter and timed on the clock. So does inCluster()'s.
import assert from "node:assert/strict";
import { CERT } from "../tests/fixtures.ts";
import { KubeConfigError } from "./errors.ts";
import { FetchClient } from "./fetch_client.ts";
import { MetricsRegistry } from "../metrics/registry.ts";
import { FakeApiServer } from "../testing/fake_api_server.ts";
import { FakeClock } from "../testing/fake_clock.ts";
import { mockFetch } from "../testing/mock_fetch.ts";

/** A server whose every answer takes 1.5 s on `clock`. */
function slowServer(clock: FakeClock, url?: string): FakeApiServer {
  const server = new FakeApiServer({ clock, url });
  server.addReactor({
    react: async (call) => {
      await clock.tick(1_500);
      return call.serve();
    },
  });
  return server;
}

/** What the registry shows of one GET through `client`. */
async function measuredGet(
  client: FetchClient,
  registry: MetricsRegistry,
): Promise<string[]> {
  await client.performRequest({
    method: "GET",
    path: "/api/v1/namespaces/shop/configmaps",
    expectJson: true,
  });
  return registry.render().split("\n").filter((line) =>
    /^rest_client_request(s_total|_duration_seconds_(sum|count))\{/
      .test(line)
  );
}

/** One GET to `host` that took 1.5 s, as client-go's series count it. */
const oneGetIn1_5S = (host = "k8s.fake") => [
  `rest_client_request_duration_seconds_sum{host="${host}",verb="GET"} 1.5`,
  `rest_client_request_duration_seconds_count{host="${host}",verb="GET"} 1`,
  `rest_client_requests_total{code="200",host="${host}",method="GET"} 1`,
];

Deno.test("fromEnv() falling back to kubectl proxy keeps the meter and the clock", async () => {
  const clock = new FakeClock();
  await using server = slowServer(clock);
  using _fetch = mockFetch(server);
  const registry = new MetricsRegistry();
  const dir = await Deno.makeTempDir();
  try {
    using client = FetchClient.fromEnv({
      env: { HOME: dir },
      inClusterDir: dir,
      kubectlProxy: server.url,
      meter: registry,
      clock,
    });
    assert.equal(client.source, `kubectl proxy at ${server.url}`);
    assert.deepEqual(await measuredGet(client, registry), oneGetIn1_5S());
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("kubectlProxy(url, options) counts its requests on the meter, timed on the clock", async () => {
  const clock = new FakeClock();
  await using server = slowServer(clock);
  using _fetch = mockFetch(server);
  const registry = new MetricsRegistry();
  using client = FetchClient.kubectlProxy(server.url, {
    meter: registry,
    clock,
  });
  assert.equal(client.server, server.url);
  assert.equal(client.source, `kubectl proxy at ${server.url}`);
  assert.deepEqual(await measuredGet(client, registry), oneGetIn1_5S());
});

Deno.test("kubectlProxy() refuses options it does not take, and a bad meter, by name", () => {
  assert.throws(
    () =>
      FetchClient.kubectlProxy(
        undefined,
        { meter: new MetricsRegistry(), tokenFile: "x" } as never,
      ),
    (error: unknown) =>
      error instanceof KubeConfigError &&
      error.message ===
        "Invalid FetchClient options: tokenFile: is not a FetchClient.kubectlProxy() option",
  );
  assert.throws(
    () => FetchClient.kubectlProxy(undefined, { meter: {} as never }),
    (error: unknown) =>
      error instanceof KubeConfigError && /^meter /.test(error.message),
  );
  // Without a URL, the default address, still with the options.
  using client = FetchClient.kubectlProxy(undefined, {
    meter: new MetricsRegistry(),
  });
  assert.equal(client.server, "http://127.0.0.1:8001");
});

Deno.test("inCluster() takes a meter, as the other factories do", async () => {
  const clock = new FakeClock();
  await using server = slowServer(clock, "https://10.96.0.1");
  using _fetch = mockFetch(server);
  const registry = new MetricsRegistry();
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/token`, "in-cluster-token\n");
    await Deno.writeTextFile(`${dir}/ca.crt`, CERT);
    using client = FetchClient.inCluster({
      env: {
        KUBERNETES_SERVICE_HOST: "10.96.0.1",
        KUBERNETES_SERVICE_PORT: "443",
      },
      inClusterDir: dir,
      meter: registry,
      clock,
    });
    assert.equal(client.server, "https://10.96.0.1");
    assert.deepEqual(
      await measuredGet(client, registry),
      oneGetIn1_5S("10.96.0.1:443"),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
