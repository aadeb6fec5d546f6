import assert from "node:assert/strict";
import { FetchClient } from "../client/fetch_client.ts";
import {
  FakeApiServer,
  FakeClock,
  mockFetch,
  RecordingLogger,
  waitFor,
} from "../testing/mod.ts";
import { LeaderElector } from "./leader_elector.ts";

Deno.test("whileLeading: each term's signal, at its start or at once, aborted when the term ends; no onStartedLeading needed", async () => {
  const clock = new FakeClock();
  await using server = new FakeApiServer({ clock });
  using _fetch = mockFetch(server);
  using client = new FetchClient({ server: server.url });
  const logger = new RecordingLogger();
  const elector = new LeaderElector(
    {
      lease: { namespace: "shop", name: "widgets" },
      identity: "a",
    },
    client,
    { clock, logger, random: () => 0.5 },
  );
  const early: AbortSignal[] = [];
  elector.whileLeading((signal) => early.push(signal));
  elector.whileLeading(() => {
    throw new Error("a follower failed");
  });
  const running = elector.start();
  await waitFor(() => early.length === 1);
  assert.equal(elector.isLeader(), true);
  assert.ok(
    logger.records.some((r) => r.message === "whileLeading callback failed"),
  );
  const late: AbortSignal[] = [];
  const unfollow = elector.whileLeading((signal) => late.push(signal));
  assert.equal(late.length, 1, "told at once of the running term");
  unfollow();
  // The term ends when renewals fail past the renew deadline.
  const outage = server.addReactor({
    resource: "leases",
    react: () => new Response("down", { status: 503 }),
  });
  for (let i = 0; i < 12 && elector.isLeader(); i++) await clock.tick(1_000);
  assert.equal(elector.isLeader(), false);
  assert.equal(early[0].aborted, true);
  assert.equal(late[0].aborted, true);
  outage.cancel();
  for (let i = 0; i < 30 && !elector.isLeader(); i++) await clock.tick(1_000);
  await waitFor(() => early.length === 2);
  assert.equal(early[1].aborted, false);
  assert.equal(late.length, 1, "no news after unfollowing");
  await elector.stop();
  assert.equal(early[1].aborted, true);
  await running;
});
