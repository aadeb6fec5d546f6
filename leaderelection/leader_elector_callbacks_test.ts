import assert from "node:assert/strict";
import { delay } from "../_internal/_time.ts";
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

Deno.test("LeaderElector: await stop() inside each callback resolves at once; the rest of the stop follows when the callback returns", async (t) => {
  for (
    const inside of ["onNewLeader", "onStartedLeading", "onStoppedLeading"]
  ) {
    await t.step(inside, async () => {
      await using cluster = new Cluster();
      const log: string[] = [];
      const stopHere = async (what: string) => {
        log.push(`${what} begins`);
        await cluster.clock.tick(0); // an await before the stop, as real work has
        await a.elector.stop();
        log.push(`${what}: stop resolved, leading: ${a.elector.isLeader()}`);
      };
      let lost = false;
      const a = cluster.replica({
        identity: "a",
        onNewLeader: (id) => {
          log.push(`leader ${id}`);
          if (inside === "onNewLeader") return stopHere("onNewLeader");
        },
        onStartedLeading: async (signal) => {
          if (inside === "onStartedLeading") {
            await stopHere("onStartedLeading");
            log.push(`signal aborted: ${signal.aborted}`);
            return;
          }
          log.push("onStartedLeading begins");
          await new Promise((resolve) =>
            signal.addEventListener("abort", resolve)
          );
        },
        onStoppedLeading: () => {
          if (inside === "onStoppedLeading") {
            return stopHere("onStoppedLeading");
          }
          log.push("onStoppedLeading");
        },
      });
      let done = false;
      a.done.then(() => done = true);
      if (inside === "onStoppedLeading") {
        await cluster.until(() => log.includes("onStartedLeading begins"), {
          maxMs: 1_000,
          what: "a leads",
        });
        // Lose the term (renewals fail) so onStoppedLeading runs on its own.
        a.link.state = "503";
        lost = true;
      }
      await cluster.until(() => log.some((l) => l.includes("stop resolved")), {
        maxMs: 20_000,
        what: `stop() resolving inside ${inside}`,
      });
      a.link.state = "up";
      await cluster.until(() => done, { maxMs: 10_000, what: "start() ends" });
      assert.equal(a.elector.isLeader(), false);
      const expected: Record<string, string[]> = {
        onNewLeader: [
          "leader a",
          "onNewLeader begins",
          "onNewLeader: stop resolved, leading: false",
        ],
        onStartedLeading: [
          "leader a",
          "onStartedLeading begins",
          "onStartedLeading: stop resolved, leading: false",
          "signal aborted: true",
          "onStoppedLeading",
        ],
        onStoppedLeading: [
          "leader a",
          "onStartedLeading begins",
          "onStoppedLeading begins",
          "onStoppedLeading: stop resolved, leading: false",
        ],
      };
      assert.deepEqual(log, expected[inside]);
      // Released when a still held the Lease as last seen (not once it lost it).
      if (!lost) assert.equal(cluster.spec().holderIdentity, "");
      // A stop() from outside, later, is the same finished stop.
      await a.elector.stop();
    });
  }
});

Deno.test("LeaderElector: after a stop() from inside a callback, the news queued behind it is dropped and the term's onStoppedLeading still runs", async () => {
  await using cluster = new Cluster();
  const log: string[] = [];
  let heardOfB = () => {};
  const b: { seen: Promise<void> } = {
    seen: new Promise((resolve) => heardOfB = resolve),
  };
  const a = cluster.replica({
    identity: "a",
    onNewLeader: (id) => void log.push(`leader ${id}`),
    onStartedLeading: async (signal) => {
      await new Promise((resolve) => signal.addEventListener("abort", resolve));
      // Wind down until a has read b in the Lease (its news waits behind us).
      await b.seen;
      await a.elector.stop();
      log.push("stop resolved");
    },
    onStoppedLeading: () => void log.push("stopped"),
  });
  await cluster.until(() => a.elector.isLeader(), { maxMs: 1_000, what: "a" });
  a.link.state = "503";
  const other = cluster.replica({ identity: "b" });
  await cluster.until(() => other.elector.isLeader(), {
    maxMs: 20_000,
    what: "b takes over",
  });
  a.link.state = "up";
  await cluster.until(() => a.elector.leader() === "b", {
    maxMs: 5_000,
    what: "a reads b",
  });
  heardOfB();
  await cluster.until(() => log.includes("stopped"), {
    maxMs: 5_000,
    what: "onStoppedLeading",
  });
  await a.done;
  assert.deepEqual(log, ["leader a", "stop resolved", "stopped"]);
});
