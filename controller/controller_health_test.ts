import assert from "node:assert/strict";
import { healthHandler } from "../health/health_handler.ts";
import { waitFor } from "../testing/fake_clock.ts";
import { ControllerHarness, widget } from "./_controller_harness_test.ts";

Deno.test("/readyz includes a controller: not ready until synced, ready once it is, not once stopped", async () => {
  await using h = new ControllerHarness({
    seed: (server) => server.create("widgets", widget("shop", "a")),
  });
  const handler = healthHandler({
    controllers: { widgets: h.controller },
    clock: h.clock,
  });
  const readyz = async () => {
    const response = await handler(
      new Request("http://localhost/readyz?verbose"),
    );
    return { status: response.status, text: await response.text() };
  };
  const before = await readyz();
  assert.equal(before.status, 503);
  assert.match(before.text, /controller\/widgets failed: not synced/);
  await h.started(1);
  const after = await readyz();
  assert.equal(after.status, 200);
  assert.match(after.text, /controller\/widgets ok/);
  const healthz = await handler(
    new Request("http://localhost/healthz?verbose"),
  );
  assert.match(await healthz.text(), /controller\/widgets\/widgets ok/);
  await h.controller.stop();
  assert.equal((await readyz()).status, 503);
});

Deno.test("Controller.health() shows its workers, queue and watchers", async () => {
  await using h = new ControllerHarness({
    seed: (server) => {
      server.create("widgets", widget("shop", "a"));
      server.create("widgets", widget("shop", "b"));
    },
    config: { maxConcurrent: 1 },
  });
  let release = () => {};
  h.reconcile = () => new Promise<void>((resolve) => release = resolve);
  h.start();
  await waitFor(() => h.runs.length === 1);
  const health = h.controller.health();
  assert.equal(health.state, "running");
  assert.equal(health.synced, true);
  assert.equal(health.leading, undefined);
  assert.deepEqual(health.workers, { active: 1, max: 1 });
  assert.deepEqual(health.queue, {
    waiting: 1,
    processing: 1,
    heldForWrites: 0,
  });
  assert.equal(health.watchers.widgets.objects, 2);
  release();
  await waitFor(() => h.runs.length === 2);
  release();
});
