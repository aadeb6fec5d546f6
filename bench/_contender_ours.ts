/**
 * Our `Watcher`, configured as the benchmark issue asks: indexed by
 * namespace and name, `metadata.managedFields` ignored (unless the task
 * says otherwise), memory store, default page size (500), `FetchClient`.
 *
 * @module
 */

import {
  FetchClient,
  type KubeObject,
  silentLogger,
  Watcher,
  type WatcherConfig,
  type WatcherOptions,
} from "../mod.ts";
import type { RequestOptions } from "../client/mod.ts";
import { MetricsRegistry } from "../metrics/mod.ts";
import { askingForMetadata, NATIVE_METADATA_ONLY } from "./_metadata_only.ts";
import {
  deadline,
  fail,
  now,
  type Outcome,
  readTask,
  report,
  settledHeap,
} from "./_contender.ts";
import { clockOffset, requestIsolatedEvents, SENT_AT } from "./_protocol.ts";
import { podName, podNamespace } from "./_pods.ts";

const task = readTask();
const outcome: Outcome = {};

/** Debounce interval for the flood and latency runs (ms). */
const FAST_DEBOUNCE = 5;

let onChange: (stats: { modified: number; isInitialSync: boolean }) => void =
  () => {};

/** With `metrics`: the meter every watcher reports to. */
const meter = task.metrics ? new MetricsRegistry() : undefined;
/** The watchers' options: silent, and metered when the task says so. */
const watcherOptions = {
  logger: silentLogger,
  ...(meter === undefined ? {} : { meter }),
} satisfies WatcherOptions;

/** One watcher of the bench pods, as configured by the task. */
function makeWatcher(
  client: FetchClient,
  fieldSelector?: string,
): Watcher {
  const metadataOnly = task.metadataOnly === true;
  const config: WatcherConfig = {
    gvr: { group: "", version: "v1", resource: task.resource ?? "pods" },
    namespace: task.namespace,
    indexBy: ["metadata.namespace", "metadata.name"],
    ignoreFields: task.ignoreFields === false ? [] : ["metadata.managedFields"],
    fieldSelector,
    // The sync runs keep the default; the others need every batch promptly,
    // and leading-edge latency does not depend on the interval.
    debounceInterval: (task.workload === "sync" && !task.fromResourceVersion) ||
        task.workload === "fanout"
      ? undefined
      : FAST_DEBOUNCE,
    onChange: (_store, stats) => onChange(stats),
    ...(task.initialList ? { initialList: task.initialList } : {}),
    ...(task.pageSize ? { pageSize: task.pageSize } : {}),
    ...(metadataOnly && NATIVE_METADATA_ONLY ? { metadataOnly: true } : {}),
  };
  return new Watcher(
    config,
    metadataOnly && !NATIVE_METADATA_ONLY ? askingForMetadata(client) : client,
    watcherOptions,
  );
}

const stopper = new AbortController();

if (task.workload === "fanout") {
  // Watchers of the same pods, each with its own field selector that keeps
  // all but one node's pods: what sharing one watch among consumers is for.
  const consumers = task.consumers ?? 1;
  const shared = new FetchClient({ server: task.server });
  const watchers = Array.from(
    { length: consumers },
    (_, k) =>
      makeWatcher(
        task.sharedClient ? shared : new FetchClient({ server: task.server }),
        `spec.nodeName!=node-${String(k).padStart(2, "0")}`,
      ),
  );
  const before = await settledHeap();
  const t0 = now();
  for (const w of watchers) void w.start(stopper.signal);
  const counts = await Promise.all(
    watchers.map((w) => w.waitForSync(AbortSignal.timeout(task.timeoutMs))),
  );
  outcome.syncMs = now() - t0;
  outcome.objects = task.objects;
  if (counts.some((n) => n === 0 || n > task.objects)) {
    fail(`unexpected sync counts ${counts.join(", ")}`);
  }
  outcome.heapBefore = before;
  outcome.heapAfter = await settledHeap();
  // Per pod of the data set, so that one and ten watchers compare.
  outcome.heapPerObject = (outcome.heapAfter - before) / task.objects;
  outcome.notes = [
    `${consumers} watcher(s) on ${
      task.sharedClient ? "one client" : "one client each"
    }; synced ${counts.join(", ")}`,
  ];
  report(outcome);
}

// A real API server: its kubeconfig (TLS with its CA, the user's token).
const client = task.kubeconfig
  ? FetchClient.fromKubeconfig(task.kubeconfig)
  : new FetchClient({ server: task.server });
const watcher = makeWatcher(
  task.fromResourceVersion
    ? listingAt(client, task.fromResourceVersion)
    : client,
);

/**
 * A client whose LISTs ask for the list exactly at `resourceVersion`, from
 * before the objects were created: the watch that follows starts there, and
 * the server replays every object to it as an ADDED event.
 */
function listingAt(client: FetchClient, resourceVersion: string): FetchClient {
  return {
    defaultNamespace: client.defaultNamespace,
    performRequest: (opts: RequestOptions) => {
      const query = opts.querystring;
      if (query && !query.has("watch") && !query.has("continue")) {
        query.set("resourceVersion", resourceVersion);
        query.set("resourceVersionMatch", "Exact");
      }
      return client.performRequest(opts as never);
    },
  } as unknown as FetchClient;
}

/** The replay's end: the `task.objects`-th object in the store. */
async function replayed(): Promise<number> {
  const done = deadline<void>(task.timeoutMs, `${task.objects} replayed`);
  onChange = () => {
    if (watcher.health().objects >= task.objects) done.resolve();
  };
  await watcher.waitForSync(AbortSignal.timeout(task.timeoutMs));
  if (watcher.health().objects < task.objects) await done.promise;
  return watcher.health().objects;
}

if (task.workload === "sync") {
  const before = task.heap ? await settledHeap() : 0;
  const rssBefore = Deno.memoryUsage().rss;
  const t0 = now();
  void watcher.start(stopper.signal);
  const count = task.fromResourceVersion
    ? await replayed()
    : await watcher.waitForSync(AbortSignal.timeout(task.timeoutMs));
  outcome.syncMs = now() - t0;
  outcome.objects = count;
  if (count !== task.objects) fail(`synced ${count} of ${task.objects}`);
  if (task.heap) {
    outcome.heapBefore = before;
    outcome.heapAfter = await settledHeap();
    outcome.rssBefore = rssBefore;
    outcome.rssAfter = Deno.memoryUsage().rss;
    outcome.heapPerObject = (outcome.heapAfter - before) / count;
  }
  report(outcome);
}

if (task.workload === "flood") {
  const want = task.events!;
  const done = deadline<void>(task.timeoutMs, `${want} flood events`);
  let applied = 0;
  onChange = (stats) => {
    if (stats.isInitialSync) return;
    // A batch counts objects, coalesced (a pod modified twice in one batch
    // is one entry): the events applied are the loop's count.
    applied = watcher.health().events;
    if (applied >= want) {
      outcome.lastAppliedAt = now();
      done.resolve();
    }
  };
  void watcher.start(stopper.signal);
  await watcher.waitForSync(AbortSignal.timeout(task.timeoutMs));
  await done.promise;
  outcome.applied = applied;
  outcome.clockOffset = await clockOffset(task.server);
  outcome.notes = [
    `debounceInterval ${FAST_DEBOUNCE} ms: the last batch fires at most that long after the last event`,
    ...(meter === undefined ? [] : ["with a metrics registry as the meter"]),
  ];
  report(outcome);
}

if (task.workload === "latency") {
  const want = task.count!;
  const latencies: number[] = [];
  let offset = 0;
  const done = deadline<void>(task.timeoutMs, `${want} isolated events`);
  const namespace = podNamespace(0);
  const name = podName(0);
  onChange = (stats) => {
    // The batch that closes the initial sync is not an isolated event.
    if (stats.isInitialSync || stats.modified === 0) return;
    const at = now();
    const [pod] = watcher.store.get(namespace, name) as KubeObject[];
    const sentAt = Number(pod.metadata.annotations?.[SENT_AT]);
    latencies.push(at - (sentAt - offset));
    if (latencies.length === want) done.resolve();
  };
  void watcher.start(stopper.signal);
  await watcher.waitForSync(AbortSignal.timeout(task.timeoutMs));
  offset = await clockOffset(task.server);
  await requestIsolatedEvents(task.server, want, task.gapMs!);
  await done.promise;
  outcome.latencies = latencies;
  outcome.clockOffset = offset;
  report(outcome);
}
