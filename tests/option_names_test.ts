// Every options object refuses names it does not take, through one checker
// (`_option_checks.ts`), in one shape: `Invalid <what>: <name>: is not a
// <type> option`, with the known name it most likely meant. A name
// silently ignored is a setting silently not applied.
import assert from "node:assert/strict";
import {
  CachedStore,
  DebounceGroup,
  FetchClient,
  IndexSynchronizationTracker,
  KubeConfigError,
  LeaderElector,
  MemoryStore,
  SingleWatcher,
  Watcher,
  WatcherConfigError,
} from "../mod.ts";
import { consoleLogger } from "../logger.ts";
import { Backoff, ListWatch } from "../listwatch/mod.ts";
import { LeaderElectionConfigError } from "../leaderelection/mod.ts";
import { Debouncer } from "../watcher/mod.ts";
import { TrackerConfigError } from "../indextracker/mod.ts";
import { FakeApiServer } from "../testing/mod.ts";
import { ProcessMetrics } from "../health/mod.ts";
import { MetricsRegistry } from "../metrics/mod.ts";

const client = {
  performRequest: () => Promise.reject(new Error("not called")),
};
const gvr = { group: "", version: "v1", resource: "configmaps" };
const sink = { onPage() {}, onListed() {}, onEvent() {} };

const cases: [
  what: string,
  make: () => unknown,
  error: new (...args: never[]) => Error,
  message: string,
][] = [
  [
    "Watcher",
    () =>
      new Watcher({
        gvr,
        indexBy: ["metadata.name"],
        onChange() {},
        debounceIntervall: 5,
      } as never, client),
    WatcherConfigError,
    "Invalid watcher config: debounceIntervall: is not a Watcher config option (did you mean debounceInterval?)",
  ],
  [
    "SingleWatcher",
    () =>
      new SingleWatcher({
        gvr,
        namespace: "shop",
        name: "a",
        onChange() {},
        skipp: "none",
      } as never, client),
    WatcherConfigError,
    "Invalid watcher config: skipp: is not a SingleWatcher config option (did you mean skip?)",
  ],
  [
    "FetchClient",
    () => new FetchClient({ server: "https://x", tokn: "t" } as never),
    KubeConfigError,
    "Invalid FetchClient config: tokn: is not a FetchClientConfig option (did you mean token?)",
  ],
  [
    "LeaderElector",
    () =>
      new LeaderElector({
        lease: { namespace: "a", name: "b" },
        identity: "c",
        onStartedLeading() {},
        onNewLeder() {},
      } as never, client),
    LeaderElectionConfigError,
    "Invalid leader election config: onNewLeder: is not a LeaderElectorConfig option (did you mean onNewLeader?)",
  ],
  [
    "DebounceGroup",
    () =>
      new DebounceGroup({
        interval: 1,
        merge: (a: number) => a,
        onChange() {},
        intervalMs: 1,
      } as never),
    WatcherConfigError,
    "Invalid watcher config: intervalMs: is not a DebounceGroupOptions option (did you mean interval?)",
  ],
  [
    "Debouncer",
    () => new Debouncer({ interval: 1, onChange() {}, clok: 1 } as never),
    WatcherConfigError,
    "Invalid watcher config: clok: is not a DebouncerOptions option (did you mean clock?)",
  ],
  [
    "IndexSynchronizationTracker",
    () => new IndexSynchronizationTracker(["a"], { onSynced() {} } as never),
    TrackerConfigError,
    "Invalid IndexSynchronizationTracker config: onSynced: is not an IndexSynchronizationTrackerOptions option",
  ],
  [
    "CachedStore",
    () => new CachedStore({ client, gvr, ttlMs: 5 } as never),
    TypeError,
    "Invalid CachedStore options: ttlMs: is not a CachedStoreOptions option",
  ],
  [
    "MemoryStore",
    () => new MemoryStore({ keys: 2 } as never),
    TypeError,
    "Invalid MemoryStore options: keys: is not a MemoryStoreOptions option",
  ],
  [
    "ListWatch",
    () =>
      new ListWatch(client, sink as never, {
        gvr,
        backoff: { maxMS: 1 },
      } as never),
    WatcherConfigError,
    "Invalid watcher config: backoff.maxMS: is not a BackoffOptions option (did you mean maxMs?)",
  ],
  [
    "Backoff",
    () => new Backoff({ initial: 5 } as never),
    TypeError,
    "Invalid Backoff options: initial: is not a BackoffOptions option",
  ],
  [
    "consoleLogger",
    () => consoleLogger({ levle: "debug" } as never),
    TypeError,
    "Invalid consoleLogger options: levle: is not a ConsoleLoggerOptions option (did you mean level?)",
  ],
  [
    "ProcessMetrics",
    () =>
      new ProcessMetrics(new MetricsRegistry(), { intervalMs: 10 } as never),
    TypeError,
    "Invalid ProcessMetrics options: intervalMs: is not a ProcessMetricsOptions option",
  ],
  [
    "FakeApiServer",
    () => new FakeApiServer({ tokens: "x" } as never),
    TypeError,
    "Invalid FakeApiServer options: tokens: is not a FakeApiServerOptions option (did you mean token?)",
  ],
];

for (const [what, make, error, message] of cases) {
  Deno.test(`${what} refuses an option name it does not take, in the shared words`, () => {
    assert.throws(make, (e: unknown) => {
      assert.ok(e instanceof error, `${what}: ${e}`);
      assert.equal((e as Error).message, message);
      return true;
    });
  });
}
