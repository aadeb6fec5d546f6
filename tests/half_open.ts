// The half-open scenario both servers run (client/fetch_client_half_open_test.ts
// against the fake, tests/control_plane/half_open_test.ts against the real
// one): watchers of every kind on one client sync, `fault()` turns the
// connections they hold into black holes, objects change, and every watcher
// must see every change. Idle timeouts are counted, not timed: each watcher's
// loops say how many they needed.
import type { RestClient } from "../client/rest_client.ts";
import type { KubeObject, ReadableStore } from "../types.ts";
import { RecordingLogger } from "../testing/recording_logger.ts";
import { SingleWatcher } from "../watcher/single.ts";
import { Watcher } from "../watcher/watcher.ts";

/** How the scenario writes to the server (not through the faulty route). */
export interface HalfOpenWrites {
  create(
    namespace: string,
    name: string,
    labels: Record<string, string>,
  ): void | Promise<void>;
  remove(namespace: string, name: string): void | Promise<void>;
}

/** What {@linkcode watchersOnOneClient} needs. */
export interface HalfOpenScenario {
  client: RestClient;
  write: HalfOpenWrites;
  /** Makes the connections open now half-open; returns how many. */
  fault: () => number;
  idleTimeoutMs: number;
  /** The first namespace's name; the second is its name with `-b`. */
  namespace?: string;
  /** How long the watchers may take to see the changes, in ms. */
  deadlineMs?: number;
  logger?: RecordingLogger;
}

/** What the scenario saw. */
export interface HalfOpenResult {
  /** Connections the fault made half-open. */
  swallowed: number;
  /**
   * The most idle and first-byte timeouts any one watcher's loops needed
   * to recover, counted from the fault.
   */
  idleTimeoutsEach: number;
}

const GVR = { group: "", version: "v1", resource: "configmaps" };
const WEB = { tier: "web" };

/**
 * Runs the scenario: throws, naming the watcher, when one has not seen the
 * changes by the deadline (20 idle timeouts by default).
 */
export async function watchersOnOneClient(
  scenario: HalfOpenScenario,
): Promise<HalfOpenResult> {
  const { client, write, idleTimeoutMs } = scenario;
  const a = scenario.namespace ?? "half-open";
  const b = `${a}-b`;
  await write.create(a, "probe", WEB);
  await write.create(b, "before", WEB);
  const loggers = new Map<string, RecordingLogger>();
  const options = (name: string) => {
    const logger = new RecordingLogger();
    loggers.set(name, logger);
    return { idleTimeoutMs, firstByteTimeoutMs: idleTimeoutMs, logger };
  };
  const bulk = (
    name: string,
    config: Partial<{
      namespace: string;
      namespaces: string[];
      labelSelector: string;
    }>,
  ) =>
    new Watcher(
      {
        gvr: GVR,
        indexBy: ["metadata.namespace", "metadata.name"],
        onChange: () => {},
        debounceInterval: 10,
        ...config,
      },
      client,
      options(name),
    );
  const watchers = {
    namespaces: bulk("namespaces", { namespaces: [a, b] }),
    labelled: bulk("labelled", { labelSelector: "tier=web" }),
    sharedFirst: bulk("sharedFirst", { namespace: a }),
    sharedSecond: bulk("sharedSecond", { namespace: a }),
  };
  let single: KubeObject | null | undefined = undefined;
  const singleWatcher = new SingleWatcher(
    {
      gvr: GVR,
      namespace: a,
      name: "probe",
      onChange: (object) => void (single = object),
      onSyncComplete: (object) => void (single = object),
    },
    client,
    options("single"),
  );
  const all = [...Object.values(watchers), singleWatcher];
  const controller = new AbortController();
  const runs = all.map((watcher) => watcher.start(controller.signal));
  try {
    await Promise.all(all.map((watcher) => watcher.waitForSync()));
    // Only the timeouts after the fault count: a quiet watch of the real
    // server may also time out before it.
    const before = new Map(
      [...loggers].map(([name, logger]) => [name, logger.records.length]),
    );
    const swallowed = scenario.fault();
    await write.create(a, "after", WEB);
    await write.create(b, "after", WEB);
    await write.remove(a, "probe");
    const names = (store: ReadableStore<KubeObject>) =>
      Promise.resolve(store.get()).then((objects) =>
        objects.map((o) => `${o.metadata.namespace}/${o.metadata.name}`)
          .sort().join(" ")
      );
    const want: Record<keyof typeof watchers, string> = {
      namespaces: `${a}-b/after ${a}-b/before ${a}/after`,
      labelled: `${a}-b/after ${a}-b/before ${a}/after`,
      sharedFirst: `${a}/after`,
      sharedSecond: `${a}/after`,
    };
    const lagging = async () => {
      const behind: string[] = [];
      for (const [name, watcher] of Object.entries(watchers)) {
        const have = await names(watcher.store);
        const expected = want[name as keyof typeof watchers];
        // Another test's objects may share the real server's collection.
        const mine = have.split(" ").filter((key) =>
          key.startsWith(`${a}/`) || key.startsWith(`${b}/`)
        ).join(" ");
        if (mine !== expected) behind.push(`${name} has [${mine}]`);
      }
      if (single !== null) behind.push("single still has its object");
      return behind;
    };
    const deadline = Date.now() + (scenario.deadlineMs ?? 20 * idleTimeoutMs);
    for (;;) {
      const behind = await lagging();
      if (behind.length === 0) break;
      if (Date.now() > deadline) {
        throw new Error(
          `Not recovered from the half-open connections by the deadline: ${
            behind.join("; ")
          }`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    let idleTimeoutsEach = 0;
    for (const [name, logger] of loggers) {
      const timeouts = logger.records.slice(before.get(name)).filter((record) =>
        /received no bytes|No answer/.test(record.message)
      ).length;
      idleTimeoutsEach = Math.max(idleTimeoutsEach, timeouts);
    }
    return { swallowed, idleTimeoutsEach };
  } finally {
    controller.abort();
    await Promise.allSettled(runs);
    await Promise.all(all.map((watcher) => watcher.stop()));
  }
}
