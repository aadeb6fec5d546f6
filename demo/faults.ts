import type { FakeApiServer } from "../testing/mod.ts";
import { CONFIG_SECRET, CONFIGMAPS } from "./cluster.ts";
import type { Printer } from "./output.ts";
import { waitUntil } from "./wait.ts";
import type { Watched } from "./watched.ts";

/**
 * Etcd compaction plus an API server restart: every watch is closed and
 * can only resume from a version the server has forgotten, so each watcher
 * gets 410 Gone and relists.
 */
export async function compactionFault(
  server: FakeApiServer,
  watched: Watched[],
  printer: Printer,
  signal: AbortSignal,
): Promise<void> {
  const before = watched.map((w) => w.watcher.health().relists);
  // A write first, so that every watcher's version is older than the cut.
  server.create(CONFIGMAPS, {
    metadata: { namespace: CONFIG_SECRET.namespace, generateName: "tick-" },
  });
  server.compactHistory();
  server.closeAllWatches();
  printer.line(
    "fault",
    `etcd compaction at resourceVersion ${server.resourceVersion} + API server restart: all watches closed, their versions are gone (410)`,
  );
  const start = printer.elapsedMs;
  const recovered = await waitUntil(
    () =>
      watched.every((w, i) => w.watcher.health().relists > before[i]) &&
      server.openWatchCount >= watched.length + 1,
    10_000,
    signal,
  );
  const detail = watched.map((w) =>
    `${w.name} relisted (${w.watcher.store.size})`
  ).join(" · ");
  printer.line(
    recovered ? "recover" : "warn",
    recovered
      ? `in ${
        Math.round(printer.elapsedMs - start)
      } ms: ${detail} · every watch reopened`
      : `not recovered yet: ${detail}`,
  );
}

/** Dropped watch streams, then 503 with Retry-After for the reconnects. */
export async function overloadFault(
  server: FakeApiServer,
  watched: Watched[],
  printer: Printer,
  signal: AbortSignal,
): Promise<void> {
  const before = watched.map((w) => w.watcher.health().reconnects);
  const watches = watched.length + 1;
  const fault = server.injectFault({
    verb: "watch",
    kind: "status",
    code: 503,
    retryAfterSeconds: 1,
    times: watches,
  });
  server.closeAllWatches();
  printer.line(
    "fault",
    `API server overloaded: all ${watches} watch streams dropped, the next ${watches} watch requests get 503 (Retry-After: 1)`,
  );
  const start = printer.elapsedMs;
  const recovered = await waitUntil(
    () =>
      !fault.active && server.openWatchCount >= watches &&
      watched.every((w, i) => w.watcher.health().reconnects > before[i]),
    10_000,
    signal,
  );
  fault.cancel();
  const detail =
    watched.map((w, i) =>
      `${w.name} +${w.watcher.health().reconnects - before[i]}`
    ).join(" · ") + " · every watch reopened";
  printer.line(
    recovered ? "recover" : "warn",
    `${
      recovered
        ? `in ${((printer.elapsedMs - start) / 1000).toFixed(1)} s`
        : "not recovered yet"
    }: ${fault.hits} × 503 answered; reconnects ${detail}`,
  );
}
