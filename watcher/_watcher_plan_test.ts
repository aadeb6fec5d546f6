import assert from "node:assert/strict";
import { WatcherConfigError } from "../config_error.ts";
import type { RestClient } from "../client/rest_client.ts";
import { FakeClock } from "../testing/fake_clock.ts";
import { MetricsRegistry } from "../metrics/registry.ts";
import { planWatcher } from "./_watcher_plan.ts";
import { planSingleWatcher } from "./single.ts";

const client = {
  performRequest: () => Promise.reject(new Error("unused")),
} as unknown as RestClient;
const gvr = { group: "", version: "v1", resource: "configmaps" };

/** The field of the `WatcherConfigError` `plan` throws. */
function refused(plan: () => unknown): string {
  try {
    plan();
  } catch (error) {
    assert.ok(error instanceof WatcherConfigError, String(error));
    return error.field;
  }
  assert.fail("no error thrown");
}

Deno.test("planWatcher gives one frozen plan, the loop settings one value in its form", () => {
  const clock = new FakeClock();
  const plan = planWatcher(
    {
      gvr,
      indexBy: ["metadata.namespace", "metadata.name"],
      pageSize: 50,
      initialList: "stream",
      debounceInterval: 0,
      onChange: () => {},
    },
    client,
    { clock, idleTimeoutMs: 120_000, firstByteTimeoutMs: 5_000 },
  );
  for (
    const part of [plan, plan.form, plan.form.loop, plan.store, plan.delivery]
  ) {
    assert.ok(Object.isFrozen(part));
  }
  assert.deepEqual(plan.form.loop, {
    pageSize: 50,
    initialList: "stream",
    idleTimeoutMs: 120_000,
    firstByteTimeoutMs: 5_000,
    clock,
    random: undefined,
    meter: undefined,
    // The `watcher` label of the loops' series: only with a meter.
    name: undefined,
  });
  assert.equal(plan.delivery.interval, 0);
  assert.equal(plan.delivery.suppressDuringSync, true);
  assert.equal(plan.what, "configmaps");
  assert.equal(plan.idleTimeoutMs, 120_000);
});

Deno.test("planWatcher names the first wrong option in the order the watcher checks them", () => {
  const base = { gvr, indexBy: ["metadata.name"], onChange: () => {} };
  // The loop's settings before the client and onSyncComplete.
  assert.equal(
    refused(() =>
      planWatcher(
        { ...base, pageSize: 0, onSyncComplete: 1 as never },
        {} as RestClient,
        {},
      )
    ),
    "pageSize",
  );
  // The keys before the gvr; the gvr before the loop's settings.
  assert.equal(
    refused(() =>
      planWatcher({ ...base, gvr: "pods" as never, indexBy: [] }, client, {})
    ),
    "indexBy",
  );
  assert.equal(
    refused(() =>
      planWatcher(
        { ...base, gvr: "pods" as never },
        client,
        { idleTimeoutMs: -1 },
      )
    ),
    "gvr",
  );
  assert.equal(
    refused(() => planWatcher(base, {} as RestClient, {})),
    "client",
  );
  assert.equal(
    refused(() =>
      planWatcher({ ...base, onSyncComplete: 1 as never }, client, {})
    ),
    "onSyncComplete",
  );
});

Deno.test("planSingleWatcher labels its loop's series with the object's name", () => {
  const meter = new MetricsRegistry();
  const plan = planSingleWatcher(
    {
      gvr,
      namespace: "haptic",
      name: "settings",
      onChange: () => {},
    },
    client,
    { meter, firstByteTimeoutMs: 5_000 },
  );
  assert.ok(Object.isFrozen(plan) && Object.isFrozen(plan.loop));
  assert.equal(plan.loop.name, "settings");
  assert.equal(plan.loop.meter, meter);
  assert.equal(plan.loop.firstByteTimeoutMs, 5_000);
  assert.equal(plan.what, "configmaps haptic/settings");
  assert.equal(
    refused(() =>
      planSingleWatcher(
        {
          gvr,
          name: "settings",
          onChange: () => {},
        },
        client,
        { idleTimeoutMs: "1s" as never },
      )
    ),
    "idleTimeoutMs",
  );
});
