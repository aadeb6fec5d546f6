import assert from "node:assert/strict";
import { FetchClient } from "../client/fetch_client.ts";
import { FakeApiServer } from "../testing/fake_api_server.ts";
import { mockFetch } from "../testing/mock_fetch.ts";
import { FakeClock, waitFor } from "../testing/fake_clock.ts";
import { silentLogger } from "../logger.ts";
import { Watcher } from "./watcher.ts";
import { WatcherConfigError } from "../config_error.ts";

Deno.test("Watcher with debounceInterval 0 delivers each change at once, without the clock moving", async () => {
  const clock = new FakeClock();
  await using server = new FakeApiServer({ clock });
  using _fetch = mockFetch(server);
  using client = new FetchClient({ server: server.url });
  const created: string[] = [];
  const watcher = new Watcher(
    {
      gvr: { group: "", version: "v1", resource: "configmaps" },
      indexBy: ["metadata.namespace", "metadata.name"],
      debounceInterval: 0,
      onChange: (_store, batch) => {
        for (const obj of batch.objects.created) {
          created.push(obj.metadata.name!);
        }
      },
    },
    client,
    { clock, logger: silentLogger },
  );
  watcher.start();
  await watcher.waitForSync();
  for (const name of ["a", "b", "c"]) {
    server.create("configmaps", { metadata: { namespace: "shop", name } });
    await waitFor(() => created.includes(name), { description: name });
  }
  assert.equal(clock.now(), 0);
  assert.throws(
    () =>
      new Watcher({
        gvr: { group: "", version: "v1", resource: "configmaps" },
        indexBy: ["metadata.name"],
        debounceInterval: -1,
        onChange: () => {},
      }, client),
    WatcherConfigError,
  );
  await watcher.stop();
});
