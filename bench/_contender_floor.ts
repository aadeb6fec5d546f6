/**
 * The raw floor: `fetch`, line splitting and `JSON.parse`, storing nothing
 * (unless `keep` asks for a Map, as a heap reference). It lists with the
 * same pages as our Watcher (limit 500) so that both read the same requests;
 * `metadataOnly` asks for the metadata-only form as ours does.
 *
 * @module
 */

import { PARTIAL_OBJECT_METADATA_LIST_ACCEPT } from "../_internal/_objects.ts";
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

interface Pod {
  metadata: {
    namespace: string;
    name: string;
    resourceVersion: string;
    annotations?: Record<string, string>;
  };
}

const task = readTask();
const PATH = "/api/v1/pods";
const kept = new Map<string, unknown>();

/** Lists every page; returns the list's resourceVersion and item count. */
async function list(): Promise<{ resourceVersion: string; count: number }> {
  let token: string | undefined;
  let count = 0;
  let resourceVersion = "";
  do {
    const url = `${task.server}${PATH}?limit=500${
      token ? `&continue=${encodeURIComponent(token)}` : ""
    }`;
    const res = await fetch(url, {
      headers: task.metadataOnly
        ? { accept: PARTIAL_OBJECT_METADATA_LIST_ACCEPT }
        : {},
    });
    if (!res.ok) fail(`list answered ${res.status}`);
    const page = JSON.parse(await res.text()) as {
      metadata: { resourceVersion: string; continue?: string };
      items: Pod[];
    };
    count += page.items.length;
    if (task.keep) {
      for (const item of page.items) {
        kept.set(
          `${item.metadata.namespace}/${item.metadata.name}`,
          item,
        );
      }
    }
    token = page.metadata.continue;
    resourceVersion = page.metadata.resourceVersion;
  } while (token);
  return { resourceVersion, count };
}

/** Calls `onEvent` for every watch event until `signal` aborts. */
async function watch(
  resourceVersion: string,
  signal: AbortSignal,
  onEvent: (event: { type: string; object: Pod }) => void,
): Promise<void> {
  const res = await fetch(
    `${task.server}${PATH}?watch=1&resourceVersion=${resourceVersion}`,
    { signal },
  );
  if (!res.ok || !res.body) fail(`watch answered ${res.status}`);
  const decoder = new TextDecoder();
  let rest = "";
  try {
    for await (const chunk of res.body) {
      const text = rest + decoder.decode(chunk, { stream: true });
      let start = 0;
      let end = text.indexOf("\n");
      while (end >= 0) {
        onEvent(JSON.parse(text.slice(start, end)));
        start = end + 1;
        end = text.indexOf("\n", start);
      }
      rest = text.slice(start);
    }
  } catch (error) {
    if (!signal.aborted) throw error;
  }
}

const outcome: Outcome = {};
const stop = new AbortController();

if (task.workload === "sync") {
  const before = task.heap ? await settledHeap() : 0;
  const rssBefore = Deno.memoryUsage().rss;
  const t0 = now();
  const { count } = await list();
  outcome.syncMs = now() - t0;
  outcome.objects = count;
  if (task.heap) {
    outcome.heapBefore = before;
    outcome.heapAfter = await settledHeap();
    outcome.rssBefore = rssBefore;
    outcome.rssAfter = Deno.memoryUsage().rss;
    outcome.heapPerObject = (outcome.heapAfter - before) / count;
    if (task.keep && kept.size !== count) fail("kept map lost objects");
  }
  report(outcome);
}

if (task.workload === "flood") {
  const { resourceVersion } = await list();
  const want = task.events!;
  const done = deadline<void>(task.timeoutMs, `${want} flood events`);
  let applied = 0;
  void watch(resourceVersion, stop.signal, (event) => {
    if (task.keep) {
      const { namespace, name } = event.object.metadata;
      kept.set(`${namespace}/${name}`, event.object);
    }
    if (++applied === want) {
      outcome.lastAppliedAt = now();
      done.resolve();
    }
  });
  await done.promise;
  outcome.applied = applied;
  outcome.clockOffset = await clockOffset(task.server);
  report(outcome);
}

if (task.workload === "latency") {
  const { resourceVersion } = await list();
  const offset = await clockOffset(task.server);
  const want = task.count!;
  const latencies: number[] = [];
  const done = deadline<void>(task.timeoutMs, `${want} isolated events`);
  void watch(resourceVersion, stop.signal, (event) => {
    const sentAt = Number(event.object.metadata.annotations?.[SENT_AT]);
    latencies.push(now() - (sentAt - offset));
    if (latencies.length === want) done.resolve();
  });
  await requestIsolatedEvents(task.server, want, task.gapMs!);
  await done.promise;
  outcome.latencies = latencies;
  outcome.clockOffset = offset;
  report(outcome);
}
