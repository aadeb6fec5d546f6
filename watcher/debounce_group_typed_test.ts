// A DebounceGroup typed per member, and on the clock of its watchers.
import assert from "node:assert/strict";
import { FetchClient } from "../client/fetch_client.ts";
import { FakeApiServer } from "../testing/fake_api_server.ts";
import { mockFetch } from "../testing/mock_fetch.ts";
import { FakeClock, waitFor } from "../testing/fake_clock.ts";
import { Watcher } from "./watcher.ts";
import { DebounceGroup } from "./debounce_group.ts";
import { type ChangeBatch, mergeChangeBatches } from "./change_batch.ts";
import { WatcherConfigError } from "./watcher_config.ts";
import { BY_IDENTITY, CONFIGMAPS } from "./_bulk_harness_test.ts";

const SERVICES = { group: "", version: "v1", resource: "services" };

/** True exactly when `A` and `B` are the same type. */
type Same<A, B> = (<X>() => X extends A ? 1 : 2) extends
  (<X>() => X extends B ? 1 : 2) ? true : false;
/** Compiles only for `true`. */
function check<_ extends true>(): void {}

/** Shaped as generated models are: optional metadata, no index signature. */
interface ConfigMap {
  metadata?: { namespace?: string; name?: string };
  data?: Record<string, string>;
}
interface Service {
  metadata?: { namespace?: string; name?: string };
  spec?: { ports?: { port: number }[] };
}

function batch<T extends ConfigMap | Service>(...created: T[]): ChangeBatch<T> {
  return {
    created: created.length,
    modified: 0,
    deleted: 0,
    total: created.length,
    isEmpty: created.length === 0,
    isInitialSync: false,
    objects: { created, modified: [], deleted: [] },
  };
}

Deno.test("DebounceGroup types its members by name: each watcher's batch arrives as its own type", async () => {
  const clock = new FakeClock();
  await using server = new FakeApiServer({ clock });
  using _fetch = mockFetch(server);
  const client = new FetchClient({ server: server.url });
  server.create(CONFIGMAPS, {
    metadata: { namespace: "shop", name: "settings" },
    data: { mode: "slow" },
  });
  const modes: string[] = [];
  const ports: number[] = [];
  await using group = new DebounceGroup<{
    configmaps: ChangeBatch<ConfigMap>;
    services: ChangeBatch<Service>;
  }>({
    interval: 1_000,
    clock,
    merge: mergeChangeBatches,
    onChange: (batches) => {
      const configMaps = batches.get("configmaps");
      const services = batches.get("services");
      check<Same<typeof configMaps, ChangeBatch<ConfigMap> | undefined>>();
      check<Same<typeof services, ChangeBatch<Service> | undefined>>();
      for (const m of configMaps?.objects.modified ?? []) {
        modes.push(m.current.data?.mode ?? "");
      }
      for (const s of services?.objects.created ?? []) {
        ports.push(...s.spec?.ports?.map((p) => p.port) ?? []);
      }
    },
  });
  const notAMember = () => {
    // @ts-expect-error: the group has no member of that name.
    group.member("secrets");
  };
  assert.equal(typeof notAMember, "function");
  check<Same<typeof group.names, readonly ("configmaps" | "services")[]>>();

  const watchers = [
    new Watcher<ConfigMap>(
      {
        gvr: CONFIGMAPS,
        indexBy: BY_IDENTITY,
        group: group.member("configmaps"),
      },
      client,
      { clock },
    ),
    new Watcher<Service>(
      {
        gvr: SERVICES,
        indexBy: BY_IDENTITY,
        group: group.member("services"),
      },
      client,
      { clock },
    ),
  ];
  const running = watchers.map((w) => w.start());
  await Promise.all(watchers.map((w) => w.waitForSync()));
  await waitFor(() => server.openWatchCount === 2);
  server.patch(CONFIGMAPS, "shop", "settings", { data: { mode: "fast" } });
  server.create(SERVICES, {
    metadata: { namespace: "shop", name: "web" },
    spec: { ports: [{ port: 80 }] },
  });
  await waitFor(() => watchers.every((w) => w.health().events === 1));
  await clock.tick(1_000);
  await waitFor(() => modes.length === 1 && ports.length === 1);
  assert.deepEqual({ modes, ports }, { modes: ["fast"], ports: [80] });
  await Promise.all(watchers.map((w) => w.stop()));
  await Promise.all(running);
});

Deno.test("DebounceGroup over a union of ChangeBatch types merges with mergeChangeBatches", async () => {
  const clock = new FakeClock();
  const seen: number[] = [];
  await using group = new DebounceGroup<
    ChangeBatch<ConfigMap> | ChangeBatch<Service>
  >({
    interval: 1_000,
    clock,
    merge: mergeChangeBatches,
    onChange: (batches) => {
      for (const b of batches.values()) seen.push(b.created);
    },
  });
  const services = group.member("services");
  services.add(batch<Service>({ metadata: { namespace: "a", name: "x" } }));
  await clock.tick(0);
  // Inside the interval: the two wait, and merge.
  services.add(batch<Service>({ metadata: { namespace: "a", name: "y" } }));
  services.add(batch<Service>({ metadata: { namespace: "a", name: "z" } }));
  group.member("configmaps").add(
    batch<ConfigMap>({ metadata: { namespace: "a", name: "c" } }),
  );
  await clock.tick(1_000);
  assert.deepEqual(seen, [1, 2, 1]);
});

Deno.test("A watcher on another clock than its DebounceGroup is refused", async () => {
  const clock = new FakeClock();
  const client = {
    performRequest: () => Promise.reject(new Error("not called")),
  };
  const message =
    "Invalid watcher config: group: must come from a DebounceGroup on this watcher's clock: give both the same clock (DebounceGroupOptions clock and WatcherOptions clock)";
  // The group on the system clock, the watcher on a FakeClock: its
  // batches would wait for real seconds.
  await using onSystem = new DebounceGroup<ChangeBatch>({
    interval: 1_000,
    merge: mergeChangeBatches,
    onChange: () => {},
  });
  assert.throws(
    () =>
      new Watcher(
        {
          gvr: CONFIGMAPS,
          indexBy: BY_IDENTITY,
          group: onSystem.member("configmaps"),
        },
        client,
        { clock },
      ),
    (e: unknown) =>
      e instanceof WatcherConfigError && e.field === "group" &&
      e.message === message,
  );
  // And the other way round.
  await using onFake = new DebounceGroup<ChangeBatch>({
    interval: 1_000,
    clock,
    merge: mergeChangeBatches,
    onChange: () => {},
  });
  assert.throws(
    () =>
      new Watcher({
        gvr: CONFIGMAPS,
        indexBy: BY_IDENTITY,
        group: onFake.member("configmaps"),
      }, client),
    (e: unknown) => e instanceof WatcherConfigError && e.message === message,
  );
  // The same clock, or both on the system clock: accepted.
  new Watcher(
    {
      gvr: CONFIGMAPS,
      indexBy: BY_IDENTITY,
      group: onFake.member("services"),
    },
    client,
    { clock },
  );
  new Watcher({
    gvr: CONFIGMAPS,
    indexBy: BY_IDENTITY,
    group: onSystem.member("services"),
  }, client);
});
