// What a health endpoint that answers JSON shows: `JSON.stringify` of a
// watcher's `health()` names its last failure, while `lastError` stays the
// error itself for code that reads it.
import assert from "node:assert/strict";
import { ApiConnectionError } from "../client/errors.ts";
import { ApiError } from "../client/api_error.ts";
import { FetchClient } from "../client/fetch_client.ts";
import { FakeApiServer } from "../testing/fake_api_server.ts";
import { FakeClock, waitFor } from "../testing/fake_clock.ts";
import { mockFetch } from "../testing/mock_fetch.ts";
import { RecordingLogger } from "../testing/recording_logger.ts";
import {
  BY_IDENTITY,
  configMap,
  CONFIGMAPS,
  Harness,
} from "./_bulk_harness_test.ts";
import { Watcher } from "./watcher.ts";
import { SingleWatcher } from "./single.ts";

/** The health snapshot as a JSON endpoint would send it, read back. */
function asJson(health: unknown): Record<string, unknown> {
  return JSON.parse(JSON.stringify(health));
}

Deno.test("JSON.stringify(watcher.health()) names the last error and its message", async () => {
  await using h = new Harness({ start: false });
  h.server.create("configmaps", configMap("shop", "a"));
  h.server.injectFault({
    verb: "list",
    kind: "status",
    code: 503,
    message: "etcd is unavailable",
  });
  h.running = h.watcher.start();
  await waitFor(() => h.watcher.lastError() !== undefined, {
    description: "the 503 is reported",
  });
  const failure = h.watcher.health().lastError!;
  // Still the error itself for code that reads it.
  assert.ok(failure.error instanceof ApiError);
  assert.equal(failure.error.code, 503);

  const json = asJson(h.watcher.health());
  assert.deepEqual(json.lastError, {
    error: {
      name: "ApiError",
      message: failure.error.message,
      code: 503,
      status: JSON.parse(JSON.stringify(failure.error.status)),
      method: "GET",
      path: "/api/v1/configmaps",
    },
    time: failure.time,
  });
  assert.match(failure.error.message, /etcd is unavailable/);
});

Deno.test("JSON.stringify(watcher.health()) carries the cause of a connection failure", async () => {
  // A port nobody listens on: the connection is refused at once.
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr;
  listener.close();
  const clock = new FakeClock();
  using client = new FetchClient({ server: `http://127.0.0.1:${port}` });
  const watcher = new Watcher(
    {
      gvr: CONFIGMAPS,
      indexBy: BY_IDENTITY,
      onChange: () => {},
    },
    client,
    { clock, logger: new RecordingLogger() },
  );
  const running = watcher.start();
  try {
    await waitFor(() => watcher.lastError() !== undefined, {
      description: "the refused connection is reported",
    });
    const error = watcher.lastError()!.error;
    assert.ok(error instanceof ApiConnectionError, String(error));
    assert.ok(error.cause instanceof Error, "what fetch threw is the cause");

    const json = asJson(watcher.health()).lastError as {
      error: Record<string, unknown>;
    };
    assert.equal(json.error.name, "ApiConnectionError");
    assert.equal(json.error.message, error.message);
    assert.equal(json.error.server, `http://127.0.0.1:${port}`);
    const cause = json.error.cause as Record<string, unknown>;
    assert.equal(cause.name, error.cause.name);
    assert.equal(cause.message, error.cause.message);
    // Deno's fetch says why in a cause of its own ("Connection refused"):
    // kept too.
    assert.ok(error.cause.cause instanceof Error);
    assert.equal(
      (cause.cause as Record<string, unknown>).message,
      error.cause.cause.message,
    );
    assert.match(error.cause.cause.message, /refused/i);
  } finally {
    await watcher.stop();
    await running;
  }
});

Deno.test("JSON.stringify(watcher.health()) names an error that is not the package's own", async () => {
  await using h = new Harness({ start: false });
  // The body of the LIST fails as a reset connection does: what reading
  // it throws is the runtime's TypeError, recorded as it is.
  h.server.injectFault({ verb: "list", kind: "drop" });
  h.running = h.watcher.start();
  await waitFor(() => h.watcher.lastError() !== undefined, {
    description: "the dropped LIST is reported",
  });
  const error = h.watcher.lastError()!.error;
  assert.ok(error instanceof TypeError, String(error));
  assert.deepEqual(asJson(h.watcher.health()).lastError, {
    error: { name: "TypeError", message: error.message },
    time: h.watcher.lastError()!.time,
  });
});

Deno.test("JSON.stringify(health()) names each namespace's last error, and a SingleWatcher's", async (t) => {
  await t.step("namespaces", async () => {
    await using h = new Harness({
      start: false,
      config: { namespaces: ["shop", "web"] },
    });
    h.server.injectFault({
      verb: "list",
      namespace: "web",
      kind: "status",
      code: 403,
      message: 'configmaps is forbidden: cannot list in namespace "web"',
    });
    h.running = h.watcher.start();
    await waitFor(() => h.watcher.lastError() !== undefined, {
      description: "the 403 is reported",
    });
    const json = asJson(h.watcher.health()) as {
      namespaces: Record<string, { lastError?: { error: unknown } }>;
    };
    const error = h.watcher.health().namespaces!.web.lastError!.error;
    assert.ok(error instanceof ApiError);
    assert.match(error.message, /cannot list in namespace "web"/);
    assert.equal(json.namespaces.shop.lastError, undefined);
    assert.deepEqual(pick(json.namespaces.web.lastError?.error), {
      name: "ApiError",
      message: error.message,
    });
  });

  await t.step("SingleWatcher", async () => {
    const clock = new FakeClock();
    await using server = new FakeApiServer({ clock });
    using _fetch = mockFetch(server);
    using client = new FetchClient({ server: server.url });
    server.injectFault({ verb: "list", kind: "status", code: 500 });
    const watcher = new SingleWatcher(
      {
        gvr: { group: "", version: "v1", resource: "configmaps" },
        namespace: "shop",
        name: "settings",
        onChange: () => {},
      },
      client,
      { clock, logger: new RecordingLogger() },
    );
    const running = watcher.start();
    try {
      await waitFor(() => watcher.lastError() !== undefined, {
        description: "the 500 is reported",
      });
      const error = watcher.lastError()!.error as ApiError;
      const json = asJson(watcher.health()) as {
        lastError: { error: unknown };
      };
      assert.deepEqual(pick(json.lastError.error), {
        name: "ApiError",
        message: error.message,
      });
    } finally {
      await watcher.stop();
      await running;
    }
  });
});

/** An error's JSON form, reduced to its name and message. */
function pick(value: unknown): unknown {
  const { name, message } = (value ?? {}) as Record<string, unknown>;
  return { name, message };
}
