// A stop() from work a callback started (a loop, a timer, a server begun in
// onSyncComplete) but made after that callback returned is a stop from
// outside: it delivers the pending batch and waits, as any outside stop.
import assert from "node:assert/strict";
import { FetchClient } from "../client/fetch_client.ts";
import { FakeApiServer } from "../testing/fake_api_server.ts";
import { mockFetch } from "../testing/mock_fetch.ts";
import { FakeClock, waitFor } from "../testing/fake_clock.ts";
import { silentLogger } from "../logger.ts";
import { Watcher } from "./watcher.ts";
import { SingleWatcher } from "./single.ts";
import { DebounceGroup } from "./debounce_group.ts";
import { insideCallbackOf, runAsCallbackOf } from "../_internal/_lifecycle.ts";

const GVR = { group: "", version: "v1", resource: "configmaps" };

Deno.test("callback context: work a callback started is outside it once the callback has settled", async () => {
  const owner = {};
  const gate = Promise.withResolvers<void>();
  let during = false;
  let after = true;
  let work: Promise<void> | undefined;
  await runAsCallbackOf(owner, async () => {
    work = (async () => {
      await gate.promise;
      after = insideCallbackOf(owner);
    })();
    await Promise.resolve();
    during = insideCallbackOf(owner);
  });
  gate.resolve();
  await work;
  assert.equal(during, true, "inside while the callback runs");
  assert.equal(after, false, "outside once it has settled");
  // A synchronous callback's frame ends when it returns.
  let later: Promise<boolean> | undefined;
  runAsCallbackOf(owner, () => {
    later = Promise.resolve().then(() => insideCallbackOf(owner));
  });
  assert.equal(await later, false);
});

Deno.test("Watcher: a stop() from a loop begun in onSyncComplete, made after it returned, delivers the pending batch", async () => {
  const clock = new FakeClock();
  await using server = new FakeApiServer({ clock });
  using _fetch = mockFetch(server);
  using client = new FetchClient({ server: server.url });
  server.create(GVR, { metadata: { namespace: "shop", name: "a" } });
  const totals: number[] = [];
  const gate = Promise.withResolvers<void>();
  let stopped: Promise<void> | undefined;
  const watcher: Watcher = new Watcher(
    {
      gvr: GVR,
      indexBy: ["metadata.namespace", "metadata.name"],
      debounceInterval: 60_000,
      onChange: (_store, batch) => void totals.push(batch.total),
      onSyncComplete: () => {
        // A controller's loop, begun here, stopping the watcher much later.
        void (async () => {
          await gate.promise;
          stopped = watcher.stop();
        })();
      },
    },
    client,
    { clock, logger: silentLogger },
  );
  void watcher.start();
  await watcher.waitForSync();
  await waitFor(() => watcher.health().watches === 1);
  server.create(GVR, { metadata: { namespace: "shop", name: "b" } });
  await waitFor(() => totals.length === 2); // at once: the leading edge
  server.create(GVR, { metadata: { namespace: "shop", name: "c" } });
  await waitFor(() => watcher.health().events === 2); // held in the window
  gate.resolve();
  await waitFor(() => stopped !== undefined);
  await stopped;
  assert.deepEqual(totals, [1, 1, 1], "the pending change was delivered");
});

Deno.test("SingleWatcher and DebounceGroup: work begun in a callback stops them from outside once it returned", async () => {
  const clock = new FakeClock();
  await using server = new FakeApiServer({ clock });
  using _fetch = mockFetch(server);
  using client = new FetchClient({ server: server.url });
  server.create(GVR, { metadata: { namespace: "shop", name: "a" } });
  const gate = Promise.withResolvers<void>();
  let stopped: Promise<void> | undefined;
  const single: SingleWatcher = new SingleWatcher(
    {
      gvr: GVR,
      namespace: "shop",
      name: "a",
      onChange: () => {},
      onSyncComplete: () => {
        void (async () => {
          await gate.promise;
          stopped = single.stop();
        })();
      },
    },
    client,
    { clock, logger: silentLogger },
  );
  void single.start();
  await single.waitForSync();
  gate.resolve();
  await waitFor(() => stopped !== undefined);
  await stopped;
  assert.equal(single.health().state, "stopped");

  const calls: number[] = [];
  const groupGate = Promise.withResolvers<void>();
  let groupStopped: Promise<void> | undefined;
  const group: DebounceGroup<number> = new DebounceGroup<number>({
    interval: 60_000,
    merge: (a, b) => a + b,
    clock,
    onChange: (batches) => {
      calls.push(batches.get("x") ?? 0);
      if (calls.length === 1) {
        void (async () => {
          await groupGate.promise;
          groupStopped = group.stop();
        })();
      }
    },
  });
  const member = group.member("x");
  member.add(1); // at once
  await waitFor(() => calls.length === 1);
  member.add(2); // held in the window
  groupGate.resolve();
  await waitFor(() => groupStopped !== undefined);
  await groupStopped;
  assert.deepEqual(calls, [1, 2], "the group's pending batch was delivered");
});
