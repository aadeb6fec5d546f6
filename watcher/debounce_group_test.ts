import assert from "node:assert/strict";
import { FakeClock, settle } from "../testing/fake_clock.ts";
import { RecordingLogger } from "../testing/recording_logger.ts";
import { DebounceGroup, type DebounceGroupOptions } from "./debounce_group.ts";
import { WatcherConfigError } from "../config_error.ts";

const INTERVAL = 1_000;

/** What one member changed: object names, in order. */
type Names = string[];

function setup(options: Partial<DebounceGroupOptions<Names>> = {}) {
  const clock = new FakeClock();
  const logger = new RecordingLogger();
  const calls: { at: number; batches: Record<string, Names> }[] = [];
  const group = new DebounceGroup<Names>({
    interval: INTERVAL,
    clock,
    logger,
    merge: (pending, next) => [...pending, ...next],
    onChange: (batches) => {
      calls.push({ at: clock.now(), batches: Object.fromEntries(batches) });
    },
    ...options,
  });
  return { clock, logger, calls, group };
}

Deno.test("DebounceGroup delivers a burst across three members in one call", async () => {
  const { clock, calls, group } = setup();
  const ingresses = group.member("ingresses");
  const services = group.member("services");
  const secrets = group.member("secrets");

  // A burst inside one synchronous run: one leading-edge call.
  secrets.add(["haptic/tls"]);
  ingresses.add(["shop/web"]);
  services.add(["shop/web"]);
  ingresses.add(["shop/api"]);
  await clock.tick(0);
  assert.deepEqual(calls, [{
    at: 0,
    batches: {
      ingresses: ["shop/web", "shop/api"],
      services: ["shop/web"],
      secrets: ["haptic/tls"],
    },
  }]);
  assert.deepEqual(
    Object.keys(calls[0].batches),
    ["ingresses", "services", "secrets"],
    "members in creation order, not in order of their first add",
  );

  // A burst spread over the refractory window: one call when it ends.
  await clock.tick(100);
  services.add(["shop/db"]);
  await clock.tick(300);
  ingresses.add(["shop/web"]);
  await clock.tick(300);
  secrets.add(["haptic/tls"]);
  services.add(["shop/cache"]);
  await clock.tick(299); // t = 999
  assert.equal(calls.length, 1);
  await clock.tick(1); // t = 1000
  assert.deepEqual(calls[1], {
    at: 1_000,
    batches: {
      ingresses: ["shop/web"],
      services: ["shop/db", "shop/cache"],
      secrets: ["haptic/tls"],
    },
  });
  await clock.tick(10_000);
  assert.equal(calls.length, 2, "nothing more to deliver");
  await group.stop();
});

Deno.test("DebounceGroup passes only the members with a pending batch", async () => {
  const { clock, calls, group } = setup();
  const a = group.member("a");
  group.member("b");
  const c = group.member("c");
  c.add(["x"]);
  a.add(["y"]);
  await clock.tick(0);
  assert.deepEqual(calls.map((call) => call.batches), [{ a: ["y"], c: ["x"] }]);
  await group.stop();
});

Deno.test("DebounceGroup fires at once again after a quiet interval", async () => {
  const { clock, calls, group } = setup();
  const a = group.member("a");
  a.add(["1"]);
  assert.equal(clock.pendingTimers, 0, "the leading edge needs no timer");
  await clock.tick(INTERVAL);
  a.add(["2"]);
  assert.equal(clock.pendingTimers, 0);
  await clock.tick(0);
  assert.deepEqual(calls.map((call) => call.at), [0, INTERVAL]);
  await group.stop();
});

Deno.test("DebounceGroup merges a member's batches with the caller's merge", async () => {
  const merged: [number, number][] = [];
  const clock = new FakeClock();
  const seen: Record<string, number>[] = [];
  const group = new DebounceGroup<number>({
    interval: INTERVAL,
    clock,
    merge: (pending, next) => {
      merged.push([pending, next]);
      return pending + next;
    },
    onChange: (batches) => {
      seen.push(Object.fromEntries(batches));
    },
  });
  const a = group.member("a");
  const b = group.member("b");
  a.add(1);
  a.add(2);
  b.add(10);
  a.add(3);
  await clock.tick(0);
  assert.deepEqual(seen, [{ a: 6, b: 10 }]);
  assert.deepEqual(merged, [[1, 2], [3, 3]], "a first batch is kept as given");
  await group.stop();
});

Deno.test("DebounceGroup keeps the pending batch when merge throws", async () => {
  const { clock, calls, group } = setup({
    merge: (pending, next) => {
      if (next[0] === "bad") throw new Error("cannot merge");
      return [...pending, ...next];
    },
  });
  const a = group.member("a");
  a.add(["one"]);
  assert.throws(() => a.add(["bad"]), /cannot merge/);
  a.add(["two"]);
  await clock.tick(0);
  assert.deepEqual(calls.map((call) => call.batches), [{ a: ["one", "two"] }]);
  await group.stop();
});

Deno.test("DebounceGroup never overlaps a slow async onChange", async () => {
  const clock = new FakeClock();
  const gates: PromiseWithResolvers<void>[] = [];
  const calls: Record<string, Names>[] = [];
  let active = 0;
  let maxActive = 0;
  const group = new DebounceGroup<Names>({
    interval: INTERVAL,
    clock,
    logger: new RecordingLogger(),
    merge: (pending, next) => [...pending, ...next],
    onChange: async (batches) => {
      calls.push(Object.fromEntries(batches));
      active++;
      maxActive = Math.max(maxActive, active);
      const gate = Promise.withResolvers<void>();
      gates.push(gate);
      await gate.promise;
      active--;
    },
  });
  const a = group.member("a");
  const b = group.member("b");

  a.add(["1"]);
  await clock.tick(100);
  assert.equal(calls.length, 1);
  b.add(["2"]);
  await clock.tick(5_000); // far past the interval: the call still runs
  a.add(["3"]);
  assert.equal(calls.length, 1, "the batches wait for the running call");
  assert.equal(clock.pendingTimers, 0);

  gates[0].resolve();
  await settle();
  assert.deepEqual(calls, [{ a: ["1"] }, { a: ["3"], b: ["2"] }]);
  gates[1].resolve();
  await settle();
  assert.equal(maxActive, 1);
  await group.stop();
});

Deno.test("DebounceGroup.stop() delivers what is pending, then nothing fires", async () => {
  const { clock, calls, group } = setup();
  const a = group.member("a");
  const b = group.member("b");
  a.add(["1"]);
  await clock.tick(0);
  b.add(["2"]); // held back by the interval
  a.add(["3"]);
  assert.equal(clock.pendingTimers, 1);
  assert.equal(group.hasPending, true);
  await group.stop();
  assert.equal(clock.pendingTimers, 0, "no timer left");
  assert.deepEqual(calls, [
    { at: 0, batches: { a: ["1"] } },
    { at: 0, batches: { a: ["3"], b: ["2"] } },
  ]);
  a.add(["4"]);
  assert.equal(group.hasPending, false, "dropped after stop");
  await group.flush();
  await clock.runAll();
  await settle();
  assert.equal(calls.length, 2);
  await group.stop(); // idempotent
});

Deno.test("DebounceGroup.stop() waits for a running call, then delivers what came meanwhile", async () => {
  const clock = new FakeClock();
  const gate = Promise.withResolvers<void>();
  const calls: Record<string, Names>[] = [];
  const group = new DebounceGroup<Names>({
    interval: INTERVAL,
    clock,
    merge: (pending, next) => [...pending, ...next],
    onChange: async (batches) => {
      calls.push(Object.fromEntries(batches));
      if (calls.length === 1) await gate.promise;
    },
  });
  const a = group.member("a");
  a.add(["1"]);
  await clock.tick(0);
  a.add(["2"]);
  let stopped = false;
  const stopping = group.stop().then(() => stopped = true);
  a.add(["3"]); // after stop(): dropped
  await settle();
  assert.equal(stopped, false, "the first call still runs");
  gate.resolve();
  await stopping;
  assert.deepEqual(calls, [{ a: ["1"] }, { a: ["2"] }]);
  await clock.runAll();
  assert.equal(calls.length, 2);
});

Deno.test("DebounceGroup.stop() with nothing pending makes no call", async () => {
  const { clock, calls, group } = setup();
  group.member("a");
  await group.stop();
  await clock.runAll();
  assert.equal(calls.length, 0);
});

Deno.test("DebounceGroup.flush() delivers at once and makes no empty call", async () => {
  const { clock, calls, group } = setup();
  const a = group.member("a");
  await group.flush();
  assert.equal(calls.length, 0, "nothing pending: no call");
  a.add(["1"]);
  await clock.tick(0);
  a.add(["2"]);
  await group.flush();
  assert.deepEqual(calls.map((call) => call.batches), [{ a: ["1"] }, {
    a: ["2"],
  }]);
  assert.equal(clock.pendingTimers, 0, "the interval timer is cancelled");
  await group.flush();
  assert.equal(calls.length, 2);
  await group.stop();
});

Deno.test("DebounceGroup delivers batches added from inside onChange in the next call", async () => {
  const clock = new FakeClock();
  const calls: Record<string, Names>[] = [];
  const group: DebounceGroup<Names> = new DebounceGroup<Names>({
    interval: INTERVAL,
    clock,
    merge: (pending, next) => [...pending, ...next],
    onChange: (batches) => {
      calls.push(Object.fromEntries(batches));
      if (calls.length === 1) b.add(["from inside"]);
    },
  });
  const a = group.member("a");
  const b = group.member("b");
  a.add(["1"]);
  await clock.tick(0);
  assert.equal(calls.length, 1);
  await clock.tick(INTERVAL);
  assert.deepEqual(calls, [{ a: ["1"] }, { b: ["from inside"] }]);
  await group.stop();
});

Deno.test("DebounceGroup logs a throwing or rejecting onChange and goes on", async () => {
  let n = 0;
  const { clock, logger, group } = setup({
    onChange: (batches) => {
      n++;
      if (n === 1) throw new Error("thrown");
      if (n === 2) return Promise.reject(new Error(`rejected ${batches.size}`));
    },
  });
  const a = group.member("a");
  const b = group.member("b");
  a.add(["1"]);
  await clock.tick(0);
  a.add(["2"]);
  b.add(["3"]);
  await clock.tick(INTERVAL);
  b.add(["4"]);
  await clock.tick(INTERVAL);
  assert.equal(n, 3);
  const errors = logger.at("error");
  assert.deepEqual(
    errors.map((r) => [
      r.message,
      (r.fields.error as Error).message,
      r.fields.members,
    ]),
    [
      ["Debounce group callback failed", "thrown", ["a"]],
      ["Debounce group callback failed", "rejected 2", ["a", "b"]],
    ],
  );
  await group.stop();
});

Deno.test("DebounceGroup rejects bad options and member names with a WatcherConfigError naming them", async () => {
  const merge = (a: number, b: number) => a + b;
  const onChange = () => {};
  const refused = (make: () => unknown, field: string, message: string) =>
    assert.throws(make, (e: unknown) => {
      assert.ok(e instanceof WatcherConfigError, String(e));
      assert.equal(e.field, field);
      assert.equal(e.message, `Invalid watcher config: ${field}: ${message}`);
      return true;
    });
  for (const interval of [0, -1, NaN, Infinity]) {
    refused(
      () => new DebounceGroup({ interval, merge, onChange }),
      "interval",
      `must be a positive number of milliseconds, got ${interval}`,
    );
  }
  refused(
    () =>
      new DebounceGroup<number>({
        interval: 10,
        merge: undefined as unknown as typeof merge,
        onChange,
      }),
    "merge",
    "must be a function",
  );
  refused(
    () =>
      new DebounceGroup<number>({
        interval: 10,
        merge,
        onChange: "log" as unknown as typeof onChange,
      }),
    "onChange",
    "must be a function",
  );
  refused(
    () =>
      new DebounceGroup<number>({
        interval: 10,
        merge,
        onChange,
        meter: 42 as never,
      }),
    "meter",
    "must be a Meter (an object with createCounter, createUpDownCounter, createHistogram, createObservableGauge), got 42",
  );
  const group = new DebounceGroup({ interval: 10, merge, onChange });
  refused(
    () => group.member(""),
    "member",
    'must be a non-empty string, got ""',
  );
  refused(
    () => group.member(7 as unknown as string),
    "member",
    "must be a non-empty string, got 7",
  );
  group.member("ingresses");
  refused(
    () => group.member("ingresses"),
    "member",
    '"ingresses" is already a member of this debounce group',
  );
  assert.deepEqual(group.names, ["ingresses"]);
  await group.stop();
});

Deno.test("DebounceGroup rejects an interval longer than a timer can wait (2³¹−1 ms)", async () => {
  // Above 2³¹−1 ms, setTimeout fires after 1 ms on Deno, Node and Bun.
  const merge = (a: number, b: number) => a + b;
  const onChange = () => {};
  assert.throws(
    () => new DebounceGroup({ interval: 2 ** 31, merge, onChange }),
    (e: unknown) =>
      e instanceof WatcherConfigError &&
      e.message ===
        "Invalid watcher config: interval: must be at most 2147483647 ms (2³¹−1), got 2147483648",
  );
  await new DebounceGroup({ interval: 2 ** 31 - 1, merge, onChange }).stop();
});

Deno.test("DebounceGroup on the system clock leaves no timer behind", async () => {
  // Deno's sanitizers fail this test if a timer outlives stop().
  const seen: number[] = [];
  await using group = new DebounceGroup<number>({
    interval: 60_000,
    merge: (a, b) => a + b,
    onChange: (batches) => {
      seen.push(batches.get("a")!);
    },
  });
  const a = group.member("a");
  a.add(1);
  await settle(1); // the leading edge
  a.add(2); // a real 60 s timer is pending now
  a.add(3);
  await group.stop();
  assert.deepEqual(seen, [1, 5]);
});
