import assert from "node:assert/strict";
import { FakeClock } from "../testing/fake_clock.ts";
import { WriteWaits, type Written } from "./_write_waits.ts";

/** WriteWaits over a cache the test sets, recording what it hands back. */
function waits(timeoutMs = 5_000) {
  const clock = new FakeClock();
  const cache = new Map<string, string>();
  const released: string[] = [];
  const expired: string[] = [];
  const w = new WriteWaits(clock, timeoutMs, {
    cached: (_store, _namespace, name) => cache.get(name),
    release: (key) => released.push(key),
    expired: (key, written) =>
      expired.push(`${key} ${written.name}@${written.resourceVersion}`),
  });
  /** The cache shows `name` at `rv` (a watch event for it came). */
  const show = (name: string, rv: string) => {
    cache.set(name, rv);
    w.observed("s", "ns", name);
  };
  return { clock, cache, released, expired, w, show };
}

function written(name: string, resourceVersion: string): Written {
  return { store: "s", namespace: "ns", name, resourceVersion };
}

Deno.test("WriteWaits: a key waits for each object written, released once, when the last is seen", () => {
  const { w, released, show, clock } = waits();
  w.expect("k", written("child", "20"));
  w.expect("k", written("self", "21"));
  assert.equal(w.ready("k"), false);
  show("self", "21");
  assert.deepEqual(released, []);
  show("child", "20");
  assert.deepEqual(released, ["k"]);
  show("child", "22");
  assert.deepEqual(released, ["k"], "released once");
  assert.equal(w.ready("k"), true);
  assert.equal(w.held, 0);
  assert.equal(clock.pendingTimers, 0);
});

Deno.test("WriteWaits: an object written twice waits for its later version, on the later write's deadline", async () => {
  const { w, released, expired, show, clock } = waits();
  w.expect("k", written("child", "20"));
  await clock.tick(4_000);
  w.expect("k", written("child", "25"));
  assert.equal(w.ready("k"), false);
  show("child", "20");
  await clock.tick(1_000); // the first write's deadline: not a deadline now
  assert.deepEqual(released, []);
  await clock.tick(3_999);
  assert.deepEqual(released, []);
  await clock.tick(1);
  assert.deepEqual(released, ["k"]);
  assert.equal(w.ready("k"), true);
  assert.deepEqual(expired, ["k child@25"]);
});

Deno.test("WriteWaits: one write's deadline passing while another is pending holds the key again; only it is reported", async () => {
  const { w, released, expired, show, clock } = waits();
  w.expect("k", written("child", "20"));
  await clock.tick(3_000);
  w.expect("k", written("self", "21"));
  assert.equal(w.ready("k"), false);
  await clock.tick(2_000);
  assert.deepEqual(released, ["k"], "the child's deadline queues the key");
  assert.equal(w.ready("k"), false, "the status is still awaited");
  assert.equal(w.held, 1);
  show("self", "21");
  assert.deepEqual(released, ["k", "k"]);
  assert.equal(w.ready("k"), true);
  assert.deepEqual(expired, ["k child@20"]);
  assert.equal(clock.pendingTimers, 0);
});

Deno.test("WriteWaits: a deletion of what was written ends its wait; a late deletion of an earlier incarnation does not", () => {
  const { w, released, show } = waits();
  // The reconcile deleted the child (uid u1) and created it again (u2);
  // the cache still holds u1, and u1's deletion comes after the write.
  w.expect("k", { ...written("child", "20"), uid: "u2" });
  assert.equal(w.ready("k"), false);
  w.observed("s", "ns", "child", { uid: "u1" });
  assert.deepEqual(released, []);
  w.observed("s", "ns", "child", { uid: "u2" });
  assert.deepEqual(released, ["k"]);
  assert.equal(w.ready("k"), true);
  // Without uids to tell incarnations apart, any deletion ends the wait.
  w.expect("k", written("child", "30"));
  assert.equal(w.ready("k"), false);
  w.observed("s", "ns", "child", {});
  assert.deepEqual(released, ["k", "k"]);
  w.expect("k", { ...written("child", "40"), uid: "u3" });
  assert.equal(w.ready("k"), false);
  show("child", "40");
  assert.deepEqual(released, ["k", "k", "k"]);
});

Deno.test("WriteWaits: clear() ends every wait of a held key and its timers", async () => {
  const { w, released, expired, clock } = waits();
  w.expect("k", written("child", "20"));
  w.expect("k", written("self", "21"));
  w.expect("other", written("self", "21"));
  assert.equal(w.ready("k"), false);
  w.clear("k");
  assert.equal(w.held, 0);
  assert.equal(clock.pendingTimers, 1, "other's wait is left");
  assert.equal(w.ready("k"), true);
  w.clearAll();
  await clock.tick(10_000);
  assert.deepEqual(released, []);
  assert.deepEqual(expired, []);
  assert.equal(clock.pendingTimers, 0);
});
