import assert from "node:assert/strict";
import { settle, waitFor } from "../testing/fake_clock.ts";
import { ControllerHarness, widget } from "./_controller_harness_test.ts";
import { ControllerStoppedError } from "./errors.ts";

function blocking(h: ControllerHarness): { release(): void } {
  let release = () => {};
  h.reconcile = (_key, { signal }) =>
    new Promise<void>((resolve, reject) => {
      release = resolve;
      signal.addEventListener("abort", () => reject(signal.reason));
    });
  return { release: () => release() };
}

Deno.test("Controller.stop() drains: it resolves only once the reconcile in flight has finished, which is not aborted", async () => {
  await using h = new ControllerHarness({
    seed: (server) => server.create("widgets", widget("shop", "a")),
  });
  const gate = blocking(h);
  h.start();
  await waitFor(() => h.runs.length === 1);
  let stopped = false;
  const stopping = h.controller.stop().then(() => stopped = true);
  await settle(10);
  assert.equal(stopped, false);
  assert.equal(h.runs[0].end, undefined);
  gate.release();
  await stopping;
  assert.equal(h.runs[0].aborted, false);
  assert.equal(h.controller.health().state, "stopped");
  assert.equal(h.controller.health().workers.active, 0);
});

Deno.test("Controller.stop() with drainOnStop false aborts the reconciles in flight, counts no failure, and nothing runs after it", async () => {
  await using h = new ControllerHarness({
    seed: (server) => {
      server.create("widgets", widget("shop", "a"));
      server.create("widgets", widget("shop", "b"));
    },
    config: { drainOnStop: false, maxConcurrent: 1 },
  });
  blocking(h);
  h.start();
  await waitFor(() => h.runs.length === 1);
  await h.controller.stop();
  assert.equal(h.runs[0].aborted, true);
  assert.notEqual(h.runs[0].end, undefined);
  h.server.create("widgets", widget("shop", "c"));
  await h.clock.tick(60_000);
  await settle(10);
  assert.equal(h.runs.length, 1, "no reconcile after stop() resolved");
  assert.deepEqual(h.metric("controller_runtime_reconcile_errors_total"), [0]);
  assert.throws(() => h.controller.start(), ControllerStoppedError);
  assert.throws(() => h.controller.reconcileAll(), ControllerStoppedError);
});

Deno.test("Controller.stop() from inside a reconcile resolves at once, and no other reconcile starts", async () => {
  await using h = new ControllerHarness({
    seed: (server) => {
      for (const name of ["a", "b", "c"]) {
        server.create("widgets", widget("shop", name));
      }
    },
    config: { maxConcurrent: 1 },
  });
  let inner: "pending" | "resolved" = "pending";
  h.reconcile = async () => {
    await h.controller.stop();
    inner = "resolved";
  };
  await h.start();
  assert.equal(inner, "resolved");
  assert.equal(h.runs.length, 1);
  assert.equal(h.controller.health().state, "stopped");
});

Deno.test("Controller.stop() before its stores synced resolves, and reconciles nothing", async () => {
  await using h = new ControllerHarness({
    seed: (server) => server.create("widgets", widget("shop", "a")),
  });
  h.server.addReactor({ verb: "list", react: (call) => call.hold() });
  const running = h.start();
  await settle(10);
  await h.controller.stop();
  await running;
  assert.equal(h.runs.length, 0);
});
