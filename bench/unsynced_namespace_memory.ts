/**
 * Heap of a `Watcher` with `namespaces: ["a", "b"]` whose `b` is forbidden
 * (every request answered 403), so that it never syncs, while 40,000
 * uniquely named ConfigMaps are created and deleted in `a`: what it keeps
 * for objects that no longer exist. `--allowed` lets `b` in, for
 * comparison; `--names=N` changes the count (a multiple of 2,000).
 * Everything runs in process (`FakeApiServer`, `mockFetch`, a `FakeClock`);
 * heap is `heapUsed` after forced full collections, at the start, halfway
 * and at the end.
 *
 * ```sh
 * deno run --allow-all --v8-flags=--expose-gc bench/unsynced_namespace_memory.ts
 * deno run --allow-all --v8-flags=--expose-gc bench/unsynced_namespace_memory.ts --allowed
 * ```
 *
 * @module
 */

import type { KubeObject } from "../types.ts";
import type { RequestOptions, RestClient } from "../client/rest_client.ts";
import { ApiError } from "../client/api_error.ts";
import { FetchClient } from "../client/fetch_client.ts";
import { FakeApiServer } from "../testing/fake_api_server.ts";
import { mockFetch } from "../testing/mock_fetch.ts";
import { FakeClock, waitFor } from "../testing/fake_clock.ts";
import { silentLogger } from "../logger.ts";
import { Watcher } from "../watcher/watcher.ts";

const CONFIGMAPS = { group: "", version: "v1", resource: "configmaps" };
const NAMES = Number(
  Deno.args.find((a) => a.startsWith("--names="))?.slice(8) ?? 40_000,
);
const CHUNK = 1_000;
const allowed = Deno.args.includes("--allowed");

/** Heap in use after full collections (needs `--expose-gc`). */
async function settledHeap(): Promise<number> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) {
    console.error("Run with --v8-flags=--expose-gc");
    Deno.exit(1);
  }
  for (let i = 0; i < 4; i++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return Deno.memoryUsage().heapUsed;
}

const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;

const clock = new FakeClock();
const server = new FakeApiServer({ clock });
const fetch = mockFetch(server);
const inner = new FetchClient({ server: server.url });
// Every request for namespace b is forbidden, as RBAC would have it.
const client = {
  performRequest: (opts: RequestOptions) => {
    if (!allowed && opts.path.includes("/namespaces/b/")) {
      return Promise.reject(
        new ApiError({
          code: 403,
          status: { kind: "Status", code: 403, reason: "Forbidden" },
          method: "GET",
          path: opts.path,
        }),
      );
    }
    return inner.performRequest(opts);
  },
} as RestClient;

const watcher = new Watcher(
  {
    gvr: CONFIGMAPS,
    indexBy: ["metadata.namespace", "metadata.name"],
    namespaces: ["a", "b"],
    debounceInterval: 1_000,
    onChange: () => {},
  },
  client,
  { clock, logger: silentLogger },
);
void watcher.start();
await waitFor(() => server.openWatchCount === (allowed ? 2 : 1), {
  description: "the watches",
});

const configMap = (name: string): KubeObject => ({
  metadata: { namespace: "a", name },
  data: { v: "0" },
});

const figures = [`start ${mb(await settledHeap())}`];
for (let done = 0; done < NAMES; done += CHUNK) {
  for (let i = done; i < done + CHUNK; i++) {
    server.create(CONFIGMAPS, configMap(`cm-${i}`));
    server.delete(CONFIGMAPS, "a", `cm-${i}`);
  }
  const events = 2 * (done + CHUNK);
  await waitFor(() => watcher.health().events === events, {
    description: `${events} events`,
    maxTurns: 100_000,
  });
  // Let a due debounced call (both namespaces allowed) take the batch.
  await clock.tick(1_000);
  if (2 * (done + CHUNK) === NAMES || done + CHUNK === NAMES) {
    figures.push(`${done + CHUNK} names ${mb(await settledHeap())}`);
  }
}
console.log(
  `b ${allowed ? "allowed" : "forbidden"}, synced ${watcher.isSynced()}, ` +
    `store ${watcher.store.size}: ${figures.join(", ")}`,
);
await watcher.stop();
await server.close();
fetch[Symbol.dispose]();
