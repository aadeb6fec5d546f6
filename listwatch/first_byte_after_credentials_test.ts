// The first-byte deadline counts from when the request is sent: an exec
// credential plugin that takes longer than the deadline is not the server
// failing to answer. The plugin here waits for a file the test writes, so
// its run time is the test's to decide; the deadline runs on a FakeClock.
import assert from "node:assert/strict";
import { FetchClient } from "../client/fetch_client.ts";
import { FakeApiServer } from "../testing/fake_api_server.ts";
import { mockFetch } from "../testing/mock_fetch.ts";
import { FakeClock, waitFor } from "../testing/fake_clock.ts";
import { silentLogger } from "../logger.ts";
import { Watcher } from "../watcher/watcher.ts";
import { FirstByteTimeoutError } from "./list_watch_types.ts";

const V1 = "client.authentication.k8s.io/v1";
const GVR = { group: "", version: "v1", resource: "configmaps" };
const DEADLINE_MS = 1_000;

/** A plugin that says it started, then waits for `$DIR/go`. */
const WAITING_PLUGIN = `
: > "$DIR/started"
while [ ! -e "$DIR/go" ]; do sleep 0.01; done
printf '{"apiVersion":"${V1}","kind":"ExecCredential","status":{"token":"t"}}'
`;

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`Not reached: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}

async function scenario(
  fn: (
    t: {
      clock: FakeClock;
      server: FakeApiServer;
      watcher: Watcher;
      startPlugin: () => Promise<void>;
      releasePlugin: () => Promise<void>;
    },
  ) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "k8s-watcher-first-byte-" });
  try {
    await Deno.mkdir(`${dir}/bin`);
    await Deno.writeTextFile(
      `${dir}/bin/plugin`,
      `#!/bin/sh\n${WAITING_PLUGIN}\n`,
    );
    await Deno.chmod(`${dir}/bin/plugin`, 0o755);
    const clock = new FakeClock();
    await using server = new FakeApiServer({ clock });
    using _fetch = mockFetch(server);
    server.create(GVR, { metadata: { namespace: "shop", name: "a" } });
    using client = new FetchClient({
      server: server.url,
      exec: { apiVersion: V1, command: `${dir}/bin/plugin` },
    }, { env: { PATH: "/usr/bin:/bin", DIR: dir }, clock });
    const watcher = new Watcher(
      {
        gvr: GVR,
        indexBy: ["metadata.namespace", "metadata.name"],
        onChange: () => {},
      },
      client,
      {
        clock,
        logger: silentLogger,
        firstByteTimeoutMs: DEADLINE_MS,
        random: () => 0.5,
      },
    );
    try {
      await fn({
        clock,
        server,
        watcher,
        startPlugin: async () => {
          void watcher.start();
          await until(() => exists(`${dir}/started`), "the plugin started");
        },
        releasePlugin: async () => {
          await Deno.writeTextFile(`${dir}/go`, "");
          await until(
            () =>
              server.requests.length > 0 || watcher.lastError() !== undefined,
            "the request was sent, or failed",
          );
        },
      });
    } finally {
      await watcher.stop();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("firstByteTimeoutMs: an exec plugin slower than the deadline does not fail the LIST", async () => {
  await scenario(async ({ clock, watcher, startPlugin, releasePlugin }) => {
    await startPlugin();
    // The plugin runs three deadlines long.
    await clock.tick(3 * DEADLINE_MS);
    await releasePlugin();
    assert.equal(watcher.lastError(), undefined);
    await watcher.waitForSync();
    assert.equal(watcher.health().requestErrors, 0);
    assert.equal(watcher.health().lists, 1);
  });
});

Deno.test("firstByteTimeoutMs: a server that never answers trips it, counted from the send", async () => {
  await scenario(
    async ({ clock, server, watcher, startPlugin, releasePlugin }) => {
      // No answer at all: not even the status line comes.
      server.prependReactor({
        verb: "list",
        times: 1,
        react: () => new Promise<Response>(() => {}),
      });
      await startPlugin();
      await clock.tick(3 * DEADLINE_MS);
      await releasePlugin();
      await waitFor(() => server.requests.length === 1);
      await clock.tick(DEADLINE_MS - 1);
      assert.equal(watcher.lastError(), undefined, "not before the deadline");
      await clock.tick(1);
      await waitFor(() => watcher.lastError() !== undefined);
      assert.ok(watcher.lastError()!.error instanceof FirstByteTimeoutError);
    },
  );
});
