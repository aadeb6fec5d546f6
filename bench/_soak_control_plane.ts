/**
 * The soak against a real kube-apiserver and etcd (`testing/control_plane/`,
 * `deno task control-plane` builds them): ConfigMaps in ten namespaces,
 * written to at a steady rate from this process (of every ten writes eight
 * updates, one create, one delete; three updates in eight flip the
 * `tier` label between `web` and `batch`), with the watch cache off so that a
 * watch from a compacted revision is 410 at once.
 *
 * - `drop`: kube-apiserver is killed and started again (every watch
 *   breaks; the watchers resume);
 * - `compact`: two Secrets are written (the revision moves past what the
 *   ConfigMap watchers have seen), etcd is compacted at the current
 *   revision, and kube-apiserver restarted: every resume is from a
 *   compacted revision and gets 410 (the watchers relist).
 *
 * The churn's requests are garbage by the time the heap is sampled (after a
 * forced GC), so they do not show in it.
 *
 * @module
 */

import { ControlPlane } from "../testing/control_plane/mod.ts";
import type { FetchClient } from "../client/fetch_client.ts";

const NAMESPACES = 10;
const DATA = "x".repeat(900);

function namespaceOf(i: number): string {
  return `soak-${String(i % NAMESPACES).padStart(2, "0")}`;
}
function nameOf(i: number): string {
  return `cm-${String(i).padStart(6, "0")}`;
}
function configMap(i: number, tier: string, write: number) {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: {
      name: nameOf(i),
      namespace: namespaceOf(i),
      labels: { app: "soak", tier },
      annotations: { "soak.haptic.dev/write": String(write) },
    },
    data: { payload: DATA, index: String(i) },
  };
}

/** A running control plane with its objects and churn. */
export interface ControlPlaneSoak {
  client: FetchClient;
  command(name: string): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

/** Starts the control plane, creates `objects` ConfigMaps, starts churn. */
export async function startControlPlaneSoak(
  objects: number,
  rate: number,
): Promise<ControlPlaneSoak> {
  const plane = await ControlPlane.start({ watchCache: false });
  const client = plane.client();
  const request = (
    method: "POST" | "PUT" | "DELETE",
    path: string,
    body?: unknown,
  ) =>
    client.performRequest({
      method,
      path,
      bodyJson: body as never,
      expectJson: true,
    });
  for (let n = 0; n < NAMESPACES; n++) {
    await request("POST", "/api/v1/namespaces", {
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: namespaceOf(n) },
    });
  }
  const live: number[] = [];
  const tier = new Map<number, string>();
  // Created a few at a time, in parallel, so that 10k take seconds.
  for (let i = 0; i < objects; i += 50) {
    const batch = [];
    for (let k = i; k < Math.min(i + 50, objects); k++) {
      batch.push(
        request(
          "POST",
          `/api/v1/namespaces/${namespaceOf(k)}/configmaps`,
          configMap(k, "web", 0),
        ),
      );
      live.push(k);
    }
    await Promise.all(batch);
  }
  let next = objects;
  let writes = 0;
  let failures = 0;
  let seed = 0x9e3779b9;
  const random = (n: number) => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return (seed >>> 0) % n;
  };
  const counts = { added: 0, modified: 0, deleted: 0, flipped: 0 };
  async function write(): Promise<void> {
    const kind = writes++ % 10;
    if (kind === 3) {
      const i = next++;
      live.push(i);
      counts.added++;
      await request(
        "POST",
        `/api/v1/namespaces/${namespaceOf(i)}/configmaps`,
        configMap(i, "web", writes),
      );
      return;
    }
    const slot = random(live.length);
    const i = live[slot];
    if (kind === 7) {
      live[slot] = live[live.length - 1];
      live.pop();
      tier.delete(i);
      counts.deleted++;
      await request(
        "DELETE",
        `/api/v1/namespaces/${namespaceOf(i)}/configmaps/${nameOf(i)}`,
      );
      return;
    }
    let t = tier.get(i) ?? "web";
    if (kind % 4 === 0) {
      t = t === "web" ? "batch" : "web";
      tier.set(i, t);
      counts.flipped++;
    }
    counts.modified++;
    // An unconditional update (no resourceVersion): the last write wins.
    await request(
      "PUT",
      `/api/v1/namespaces/${namespaceOf(i)}/configmaps/${nameOf(i)}`,
      configMap(i, t, writes),
    );
  }
  let paused = false;
  let down = false;
  const inFlight = new Set<Promise<void>>();
  const start = performance.now();
  const timer = setInterval(() => {
    if (paused || down) return;
    const owed = Math.floor((performance.now() - start) / 1000 * rate);
    let budget = Math.max(1, rate / 10);
    while (writes < owed && budget-- > 0 && inFlight.size < 20) {
      const p = write().catch(() => void failures++).finally(() =>
        inFlight.delete(p)
      );
      inFlight.add(p);
    }
    if (writes < owed - rate) writes = owed;
  }, 50);
  const settle = async () => {
    while (inFlight.size > 0) await Promise.all([...inFlight]);
  };
  let secretWrites = 0;
  async function restart(): Promise<void> {
    down = true;
    await settle();
    await plane.restartApiServer();
    down = false;
  }
  async function stats(): Promise<Record<string, unknown>> {
    const list = await client.performRequest({
      method: "GET",
      path: "/api/v1/namespaces/default/configmaps",
      querystring: new URLSearchParams({ limit: "1" }),
      expectJson: true,
    }) as { metadata: { resourceVersion: string } };
    return {
      resourceVersion: list.metadata.resourceVersion,
      writes,
      failures,
      ...counts,
      live: live.length,
    };
  }
  return {
    client,
    async command(name) {
      if (name === "drop") await restart();
      else if (name === "compact") {
        down = true;
        await settle();
        // Two writes: a watch from version v reads from v + 1, which a
        // compaction at the revision after it has removed.
        for (let k = 0; k < 2; k++) {
          await request("POST", "/api/v1/namespaces/default/secrets", {
            apiVersion: "v1",
            kind: "Secret",
            metadata: { name: `soak-${secretWrites++}` },
            stringData: { moved: "past the watchers" },
          });
        }
        await plane.compact();
        await plane.restartApiServer();
        down = false;
      } else if (name === "pause") {
        paused = true;
        await settle();
        // One last write: its version is the newest a ConfigMap watcher
        // can see (the Secrets moved the revision past the others).
        const i = live[0];
        const last = await request(
          "PUT",
          `/api/v1/namespaces/${namespaceOf(i)}/configmaps/${nameOf(i)}`,
          configMap(i, tier.get(i) ?? "web", ++writes),
        ) as { metadata: { resourceVersion: string } };
        counts.modified++;
        return {
          command: name,
          ...(await stats()),
          resourceVersion: last.metadata.resourceVersion,
        };
      }
      return { command: name, ...(await stats()) };
    },
    async close() {
      clearInterval(timer);
      await settle();
      await plane.stop();
    },
  };
}
