import assert from "node:assert/strict";
import { delay } from "../_delay.ts";
import { Cluster } from "./_harness_test.ts";

Deno.test("LeaderElector callbacks never overlap, and onStoppedLeading waits for onStartedLeading to settle", async () => {
  await using cluster = new Cluster();
  const clock = cluster.clock;
  const log: string[] = [];
  let running = 0;
  let maxRunning = 0;
  const slow = async (what: string, ms: number) => {
    running++;
    maxRunning = Math.max(maxRunning, running);
    log.push(`${what} begins`);
    await delay(ms, { clock });
    log.push(`${what} ends`);
    running--;
  };
  const a = cluster.replica({
    identity: "a",
    onNewLeader: (id) => slow(`new leader ${id}`, 300),
    onStartedLeading: async (signal) => {
      running++;
      maxRunning = Math.max(maxRunning, running);
      log.push("started begins");
      await new Promise((resolve) => signal.addEventListener("abort", resolve));
      log.push(`signal aborted, leading: ${a.elector.isLeader()}`);
      // Leader work winds down; nothing else may run meanwhile.
      await delay(700, { clock });
      log.push("started ends");
      running--;
    },
    onStoppedLeading: () => slow("stopped", 200),
  });
  await cluster.until(() => log.includes("started begins"), {
    maxMs: 1_000,
    what: "onStartedLeading",
  });
  // Cut a off: it gives up leading at its renew deadline.
  a.link.state = "503";
  const b = cluster.replica({ identity: "b" });
  await cluster.until(() => b.elector.isLeader(), {
    maxMs: 20_000,
    what: "b takes over",
  });
  await cluster.run(2_000);
  assert.deepEqual(log, [
    "new leader a begins",
    "new leader a ends",
    "started begins",
    "signal aborted, leading: false",
    "started ends",
    "stopped begins",
    "stopped ends",
  ]);
  assert.equal(maxRunning, 1);
  a.link.state = "up";
  await cluster.run(3_000);
  // a hears of b only after its own term's callbacks are done.
  assert.deepEqual(log.slice(7), ["new leader b begins", "new leader b ends"]);
  assert.equal(maxRunning, 1);
  assert.deepEqual(cluster.violations, []);
});

Deno.test("LeaderElector logs a throwing or rejecting callback and goes on", async () => {
  await using cluster = new Cluster();
  const a = cluster.replica({
    identity: "a",
    onNewLeader: () => {
      throw new Error("onNewLeader broke");
    },
    onStartedLeading: () => Promise.reject(new Error("leader work broke")),
    onStoppedLeading: () => {
      throw new Error("cleanup broke");
    },
  });
  await cluster.until(() => a.elector.isLeader(), { maxMs: 0, what: "a" });
  const renewed = cluster.spec().renewTime;
  await cluster.run(5_000);
  assert.equal(a.elector.isLeader(), true);
  assert.notEqual(cluster.spec().renewTime, renewed);
  await a.elector.stop();
  const errors = cluster.logger.at("error").map((r) =>
    `${r.message}: ${(r.fields.error as Error).message}`
  );
  assert.deepEqual(errors, [
    "onNewLeader failed: onNewLeader broke",
    "onStartedLeading failed: leader work broke",
    "onStoppedLeading failed: cleanup broke",
  ]);
  assert.equal(cluster.spec().holderIdentity, "");
});

Deno.test("LeaderElector.stop() waits for leader work, releases after it, and nothing fires once it resolved", async () => {
  await using cluster = new Cluster();
  const clock = cluster.clock;
  const events: string[] = [];
  const a = cluster.replica({
    identity: "a",
    onStartedLeading: async (signal) => {
      events.push("started");
      await new Promise((resolve) => signal.addEventListener("abort", resolve));
      await delay(1_500, { clock });
      // The Lease is still held while leader work winds down.
      events.push(`work done, holder ${cluster.spec().holderIdentity}`);
    },
    onStoppedLeading: () => {
      events.push("stopped");
    },
    onNewLeader: (id) => {
      events.push(`leader ${id}`);
    },
  });
  const b = cluster.replica({ identity: "b" });
  await cluster.until(() => events.includes("started"), {
    maxMs: 1_000,
    what: "a leads",
  });
  let stopped = false;
  const stopping = a.elector.stop().then(() => stopped = true);
  assert.equal(a.elector.isLeader(), false);
  await cluster.run(1_000);
  assert.equal(stopped, false, "stop() waits for onStartedLeading");
  assert.equal(b.elector.isLeader(), false, "nobody leads meanwhile");
  await cluster.run(600);
  await stopping;
  assert.deepEqual(events, [
    "leader a",
    "started",
    "work done, holder a",
    "stopped",
  ]);
  assert.equal(cluster.spec().holderIdentity, "");
  assert.equal(a.elector.health().leading, false);
  await cluster.until(() => b.elector.isLeader(), {
    maxMs: 2_000,
    what: "b takes over",
  });
  await cluster.run(5_000);
  assert.equal(events.length, 4, "nothing after stop() resolved");
});

Deno.test("LeaderElector: start(signal) stops on abort; stop() before start() requests nothing", async () => {
  await using cluster = new Cluster();
  const idle = cluster.replica({ identity: "idle", start: false });
  await idle.elector.stop();
  assert.throws(() => idle.elector.start(), /cannot be restarted/);
  assert.equal(cluster.server.requests.length, 0);

  const controller = new AbortController();
  const a = cluster.replica({ identity: "a", start: false });
  const done = a.elector.start(controller.signal);
  await cluster.until(() => a.elector.isLeader(), { maxMs: 0, what: "a" });
  controller.abort();
  await done;
  assert.equal(a.elector.isLeader(), false);
  assert.equal(cluster.spec().holderIdentity, "");
  assert.deepEqual(a.calls, ["leader:a", "started", "stopped"]);
});
