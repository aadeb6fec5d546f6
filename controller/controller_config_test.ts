import assert from "node:assert/strict";
import { FetchClient } from "../client/fetch_client.ts";
import { Controller } from "./controller.ts";
import { ControllerConfigError } from "./errors.ts";
import type { ControllerConfig } from "./controller_config.ts";

const WIDGETS = { group: "example.com", version: "v1", resource: "widgets" };
const CONFIGMAPS = { group: "", version: "v1", resource: "configmaps" };

function refused(
  config: Record<string, unknown>,
  field: string,
  wording: RegExp,
) {
  using client = new FetchClient({ server: "https://127.0.0.1:1" });
  assert.throws(
    () =>
      new Controller({
        name: "widgets",
        for: { gvr: WIDGETS, kind: "Widget" },
        reconcile: () => {},
        ...config,
      } as ControllerConfig, client),
    (error: unknown) => {
      assert.ok(error instanceof ControllerConfigError, String(error));
      assert.equal(error.field, field);
      assert.match(error.message, wording);
      assert.ok(!error.message.endsWith("."), "no final period");
      return true;
    },
  );
}

Deno.test("Controller refuses a wrong option, naming it", () => {
  refused({ name: "" }, "name", /must be a non-empty string/);
  refused({ reconcile: undefined }, "reconcile", /must be a function/);
  refused(
    { maxConcurrent: 0 },
    "maxConcurrent",
    /positive whole number, got 0/,
  );
  refused(
    { reconcileTimeoutMs: -1 },
    "reconcileTimeoutMs",
    /positive number of milliseconds/,
  );
  refused({ resyncEveryMs: Infinity }, "resyncEveryMs", /positive number/);
  refused(
    { readYourWritesTimeoutMs: 0 },
    "readYourWritesTimeoutMs",
    /positive/,
  );
  refused({ drainOnStop: "yes" }, "drainOnStop", /true or false/);
  refused({ leader: {} }, "leader", /LeaderElector/);
  refused({ shard: { owns: () => true } }, "shard", /ShardRing/);
  refused({ recorder: {} }, "recorder", /EventRecorder/);
  refused(
    { for: { gvr: WIDGETS }, recorder: { event() {} } },
    "for.kind",
    /required with recorder/,
  );
  refused({ workers: 3 }, "workers", /is not a/);
  refused(
    { queue: { backoff: { baseMs: -5 } } },
    "queue.backoff.baseMs",
    /positive number/,
  );
  refused({ queue: { name: "x" } }, "queue.name", /is not a/);
});

Deno.test("Controller refuses a wrong resource, naming its path", () => {
  refused(
    { for: { gvr: WIDGETS }, owns: [{ gvr: CONFIGMAPS }] },
    "for.kind",
    /required with owns/,
  );
  refused(
    { for: { gvr: WIDGETS, labelSelector: "app in (" } },
    "for.labelSelector",
    /./,
  );
  refused(
    { owns: [{ gvr: CONFIGMAPS, indexBy: ["metadata.name"] }] },
    "owns[0].indexBy",
    /set by the controller/,
  );
  refused(
    {
      owns: [{ gvr: CONFIGMAPS }],
      watches: [{ gvr: CONFIGMAPS, map: () => [] }],
    },
    "watches[0].name",
    /store name of owns\[0\] too/,
  );
  refused(
    { watches: [{ gvr: CONFIGMAPS }] },
    "watches[0].map",
    /must be a function/,
  );
  refused(
    { owns: [{ gvr: CONFIGMAPS, map: () => [] }] },
    "owns[0].map",
    /only for watches/,
  );
  refused({ owns: "configmaps" }, "owns", /array/);
  refused(
    { for: { gvr: WIDGETS, shard: {} } },
    "for.shard",
    /set by the controller/,
  );
  refused(
    { for: { gvr: { group: "", version: "v1" } } },
    "for.gvr.resource",
    /non-empty string/,
  );
});
