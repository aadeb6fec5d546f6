// Faults the fake API server does not ship, each defined here, in the test
// that uses it, as a reactor: a new fault takes this one file.
import assert from "node:assert/strict";
import { ApiError } from "../client/api_error.ts";
import type { KubeObject } from "../types.ts";
import { waitFor } from "../testing/fake_clock.ts";
import type { Reactor } from "../testing/reactor.ts";
import { configMap, Harness, identities } from "./_bulk_harness_test.ts";

/** Corrupts the JSON of the first watch event about `name`, once. */
function corruptEventOf(name: string): Reactor {
  return {
    verb: "watch",
    resource: "configmaps",
    react: (call) =>
      call.serve({
        watch: {
          line: (text) =>
            text.includes(`"name":"${name}"`)
              ? text.replace('"object":', '"object":{')
              : undefined,
        },
      }),
  };
}

/**
 * Answers a LIST 429 as a proxy in front of the API server would: a
 * `Retry-After` header and a plain-text body, no `Status`.
 */
function proxyThrottlesList(retryAfterSeconds: number): Reactor {
  return {
    verb: "list",
    times: 1,
    react: () =>
      new Response("rate limited by the proxy\n", {
        status: 429,
        headers: {
          "content-type": "text/plain",
          "retry-after": String(retryAfterSeconds),
        },
      }),
  };
}

async function storeMatchesServer(h: Harness): Promise<void> {
  const stored: KubeObject[] = await h.watcher.store.list();
  assert.deepEqual(identities(stored), identities(h.server.list("configmaps")));
}

Deno.test("Watcher resumes after a watch event whose JSON is corrupt, without a relist", async () => {
  await using h = new Harness({
    seed: (server) => server.create("configmaps", configMap("shop", "a")),
  });
  assert.equal(await h.watcher.waitForSync(), 1);
  await h.waitForWatches(1);
  // A watch that ends before any event is retried after a backoff: give
  // this one an event first.
  h.server.create("configmaps", configMap("shop", "x"));
  await waitFor(() => h.watcher.store.size === 2, { description: "x" });
  const corrupt = h.server.addReactor(corruptEventOf("b"));
  h.server.closeAllWatches();
  await h.waitForRequests("watch", 2);
  await h.waitForWatches(1);

  h.server.create("configmaps", configMap("shop", "b"));
  await waitFor(
    () =>
      h.logger.at("warn").some((r) => /could not be decoded/.test(r.message)),
    { description: "a warning about the corrupt line" },
  );
  assert.equal(corrupt.hits, 1);
  corrupt.cancel();
  await h.clock.tick(1_000); // backoff
  await h.waitForRequests("watch", 3);
  await waitFor(() => h.watcher.store.size === 3, {
    description: "b, from the resumed watch",
  });
  assert.equal(h.watcher.health().relists, 0);
  assert.equal(h.requests("list").length, 1);
  await storeMatchesServer(h);
});

Deno.test("Watcher honours Retry-After on a LIST throttled without a Status", async () => {
  await using h = new Harness({ start: false });
  h.server.create("configmaps", configMap("shop", "a"));
  h.server.addReactor(proxyThrottlesList(7));
  h.running = h.watcher.start();
  await waitFor(() => h.watcher.lastError() !== undefined, {
    description: "the 429 is reported",
  });
  const error = h.watcher.lastError()?.error;
  assert.ok(error instanceof ApiError);
  assert.equal(error.code, 429);
  await h.clock.tick(6_999);
  assert.equal(h.requests("list").length, 1, "not before Retry-After");
  await h.clock.tick(1);
  await h.waitForRequests("list", 2);
  assert.equal(await h.watcher.waitForSync(), 1);
});
