// Half-open connections against the real kube-apiserver (over HTTP/2, as a
// kubeconfig's CA sends a Deno client): a TCP proxy of the test's own
// swallows the bytes of every connection the client holds, and every
// watcher of that client must see the changes made meanwhile within a few
// idle timeouts. The same scenario runs against the fake server in
// client/fetch_client_half_open_test.ts.
import assert from "node:assert/strict";
import { FetchClient } from "../../client/fetch_client.ts";
import { startBlackHoleProxy } from "../black_hole_proxy.mjs";
import { watchersOnOneClient } from "../half_open.ts";
import {
  CONFIGMAPS,
  create,
  createNamespace,
  planeTest,
  remove,
  sharedControlPlane,
} from "./_harness.ts";

const plane = sharedControlPlane();
// A real server's quiet watch sends nothing for a minute: the idle timeout
// is short enough to keep the test short, long enough for a sync.
const IDLE_MS = 2_000;

planeTest(
  "half-open connections: every watcher of one client recovers (kube-apiserver)",
  async () => {
    const p = await plane();
    using admin = p.client();
    const namespace = "half-open";
    await createNamespace(admin, namespace);
    await createNamespace(admin, `${namespace}-b`);
    const proxy = await startBlackHoleProxy(Number(new URL(p.url).port));
    try {
      using client = new FetchClient({
        server: `https://127.0.0.1:${proxy.port}`,
        token: p.token(),
        caData: p.caPem,
      });
      const result = await watchersOnOneClient({
        client,
        namespace,
        write: {
          create: async (ns, name, labels) => {
            await create(admin, CONFIGMAPS, ns, { metadata: { name, labels } });
          },
          remove: (ns, name) => remove(admin, CONFIGMAPS, ns, name),
        },
        fault: () => proxy.swallowAll(),
        idleTimeoutMs: IDLE_MS,
      });
      assert.ok(result.swallowed > 0, "the proxy held no connection");
      assert.ok(
        result.idleTimeoutsEach <= 3,
        `a watcher needed ${result.idleTimeoutsEach} timeouts`,
      );
    } finally {
      await proxy.close();
    }
  },
);
