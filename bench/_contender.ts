/**
 * What every contender process shares: its task (one JSON argument), heap
 * measurement, and how it reports (one `RESULT {…}` line on stdout).
 *
 * @module
 */

import { now } from "./_protocol.ts";

/** The task `compare.ts` hands a contender process. */
export interface Task {
  /** `http://127.0.0.1:PORT` of the bench server. */
  server: string;
  /**
   * What to measure; `fanout` is a sync of `consumers` watchers of the same
   * pods, each with its own field selector.
   */
  workload: "sync" | "flood" | "latency" | "fanout";
  /** Pods in the list. */
  objects: number;
  /** Flood: events to wait for. */
  events?: number;
  /** Latency: isolated events to send, and the gap between them (ms). */
  count?: number;
  gapMs?: number;
  /** Sync: measure retained heap per object after the sync. */
  heap?: boolean;
  /** Ours: strip `metadata.managedFields` (default true). */
  ignoreFields?: boolean;
  /** Floor: keep the parsed objects in a Map (a heap reference). */
  keep?: boolean;
  /** Sync: ask for the metadata-only form (`PartialObjectMetadata`). */
  metadataOnly?: boolean;
  /** Ours: pass a metrics meter to the Watcher (the "flood with metrics" row). */
  metrics?: boolean;
  /** Fanout: how many watchers. */
  consumers?: number;
  /** Fanout: all watchers on one client (else one client each). */
  sharedClient?: boolean;
  /**
   * A real API server: the kubeconfig to use (its cluster, CA and user)
   * instead of the plain-HTTP bench server at `server`.
   */
  kubeconfig?: string;
  /** Watch one namespace only (default: all). */
  namespace?: string;
  /**
   * client-go against a real API server: `false` lists in pages instead of
   * its default streaming list (`sendInitialEvents`).
   */
  watchList?: boolean;
  /** client-go against a real API server: ask for protobuf instead of JSON. */
  protobuf?: boolean;
  /** Ours: the initial list mode (default: the Watcher's own, `"list"`). */
  initialList?: "list" | "stream";
  /** The real-server floor: the page size (default: one unpaged LIST). */
  limit?: number;
  /** Ours: the Watcher's `pageSize` (default: its own, 500). */
  pageSize?: number;
  /**
   * The real-server floor: read the one unpaged body as bytes and parse
   * nothing (the server's and the transport's share).
   */
  bytesOnly?: boolean;
  /** The real-server floor: the server's CA file and a bearer token. */
  caFile?: string;
  token?: string;
  /**
   * A real API server's replay: a resourceVersion from before the objects
   * were created. The contender lists exactly there (an empty list) and
   * watches from it, so the server replays every object as an ADDED event
   * from its watch cache; "synced" is then the `objects`-th object held.
   */
  fromResourceVersion?: string;
  /** What to watch, `pods` (the default) or `configmaps`. */
  resource?: "pods" | "configmaps";
  /** Give up after this many ms. */
  timeoutMs: number;
}

/** What a contender reports; the fields depend on the workload. */
export interface Outcome {
  /** Sync: ms from starting to the list being applied (fanout: all lists). */
  syncMs?: number;
  /** Objects held (or seen, for the floor) after the sync. */
  objects?: number;
  /** Heap: retained bytes per stored object after GC. */
  heapPerObject?: number;
  /** Heap: bytes used after GC, before and after the sync. */
  heapBefore?: number;
  heapAfter?: number;
  /** Heap: resident set size (bytes) before and after the sync. */
  rssBefore?: number;
  rssAfter?: number;
  /** Flood: when the last event was applied (our clock). */
  lastAppliedAt?: number;
  /** Flood: events applied. */
  applied?: number;
  /** Latency: ms from the server sending each event to the callback. */
  latencies?: number[];
  /** Server clock minus ours, as measured. */
  clockOffset?: number;
  /** Anything the contender wants to say about how it ran. */
  notes?: string[];
}

/** Reads the task from the first argument. */
export function readTask(): Task {
  const task = JSON.parse(Deno.args[0] ?? "{}") as Task;
  if (!task.server || !task.workload) {
    throw new Error("Expected a JSON task as the first argument");
  }
  return task;
}

/** Prints the outcome for `compare.ts` and exits. */
export function report(outcome: Outcome): never {
  console.log(`RESULT ${JSON.stringify(outcome)}`);
  Deno.exit(0);
}

/** Fails the run with a message `compare.ts` shows. */
export function fail(message: string): never {
  console.error(`FAILED ${message}`);
  Deno.exit(1);
}

/** Heap in use after full collections (needs `--expose-gc`). */
export async function settledHeap(): Promise<number> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) fail("run with --v8-flags=--expose-gc");
  for (let i = 0; i < 4; i++) {
    gc();
    // Let finalizers and pending microtasks run between collections.
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return Deno.memoryUsage().heapUsed;
}

/** A promise with its resolver, and a deadline that rejects it. */
export function deadline<T>(
  ms: number,
  what: string,
): { promise: Promise<T>; resolve: (value: T) => void; clear: () => void } {
  let resolve!: (value: T) => void;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const promise = new Promise<T>((res, rej) => {
    resolve = (value) => {
      clearTimeout(timer);
      res(value);
    };
    timer = setTimeout(
      () => rej(new Error(`Timed out after ${ms} ms waiting for ${what}`)),
      ms,
    );
  });
  return { promise, resolve, clear: () => clearTimeout(timer) };
}

/** Sorted copy and the q-quantile (nearest rank). */
export function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const rank = Math.min(
    sorted.length - 1,
    Math.max(0, Math.ceil(q * sorted.length) - 1),
  );
  return sorted[rank];
}

export { now };
