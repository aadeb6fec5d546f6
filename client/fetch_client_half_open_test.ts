// A half-open connection, at the level it happens: a TCP proxy of the test's
// own keeps every connection it holds open and swallows their bytes both
// ways, while new connections pass. One client, several watchers (a
// namespaces watcher, a label-selected one, two sharing a stream, a
// SingleWatcher); every route a FetchClient can take on Deno. Each watcher
// must see the changes made after the fault within a few idle timeouts.
import assert from "node:assert/strict";
import { FetchClient } from "./fetch_client.ts";
import type { FetchClientConfig } from "./fetch_client_config.ts";
import { FakeApiServer } from "../testing/fake_api_server.ts";
import { RecordingLogger } from "../testing/recording_logger.ts";
import { makePki, SERVER_NAME } from "../tests/pki.mjs";
import { startBlackHoleProxy } from "../tests/black_hole_proxy.mjs";
import { watchersOnOneClient } from "../tests/half_open.ts";
import {
  ignoredWithout,
  opensslMissing,
  requireAvailable,
} from "../tests/requirements.ts";

const IDLE_MS = 400;

type Route = {
  name: string;
  tls: boolean;
  config: (
    url: string,
    pki: ReturnType<typeof makePki>,
  ) => FetchClientConfig;
};

const ROUTES: Route[] = [
  {
    name: "a kubeconfig's CA (Deno.createHttpClient, HTTP/2)",
    tls: true,
    config: (url, pki) => ({ server: url, caData: pki.caCert }),
  },
  {
    name: "a CA and tls-server-name (node:https)",
    tls: true,
    config: (url, pki) => ({
      server: url,
      caData: pki.caCert,
      tlsServerName: SERVER_NAME,
    }),
  },
  {
    name: "plain HTTP (the global fetch)",
    tls: false,
    config: (url) => ({ server: url }),
  },
];

for (const route of ROUTES) {
  Deno.test({
    name:
      `half-open connections: every watcher of one client recovers, ${route.name}`,
    ignore: route.tls ? ignoredWithout(opensslMissing) : false,
    async fn() {
      if (route.tls) requireAvailable(opensslMissing);
      const dir = await Deno.makeTempDir({ prefix: "k8s-watcher-half-open-" });
      try {
        const pki = makePki(dir);
        await using server = new FakeApiServer();
        const tls = route.name.includes("tls-server-name")
          ? { cert: pki.namedCert, key: pki.namedKey }
          : { cert: pki.serverCert, key: pki.serverKey };
        await using listener = await server.listen(
          route.tls ? { tls } : {},
        );
        const proxy = await startBlackHoleProxy(
          Number(new URL(listener.url).port),
        );
        try {
          const scheme = route.tls ? "https" : "http";
          using client = new FetchClient(
            route.config(`${scheme}://127.0.0.1:${proxy.port}`, pki),
          );
          const logger = new RecordingLogger();
          const result = await watchersOnOneClient({
            client,
            write: {
              create: (namespace, name, labels) =>
                void server.create("configmaps", {
                  metadata: { namespace, name, labels },
                }),
              remove: (namespace, name) =>
                void server.delete("configmaps", namespace, name),
            },
            fault: () => proxy.swallowAll(),
            idleTimeoutMs: IDLE_MS,
            logger,
          });
          assert.ok(result.swallowed > 0, "the proxy held no connection");
          assert.ok(
            result.idleTimeoutsEach <= 3,
            `a watcher needed ${result.idleTimeoutsEach} idle timeouts`,
          );
        } finally {
          await proxy.close();
        }
      } finally {
        await Deno.remove(dir, { recursive: true });
      }
    },
  });
}
