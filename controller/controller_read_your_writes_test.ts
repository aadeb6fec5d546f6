import assert from "node:assert/strict";
import { ResourceClient } from "../client/resource_client.ts";
import { settle, waitFor } from "../testing/fake_clock.ts";
import {
  CONFIGMAPS,
  ControllerHarness,
  widget,
  WIDGETS,
} from "./_controller_harness_test.ts";
import { reached } from "./_write_waits.ts";
import type { FakeWatchStream } from "../testing/reactor.ts";
import type { KubeObject } from "../types.ts";

/**
 * Holds back the configmaps watch's events until `flush()`: a cache that
 * lags behind the writes, as one does under load.
 */
function laggingChildren(
  h: ControllerHarness,
): { flush(count?: number): void } {
  const held: string[] = [];
  let stream: FakeWatchStream | undefined;
  h.server.addReactor({
    verb: "watch",
    resource: "configmaps",
    react: (call) =>
      call.serve({
        watch: {
          line: (text, s) => {
            stream = s;
            held.push(text);
            return "";
          },
        },
      }),
  });
  return {
    /** Sends the first `count` lines held back (all of them by default). */
    flush(count = held.length) {
      const lines = held.splice(0, count);
      for (const line of lines) stream!.write(line);
    },
  };
}

/** A reconcile that writes the key's child, then looks again at once. */
function writer(h: ControllerHarness, opts: { tell: boolean }) {
  const configMaps = new ResourceClient({ client: h.client, gvr: CONFIGMAPS });
  const seen: (string | undefined)[] = [];
  const wrote: string[] = [];
  h.reconcile = async (_key, context) => {
    const [child] = context.store("configmaps").get("shop", "child");
    seen.push(child?.metadata.resourceVersion);
    if (h.runs.length > 2) return;
    const written = await configMaps.apply({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { namespace: "shop", name: "child" },
      data: { run: String(h.runs.length) },
    }, { fieldManager: "widgets", namespace: "shop" });
    wrote.push(written.metadata!.resourceVersion!);
    if (opts.tell) context.wrote(written, "configmaps");
    return { requeueAfter: 0 };
  };
  return { seen, wrote };
}

Deno.test("Controller: a reconcile after wrote() sees its own write in the cache", async () => {
  await using h = new ControllerHarness({
    seed: (server) => server.create("widgets", widget("shop", "a")),
    config: { watches: [{ gvr: CONFIGMAPS, map: () => [] }] },
  });
  const { seen, wrote } = writer(h, { tell: true });
  await h.started(3);
  await settle(10);
  assert.equal(seen[0], undefined);
  assert.ok(
    reached(seen[1]!, wrote[0]),
    `second run saw ${seen[1]}, wrote ${wrote[0]}`,
  );
  assert.ok(
    reached(seen[2]!, wrote[1]),
    `third run saw ${seen[2]}, wrote ${wrote[1]}`,
  );
});

/** A reconcile that writes the key's child, then the Widget itself. */
function twoWriter(h: ControllerHarness) {
  const configMaps = new ResourceClient({ client: h.client, gvr: CONFIGMAPS });
  const widgets = new ResourceClient({ client: h.client, gvr: WIDGETS });
  const seen: (string | undefined)[] = [];
  const wrote: { child?: string } = {};
  let cached: (() => KubeObject | undefined) | undefined;
  h.reconcile = async (_key, context) => {
    cached ??= () => context.store("widgets").get("shop", "a")[0];
    seen.push(
      context.store("configmaps").get("shop", "child")[0]?.metadata
        .resourceVersion,
    );
    if (h.runs.length > 1) return;
    const child = await configMaps.apply({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { namespace: "shop", name: "child" },
      data: { run: "1" },
    }, { fieldManager: "widgets", namespace: "shop" });
    wrote.child = child.metadata!.resourceVersion!;
    context.wrote(child, "configmaps");
    // Then the Widget, whose watch does not lag.
    context.wrote(
      await widgets.patch("a", { metadata: { labels: { done: "1" } } }, {
        namespace: "shop",
      }),
    );
  };
  /** The reconcile's write of the Widget is in the cache. */
  const selfCached = () =>
    waitFor(() => cached?.()?.metadata.labels?.done === "1", {
      description: "the Widget's label in the cache",
    });
  return { seen, wrote, selfCached };
}

Deno.test("Controller: a reconcile that wrote two objects waits for both, not only the last (its own write seen, its child not yet)", async () => {
  await using h = new ControllerHarness({
    seed: (server) => server.create("widgets", widget("shop", "a")),
    config: { watches: [{ gvr: CONFIGMAPS, map: () => [] }] },
  });
  const children = laggingChildren(h);
  const { seen, wrote, selfCached } = twoWriter(h);
  await h.started(1);
  await selfCached();
  await settle(10);
  assert.equal(h.runs.length, 1, "ran again before its child was cached");
  assert.equal(h.controller.health().queue.heldForWrites, 1);
  children.flush();
  await h.ended(2);
  assert.ok(
    seen[1] !== undefined && reached(seen[1], wrote.child!),
    `second run saw child ${seen[1]}, wrote ${wrote.child}`,
  );
});

Deno.test("Controller: of two writes, the one the cache never shows holds the key until the timeout, and only it is warned of", async () => {
  await using h = new ControllerHarness({
    seed: (server) => server.create("widgets", widget("shop", "a")),
    config: {
      watches: [{ gvr: CONFIGMAPS, map: () => [] }],
      readYourWritesTimeoutMs: 5_000,
    },
  });
  laggingChildren(h);
  const { seen, wrote, selfCached } = twoWriter(h);
  await h.started(1);
  await selfCached();
  await h.clock.tick(4_999);
  await settle(10);
  assert.equal(h.runs.length, 1);
  await h.clock.tick(1);
  await h.ended(2);
  assert.equal(seen[1], undefined, "the child's event never came");
  const warnings = h.logger.records.filter((r) =>
    r.message.startsWith("Cache did not reach")
  );
  assert.deepEqual(warnings.map((w) => [w.fields?.store, w.fields?.wrote]), [
    ["configmaps", wrote.child],
  ]);
});

Deno.test("Controller: without wrote() the next reconcile can read the cache from before its write (the control)", async () => {
  await using h = new ControllerHarness({
    seed: (server) => server.create("widgets", widget("shop", "a")),
    config: { watches: [{ gvr: CONFIGMAPS, map: () => [] }] },
  });
  laggingChildren(h);
  const { seen } = writer(h, { tell: false });
  await h.started(2);
  assert.equal(seen[1], undefined, "the write's event had not arrived");
});

Deno.test("Controller: a write the cache never shows holds the key until readYourWritesTimeoutMs, then runs with a warning", async () => {
  await using h = new ControllerHarness({
    seed: (server) => server.create("widgets", widget("shop", "a")),
    config: { readYourWritesTimeoutMs: 5_000 },
  });
  h.reconcile = (_key, context) => {
    if (h.runs.length > 1) return;
    const current = context.get()!;
    // A version from the future: what a write to an unwatched store looks like.
    context.wrote({
      metadata: { ...current.metadata, resourceVersion: "999999" },
    });
    return { requeueAfter: 0 };
  };
  await h.started(1);
  await settle(10);
  assert.equal(h.runs.length, 1);
  assert.equal(h.controller.health().queue.heldForWrites, 1);
  await h.clock.tick(4_999);
  await settle(10);
  assert.equal(h.runs.length, 1);
  await h.clock.tick(1);
  await h.ended(2);
  const warning = h.logger.records.find((r) =>
    r.message.startsWith("Cache did not reach")
  );
  assert.equal(warning?.fields?.wrote, "999999");
  assert.equal(warning?.fields?.key, "shop/a");
  assert.equal(h.controller.health().queue.heldForWrites, 0);
});

Deno.test("Controller: a held key is released when the object it wrote is deleted, though the write's own event never came", async () => {
  await using h = new ControllerHarness({
    seed: (server) => server.create("widgets", widget("shop", "a")),
  });
  // The Widgets' watch loses its MODIFIED events: the cache never shows the
  // write, only the deletion after it.
  h.server.addReactor({
    verb: "watch",
    resource: "widgets",
    react: (call) =>
      call.serve({
        watch: {
          line: (text) => text.includes('"type":"MODIFIED"') ? "" : undefined,
        },
      }),
  });
  const widgets = new ResourceClient({ client: h.client, gvr: WIDGETS });
  h.reconcile = async (_key, context) => {
    if (h.runs.length > 1) return;
    context.wrote(
      await widgets.patch("a", { metadata: { labels: { done: "1" } } }, {
        namespace: "shop",
      }),
    );
    return { requeueAfter: 0 };
  };
  await h.started(1);
  await waitFor(() => h.controller.health().queue.heldForWrites === 1);
  h.server.delete("widgets", "shop", "a");
  await h.ended(2);
  assert.equal(h.runs[1].saw, undefined);
});

Deno.test("Controller: a late deletion of the object a reconcile deleted and created again does not release its key", async () => {
  await using h = new ControllerHarness({
    seed: (server) => {
      server.create("widgets", widget("shop", "a"));
      server.create("configmaps", {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { namespace: "shop", name: "child" },
      });
    },
    config: { watches: [{ gvr: CONFIGMAPS, map: () => [] }] },
  });
  const children = laggingChildren(h);
  const configMaps = new ResourceClient({ client: h.client, gvr: CONFIGMAPS });
  const seen: (string | undefined)[] = [];
  let created: string | undefined;
  let cached: (() => KubeObject | undefined) | undefined;
  h.reconcile = async (_key, context) => {
    cached ??= () => context.store("configmaps").get("shop", "child")[0];
    seen.push(cached()?.metadata.uid);
    if (h.runs.length > 1) return;
    await configMaps.delete("child", { namespace: "shop" });
    const child = await configMaps.create({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { namespace: "shop", name: "child" },
    }, { namespace: "shop" });
    created = child.metadata!.uid;
    context.wrote(child, "configmaps");
    return { requeueAfter: 0 };
  };
  await h.started(1);
  await waitFor(() => h.controller.health().queue.heldForWrites === 1);
  children.flush(1); // the old child's deletion only
  await waitFor(() => cached!() === undefined, {
    description: "the old child's deletion in the cache",
  });
  await settle(10);
  assert.equal(h.runs.length, 1, "ran again on the old child's deletion");
  children.flush();
  await h.ended(2);
  assert.notEqual(seen[0], created);
  assert.equal(seen[1], created, "the second run saw the new child");
});

Deno.test("resourceVersions compare as integers, others only when equal", () => {
  assert.equal(reached("10", "9"), true);
  assert.equal(reached("9", "10"), false);
  assert.equal(reached("10", "10"), true);
  assert.equal(reached("123456789012345678901", "123456789012345678900"), true);
  assert.equal(reached("abc", "abc"), true);
  assert.equal(reached("abd", "abc"), false);
});
