/**
 * The peer: `@kubernetes/client-node` 2.0.1's `makeInformer` and its cache,
 * run under Deno, used the way its README shows (the list function is
 * `listPodForAllNamespaces()` without a limit: the informer calls it once
 * and does not follow `continue`).
 *
 * The package is imported dynamically from a computed specifier so that
 * `deno check .` (part of `deno task test`) neither resolves nor downloads
 * it; the types below cover just what this file uses.
 *
 * @module
 */

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
import { PEER_SPECIFIER } from "./_peer.ts";

interface PeerObject {
  metadata?: { annotations?: Record<string, string> };
}

interface PeerInformer {
  on(verb: string, cb: (obj: PeerObject) => void): void;
  start(): Promise<void>;
  stop(): Promise<void>;
  list(namespace?: string): PeerObject[];
}

interface PeerKubeConfig {
  loadFromOptions(options: unknown): void;
  loadFromFile(path: string): void;
  makeApiClient<T>(ctor: new (...args: never[]) => T): T;
}

interface PeerCoreV1Api {
  listPodForAllNamespaces(): Promise<{ items: PeerObject[] }>;
  listNamespacedConfigMap(
    request: { namespace: string },
  ): Promise<{ items: PeerObject[] }>;
}

interface PeerModule {
  KubeConfig: new () => PeerKubeConfig;
  CoreV1Api: new (...args: never[]) => PeerCoreV1Api;
  makeInformer(
    kc: PeerKubeConfig,
    path: string,
    list: () => Promise<unknown>,
  ): PeerInformer;
}

const task = readTask();
const specifier = PEER_SPECIFIER;
const k8s = await import(specifier) as PeerModule;

const kc = new k8s.KubeConfig();
if (task.kubeconfig) kc.loadFromFile(task.kubeconfig);
else {
  kc.loadFromOptions({
    clusters: [{ name: "bench", server: task.server, skipTLSVerify: true }],
    users: [{ name: "bench" }],
    contexts: [{ name: "bench", cluster: "bench", user: "bench" }],
    currentContext: "bench",
  });
}
const api = kc.makeApiClient(k8s.CoreV1Api);
// Pods across namespaces on the bench server; the real-server row watches
// the ConfigMaps of one namespace.
const namespace = task.namespace;
const informer = task.resource === "configmaps" && namespace
  ? k8s.makeInformer(
    kc,
    `/api/v1/namespaces/${namespace}/configmaps`,
    () => api.listNamespacedConfigMap({ namespace }),
  )
  : k8s.makeInformer(
    kc,
    "/api/v1/pods",
    () => api.listPodForAllNamespaces(),
  );
informer.on("error", (err) => fail(`informer error: ${String(err)}`));

const outcome: Outcome = {};
const synced = deadline<number>(task.timeoutMs, "the initial list");
let added = 0;
informer.on("add", () => {
  // The cache applies the whole list synchronously, calling "add" per item:
  // the last call is the moment the list is in the cache.
  if (++added === task.objects) synced.resolve(now());
});

if (task.workload === "sync") {
  const before = task.heap ? await settledHeap() : 0;
  const rssBefore = Deno.memoryUsage().rss;
  const t0 = now();
  void informer.start();
  const at = await synced.promise;
  outcome.syncMs = at - t0;
  outcome.objects = informer.list().length;
  if (task.heap) {
    outcome.heapBefore = before;
    outcome.heapAfter = await settledHeap();
    outcome.rssBefore = rssBefore;
    outcome.rssAfter = Deno.memoryUsage().rss;
    outcome.heapPerObject = (outcome.heapAfter - before) / outcome.objects;
  }
  report(outcome);
}

if (task.workload === "flood") {
  const want = task.events!;
  const done = deadline<void>(task.timeoutMs, `${want} flood events`);
  let applied = 0;
  informer.on("update", () => {
    if (++applied === want) {
      outcome.lastAppliedAt = now();
      done.resolve();
    }
  });
  void informer.start();
  await synced.promise;
  await done.promise;
  outcome.applied = applied;
  outcome.clockOffset = await clockOffset(task.server);
  report(outcome);
}

if (task.workload === "latency") {
  const want = task.count!;
  const latencies: number[] = [];
  let offset = 0;
  const done = deadline<void>(task.timeoutMs, `${want} isolated events`);
  informer.on("update", (obj) => {
    const sentAt = Number(obj.metadata?.annotations?.[SENT_AT]);
    latencies.push(now() - (sentAt - offset));
    if (latencies.length === want) done.resolve();
  });
  void informer.start();
  await synced.promise;
  offset = await clockOffset(task.server);
  await requestIsolatedEvents(task.server, want, task.gapMs!);
  await done.promise;
  outcome.latencies = latencies;
  outcome.clockOffset = offset;
  report(outcome);
}
