import {
  type ChangeBatch,
  type DebounceGroup,
  FetchClient,
  IndexSynchronizationTracker,
  silentLogger,
  type SingleWatcher,
} from "../mod.ts";
import { FakeApiServer } from "../testing/mod.ts";
import type { DemoArgs } from "./args.ts";
import { Churn } from "./churn.ts";
import {
  CONFIG_SECRET,
  OUR_CLASS,
  Rng,
  seedCluster,
  SERVICE_NAME_LABEL,
} from "./cluster.ts";
import { MetricsRegistry } from "../metrics/mod.ts";
import { serveEndpoints } from "./endpoints.ts";
import { compactionFault, overloadFault } from "./faults.ts";
import type { Printer } from "./output.ts";
import { differences, report, secretMatches } from "./verify.ts";
import { sleep, waitUntil } from "./wait.ts";
import { createWatchers, stopAll, type Watched } from "./watched.ts";

const DEFAULT_SECONDS = 25;

/**
 * The simulated run: a seeded FakeApiServer on 127.0.0.1, churn, two
 * injected faults, and a final store-versus-server check. Returns the exit
 * code: 0 when every store matches the server.
 */
export async function runSimulated(
  args: DemoArgs,
  printer: Printer,
  signal: AbortSignal,
  metrics: MetricsRegistry = new MetricsRegistry(),
): Promise<number> {
  const durationMs = (args.duration ?? DEFAULT_SECONDS) * 1000;
  const rng = new Rng(args.seed);
  // Frequent bookmarks, as a real API server sends them about once a minute.
  const server = new FakeApiServer({
    initialResourceVersion: 1000,
    bookmarkIntervalMs: 5_000,
  });
  const seeded = seedCluster(server, rng);
  const listener = await server.listen();
  const client = new FetchClient({ server: listener.url }, {
    source: "embedded simulated cluster",
    meter: metrics,
  });
  const watched: Watched[] = [];
  let secret: SingleWatcher | undefined;
  let group: DebounceGroup<ChangeBatch> | undefined;
  let churn: Churn | undefined;
  try {
    printer.plain(printer.style(
      "bold",
      `k8s-watcher demo · simulated cluster at ${listener.url} · ${
        durationMs / 1000
      } s · seed ${args.seed}`,
    ));
    printer.plain(
      `seeded ${seeded.namespaces} namespaces: ${seeded.ingresses} ingresses (${seeded.ours} of class ${OUR_CLASS}) · ${seeded.services} services · ${seeded.slices} endpointslices · Secret ${CONFIG_SECRET.namespace}/${CONFIG_SECRET.name}`,
    );
    printer.plain(
      `watching over HTTP with FetchClient: ingresses (fieldSelector spec.ingressClassName=${OUR_CLASS}, managedFields dropped) · services · endpointslices (indexed by ${SERVICE_NAME_LABEL}) · the Secret`,
    );
    printer.plain();

    const set = createWatchers(client, printer, metrics);
    watched.push(...set.watched);
    secret = set.secret;
    group = set.group;
    const reporter = set.reporter;
    const startedAt = printer.elapsedMs;
    // Give up on the initial sync after 15 s (or at Ctrl-C).
    const syncDeadline = new AbortController();
    const syncTimer = setTimeout(() => syncDeadline.abort(), 15_000);
    const syncSignal = AbortSignal.any([signal, syncDeadline.signal]);
    const tracker = new IndexSynchronizationTracker(
      [...watched.map((w) => w.name), "secret"],
      {
        logger: silentLogger,
        meter: metrics,
        signal: syncSignal,
        onSynchronized: (counts) =>
          printer.line(
            "ready",
            `all ${counts.size} indexes synchronized in ${
              Math.round(printer.elapsedMs - startedAt)
            } ms: ${[...counts].map(([n, c]) => `${n} ${c}`).join(" · ")}`,
          ),
      },
    );
    await using _endpoints = serveEndpoints({
      host: args.metricsHost,
      port: args.metricsPort,
    }, {
      watchers: Object.fromEntries([
        ...watched.map((w) => [w.name, w.watcher] as const),
        ["secret", secret],
      ]),
      tracker,
      metrics,
    }, printer);
    for (const w of watched) {
      void w.watcher.start();
      void tracker.track(w.name, w.watcher);
    }
    void secret.start();
    // A SingleWatcher syncs with 1 (the Secret exists) or 0: a tracker
    // source as it is.
    void tracker.track("secret", secret);
    const failure = await tracker.synchronized
      .then(() => undefined, (error: unknown) => error)
      .finally(() => clearTimeout(syncTimer));
    if (failure !== undefined) {
      printer.line(
        "error",
        signal.aborted
          ? "interrupted before the initial sync"
          : "the watchers did not sync within 15 s; giving up",
      );
      // The tracker's error names each index still missing and why.
      if (failure instanceof Error) printer.line("error", failure.message);
      return 1;
    }
    await lookup(watched[2], printer);

    churn = new Churn(server, rng, {
      stepMs: 300,
      burstEveryMs: clamp(durationMs / 5, 1_000, 6_000),
      secretEveryMs: clamp(durationMs / 5, 800, 6_000),
      onBurst: (what) => printer.line("burst", what),
    });
    churn.start();

    const at = (fraction: number) =>
      sleep(startedAt + durationMs * fraction - printer.elapsedMs, signal);
    await at(0.35);
    if (!signal.aborted) {
      await compactionFault(server, watched, printer, signal);
    }
    await at(0.6);
    if (!signal.aborted) await overloadFault(server, watched, printer, signal);
    await at(0.8);
    if (!signal.aborted) {
      printer.line(
        "fault",
        `Secret ${CONFIG_SECRET.namespace}/${CONFIG_SECRET.name} deleted; it comes back in 0.4 s`,
      );
      await churn.recreateSecret(400, signal);
    }
    await at(1);

    churn.stop();
    printer.line(
      "stop",
      `${
        signal.aborted ? "interrupted; " : ""
      }churn stopped after ${churn.writes} writes; waiting for the watchers to catch up`,
    );
    const single = secret;
    const caughtUp = await waitUntil(
      async () =>
        (await Promise.all(watched.map((w) => differences(server, w))))
          .every((d) => d === 0) && secretMatches(server, single),
      5_000,
      // Also after Ctrl-C: the final check should see settled stores.
      new AbortController().signal,
    );
    await stopAll(watched, secret, group);
    return await report(server, watched, secret, reporter, caughtUp, printer);
  } finally {
    churn?.stop();
    await stopAll(watched, secret, group);
    client.close();
    await listener.close();
    await server.close();
  }
}

/** Shows a lookup through the endpointslice index (namespace, service). */
async function lookup(w: Watched, printer: Printer): Promise<void> {
  const slices = await w.watcher.store.get("shop", "web");
  let endpoints = 0, ready = 0;
  for (const s of slices) {
    for (
      const e of (s.endpoints ?? []) as { conditions?: { ready?: boolean } }[]
    ) {
      endpoints++;
      if (e.conditions?.ready) ready++;
    }
  }
  printer.line(
    "ready",
    `index lookup endpointslices.get("shop", "web") → ${slices.length} slices, ${endpoints} endpoints (${ready} ready)`,
  );
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}
