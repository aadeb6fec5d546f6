/**
 * The bench-only API server, run in its own process by `compare.ts` so that
 * serving never competes with a contender's event loop. It speaks the part
 * of the Kubernetes list/watch protocol that the three contenders use
 * (`GET /api/v1/pods` with `limit`/`continue`, and with `watch`), from bytes
 * serialized once at start-up, so every contender reads the same bytes and
 * the server does no per-request JSON work.
 *
 * Lists asked for `as=PartialObjectMetadataList` (negotiated from `Accept`
 * as the API server does, 406 when it cannot be served) answer the
 * metadata-only form, stamped per page from a template (`_stamp.ts`) so
 * that a million objects cost no memory; full objects come from the
 * pre-serialized set.
 *
 * Control routes under `/_bench/` set the scenario for the next contender:
 * how many pods the list holds, and what the next watch does (stay idle,
 * deliver the pre-built flood as fast as the client reads, the same flood
 * with each event stamped with its send time, or carry isolated events on
 * request for the latency test). Its stats count the list and
 * watch requests and the bytes each kind sent.
 *
 * Run: `deno run --allow-net bench/_server.ts <maxObjects> <floodObjects>
 * <floodEvents> [maxMetadataObjects]`; prints `{"port":…}` once ready,
 * exits when stdin closes.
 *
 * @module
 */

import {
  buildFlood,
  buildItems,
  buildStampedFlood,
  listItemVersion,
  partialPodStamp,
  sentAtText,
  type StampedEventBytes,
} from "./_dataset.ts";
import { makePod, podName } from "./_pods.ts";
import { now, SENT_AT } from "./_protocol.ts";
import { negotiateOutput, type OutputForm } from "../testing/_media_type.ts";
import { FakeApiError } from "../testing/fake_api_error.ts";

const [maxObjects, floodObjects, floodEvents, maxMetadataObjects = 0] = Deno
  .args.map(Number);
if (
  !(maxObjects > 0 && floodObjects > 0 && floodEvents > 0 &&
    maxMetadataObjects >= 0)
) {
  throw new Error(
    "Usage: _server.ts <maxObjects> <floodObjects> <floodEvents> [maxMetadataObjects]",
  );
}
const maxScenarioObjects = Math.max(maxObjects, maxMetadataObjects);

const LIST_CHUNK = 1 << 20;
const WATCH_CHUNK = 64 << 10;

const started = now();
const items = buildItems(maxObjects);
const flood = buildFlood(
  floodObjects,
  floodEvents,
  listItemVersion(floodObjects),
);
const partial = maxMetadataObjects > 0
  ? partialPodStamp(maxMetadataObjects)
  : undefined;
const buildMs = now() - started;

/**
 * The flood again, each event stamped with its send time (the reconcile
 * latency row); built on the first scenario that asks for it.
 */
let stampedFlood: StampedEventBytes | undefined;

type WatchMode = "idle" | "flood" | "stampedFlood" | "latency";

interface Scenario {
  objects: number;
  watch: WatchMode;
  floodTaken: boolean;
  floodStartedAt: number | undefined;
  floodSentAt: number | undefined;
  lists: number;
  watches: number;
  /** Lists and watches answered in the metadata-only form. */
  metadataLists: number;
  metadataWatches: number;
  /** Bytes sent in list and in watch answers. */
  listBytes: number;
  watchBytes: number;
  listLimits: (number | null)[];
  latencySink: ReadableStreamDefaultController<Uint8Array> | undefined;
  latencySent: number;
  nextVersion: number;
}

function scenario(objects: number, watch: WatchMode): Scenario {
  return {
    objects,
    watch,
    floodTaken: false,
    floodStartedAt: undefined,
    floodSentAt: undefined,
    lists: 0,
    watches: 0,
    metadataLists: 0,
    metadataWatches: 0,
    listBytes: 0,
    watchBytes: 0,
    listLimits: [],
    latencySink: undefined,
    latencySent: 0,
    nextVersion: listItemVersion(objects) + 1,
  };
}

let current = scenario(Math.min(1_000, maxObjects), "idle");
const encoder = new TextEncoder();
const timers = new Set<ReturnType<typeof setTimeout>>();

/** A body that hands out `parts` (split into `size` views) on demand. */
function bytesBody(
  parts: Uint8Array[],
  size: number,
  onBytes: (n: number) => void,
  onFirst?: () => void,
  onLast?: () => void,
  keepOpen = false,
): ReadableStream<Uint8Array> {
  let part = 0;
  let offset = 0;
  let first = true;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      while (part < parts.length && offset >= parts[part].length) {
        part++;
        offset = 0;
      }
      if (part >= parts.length) {
        onLast?.();
        onLast = undefined;
        if (!keepOpen) {
          controller.close();
          return;
        }
        // A watch stays open, idle, until the client goes away.
        return new Promise<void>(() => {});
      }
      if (first) {
        first = false;
        onFirst?.();
      }
      const bytes = parts[part];
      const end = Math.min(offset + size, bytes.length);
      // A copy, not a view: a transferred view would detach the shared
      // buffer for every later request.
      controller.enqueue(bytes.slice(offset, end));
      onBytes(end - offset);
      offset = end;
    },
  }, { highWaterMark: 1 });
}

/**
 * A list body of pods `from … to-1` stamped in the metadata-only form,
 * about `LIST_CHUNK` bytes at a time.
 */
function stampedBody(
  head: Uint8Array,
  from: number,
  to: number,
  tail: Uint8Array,
  onBytes: (n: number) => void,
): ReadableStream<Uint8Array> {
  const stamp = partial!;
  let i = from;
  let started = false;
  let ended = false;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (ended) {
        controller.close();
        return;
      }
      const buf = new Uint8Array(
        LIST_CHUNK + stamp.maxBytes + head.length + tail.length + 1,
      );
      let offset = 0;
      if (!started) {
        started = true;
        buf.set(head);
        offset = head.length;
      }
      while (i < to && offset < LIST_CHUNK) {
        if (i > from) buf[offset++] = 44; // ","
        offset = stamp.write(i, buf, offset);
        i++;
      }
      if (i >= to) {
        buf.set(tail, offset);
        offset += tail.length;
        ended = true;
      }
      controller.enqueue(buf.subarray(0, offset));
      onBytes(offset);
    },
  }, { highWaterMark: 1 });
}

function failure(code: number, message: string): Response {
  return new Response(
    JSON.stringify({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message,
      code,
    }),
    { status: code, headers: { "content-type": "application/json" } },
  );
}

function listResponse(url: URL, form: OutputForm): Response {
  const s = current;
  const metadataOnly = form.as === "PartialObjectMetadataList";
  if (form.as !== undefined && !metadataOnly) {
    return failure(406, `the bench server does not answer lists as ${form.as}`);
  }
  if (!metadataOnly && s.objects > maxObjects) {
    return failure(
      500,
      `the bench server pre-serialized ${maxObjects} full objects, not ${s.objects}`,
    );
  }
  const limitParam = Number(url.searchParams.get("limit") ?? 0);
  const limit = limitParam > 0 ? limitParam : 0;
  s.lists++;
  s.listLimits.push(limit > 0 ? limit : null);
  const token = url.searchParams.get("continue");
  const from = token ? Number(token.slice(2)) : 0;
  const to = limit > 0 ? Math.min(from + limit, s.objects) : s.objects;
  const meta: Record<string, unknown> = {
    resourceVersion: String(listItemVersion(s.objects)),
  };
  if (to < s.objects) {
    meta.continue = `i=${to}`;
    meta.remainingItemCount = s.objects - to;
  }
  const head = encoder.encode(
    `{"kind":"${
      metadataOnly ? "PartialObjectMetadataList" : "PodList"
    }","apiVersion":"${metadataOnly ? form.apiVersion : "v1"}","metadata":${
      JSON.stringify(meta)
    },"items":[`,
  );
  const tail = encoder.encode("]}");
  const onBytes = (n: number) => s.listBytes += n;
  if (metadataOnly) {
    s.metadataLists++;
    return new Response(stampedBody(head, from, to, tail, onBytes), {
      headers: { "content-type": "application/json" },
    });
  }
  const body = to > from
    ? items.bytes.subarray(items.starts[from], items.ends[to - 1])
    : new Uint8Array(0);
  return new Response(bytesBody([head, body, tail], LIST_CHUNK, onBytes), {
    headers: { "content-type": "application/json" },
  });
}

/**
 * The stamped flood, handed out on demand in chunks of whole events of
 * about `size` bytes; each chunk's events carry the time it was handed
 * over (the same for every event in it).
 */
function stampedFloodBody(
  flood: StampedEventBytes,
  size: number,
  onBytes: (n: number) => void,
  onFirst: () => void,
  onLast: () => void,
): ReadableStream<Uint8Array> {
  let next = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (next >= flood.count) {
        onLast();
        // A watch stays open, idle, until the client goes away.
        return new Promise<void>(() => {});
      }
      if (next === 0) onFirst();
      const from = next === 0 ? 0 : flood.ends[next - 1];
      let last = next;
      while (
        last + 1 < flood.count && flood.ends[last + 1] - from <= size
      ) last++;
      const chunk = flood.bytes.slice(from, flood.ends[last]);
      const stamp = sentAtText(now());
      for (let k = next; k <= last; k++) {
        chunk.set(stamp, flood.stamps[k] - from);
      }
      next = last + 1;
      controller.enqueue(chunk);
      onBytes(chunk.length);
    },
  }, { highWaterMark: 1 });
}

function watchResponse(form: OutputForm): Response {
  const s = current;
  s.watches++;
  if (form.as === "PartialObjectMetadata") {
    // Only the idle watch has no pre-built events to convert.
    if (s.watch !== "idle") {
      return failure(406, `the bench server has no metadata-only ${s.watch}`);
    }
    s.metadataWatches++;
  } else if (form.as !== undefined) {
    return failure(
      406,
      `the bench server does not answer watches as ${form.as}`,
    );
  }
  const onBytes = (n: number) => s.watchBytes += n;
  let body: ReadableStream<Uint8Array>;
  if (s.watch === "flood" && !s.floodTaken) {
    s.floodTaken = true;
    body = bytesBody(
      [flood.bytes],
      WATCH_CHUNK,
      onBytes,
      () => s.floodStartedAt = now(),
      () => s.floodSentAt = now(),
      true,
    );
  } else if (s.watch === "stampedFlood" && !s.floodTaken) {
    s.floodTaken = true;
    body = stampedFloodBody(
      stampedFlood!,
      WATCH_CHUNK,
      onBytes,
      () => s.floodStartedAt = now(),
      () => s.floodSentAt = now(),
    );
  } else if (s.watch === "latency") {
    body = new ReadableStream<Uint8Array>({
      start(controller) {
        s.latencySink = controller;
      },
      cancel() {
        s.latencySink = undefined;
      },
    });
  } else {
    body = new ReadableStream<Uint8Array>();
  }
  return new Response(body, {
    headers: { "content-type": "application/json" },
  });
}

/** Sends `count` isolated MODIFIED events of pod 0, `gapMs` apart. */
function sendIsolated(count: number, gapMs: number): void {
  const s = current;
  let sent = 0;
  const tick = () => {
    const sink = s.latencySink;
    if (sink === undefined || sent >= count || s !== current) return;
    const pod = makePod(0, s.nextVersion++, sent + 1);
    (pod.metadata.annotations as Record<string, string>)[SENT_AT] = "@";
    const [before, after] = JSON.stringify({ type: "MODIFIED", object: pod })
      .split('"@"');
    const line = encoder.encode(`${before}"${now()}"${after}\n`);
    try {
      sink.enqueue(line);
    } catch {
      return;
    }
    s.watchBytes += line.length;
    s.latencySent = ++sent;
    if (sent < count) {
      const id = setTimeout(() => {
        timers.delete(id);
        tick();
      }, gapMs);
      timers.add(id);
    }
  };
  tick();
}

function json(value: unknown): Response {
  return new Response(JSON.stringify(value), {
    headers: { "content-type": "application/json" },
  });
}

function handle(req: Request): Response {
  const url = new URL(req.url);
  const p = url.pathname;
  if (p === "/api/v1/pods") {
    let form: OutputForm;
    try {
      form = negotiateOutput(req.headers.get("accept"));
    } catch (error) {
      if (!(error instanceof FakeApiError)) throw error;
      return failure(406, error.message);
    }
    const watch = url.searchParams.get("watch");
    return watch === "1" || watch === "true"
      ? watchResponse(form)
      : listResponse(url, form);
  }
  if (p === "/_bench/now") return json({ now: now() });
  if (p === "/_bench/scenario") {
    const objects = Number(url.searchParams.get("objects"));
    const watch = (url.searchParams.get("watch") ?? "idle") as WatchMode;
    if (!(objects > 0 && objects <= maxScenarioObjects)) {
      return json({ error: `objects must be in 1…${maxScenarioObjects}` });
    }
    if (
      (watch === "flood" || watch === "stampedFlood") &&
      objects !== floodObjects
    ) {
      return json({ error: `a flood needs objects=${floodObjects}` });
    }
    if (watch === "stampedFlood") {
      stampedFlood ??= buildStampedFlood(
        floodObjects,
        floodEvents,
        listItemVersion(floodObjects),
      );
    }
    current.latencySink = undefined;
    current = scenario(objects, watch);
    return json({ objects, watch });
  }
  if (p === "/_bench/stats") {
    const { latencySink: _, ...stats } = current;
    return json({ ...stats, floodEvents: flood.count });
  }
  if (p === "/_bench/latency") {
    const count = Number(url.searchParams.get("count"));
    const gap = Number(url.searchParams.get("gap"));
    if (current.latencySink === undefined) {
      return json({ error: "no latency watch is open" });
    }
    sendIsolated(count, gap);
    return json({ count, gap, pod: podName(0) });
  }
  return new Response("not found", { status: 404 });
}

const server = Deno.serve({
  hostname: "127.0.0.1",
  port: 0,
  onListen: () => {},
}, handle);
console.log(JSON.stringify({
  port: server.addr.port,
  buildMs: Math.round(buildMs),
  listBytes: items.bytes.length,
  floodBytes: flood.bytes.length,
  metadataBytesPerObject: partial ? metadataBytesPerObject() : undefined,
}));

/** Mean size of the metadata-only form, over the first 1000 pods. */
function metadataBytesPerObject(): number {
  const buf = new Uint8Array(partial!.maxBytes);
  const n = Math.min(1_000, maxMetadataObjects);
  let total = 0;
  for (let i = 0; i < n; i++) total += partial!.write(i, buf, 0);
  return Math.round(total / n);
}

// The orchestrator holds our stdin; when it closes (or the orchestrator
// dies), shut down.
for await (const _ of Deno.stdin.readable) { /* drain */ }
for (const id of timers) clearTimeout(id);
// Not server.shutdown(): it would wait for the idle watches to end.
Deno.exit(0);
