/**
 * The API server of `bench/shards.ts`, in a process of its own so that
 * serving never competes with a replica's event loop or counts in its CPU
 * time: the `FakeApiServer` over real HTTP (`listen()`), holding `objects`
 * ConfigMaps spread over 16 namespaces, each labelled `shard=<i % 3>` up
 * front (for the label-selector row), with `shardedListAndWatch` on or off.
 *
 * Commands, one a line on stdin, each answered by one JSON line on stdout:
 * - `flood [ms]`: updates every ConfigMap once (its `data.flood` set to
 *   `"1"`), yielding to the event loop every 500 writes so the watches
 *   drain, spread evenly over `ms` if given; answers when every update is
 *   written.
 * - `stats`: the server's request counts by kind.
 *
 * Usage: `deno run -A bench/_shard_server.ts <objects> <sharded: 0|1>`;
 * prints `{"url":…}` once it listens, exits when stdin closes.
 *
 * @module
 */

import { FakeApiServer } from "../testing/mod.ts";
import type { KubeObject } from "../types.ts";

const [objects, sharded] = Deno.args.map(Number);
if (!(objects > 0) || (sharded !== 0 && sharded !== 1)) {
  throw new Error("Usage: _shard_server.ts <objects> <sharded: 0|1>");
}

/** Namespaces the ConfigMaps are spread over. */
const NAMESPACES = 16;
/** The label-selector row's shards. */
const LABEL_SHARDS = 3;

/** The namespace and name of ConfigMap `i`. */
function configMapKey(i: number): { namespace: string; name: string } {
  return {
    namespace: `bench-${String(i % NAMESPACES).padStart(2, "0")}`,
    name: `cm-${i}`,
  };
}

/** ConfigMap `i`: about 1 KiB of JSON once the server has stamped it. */
function configMap(i: number): KubeObject {
  const { namespace, name } = configMapKey(i);
  return {
    metadata: {
      name,
      namespace,
      labels: {
        "app.kubernetes.io/name": "bench",
        "app.kubernetes.io/instance": `instance-${i % 100}`,
        shard: String(i % LABEL_SHARDS),
      },
      annotations: { "bench.haptic.dev/index": String(i) },
    },
    data: {
      "config.yaml":
        `replicas: ${
          i % 5
        }\nimage: registry.example.com/app:1.${i}\nport: 8080\n` +
        "x".repeat(400),
      "feature-flags": `alpha=${i % 2 === 0},beta=true,gamma=false`,
      mode: "normal",
    },
  };
}

const started = performance.now();
const server = new FakeApiServer({
  shardedListAndWatch: sharded === 1,
  // No bookmark or other timer traffic during a run.
  bookmarkIntervalMs: 3_600_000,
});
for (let i = 0; i < objects; i++) server.create("configmaps", configMap(i));
const listener = await server.listen();
console.log(JSON.stringify({
  url: listener.url,
  buildMs: Math.round(performance.now() - started),
}));

/** Updates every ConfigMap once, spread over `spreadMs` if not 0. */
async function flood(spreadMs: number): Promise<unknown> {
  const t0 = performance.now();
  for (let i = 0; i < objects; i++) {
    if (spreadMs > 0 && i % 500 === 0) {
      const due = t0 + spreadMs * i / objects;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    }
    const { namespace, name } = configMapKey(i);
    const current = server.get("configmaps", namespace, name);
    server.update("configmaps", {
      ...current,
      data: { ...current.data as Record<string, string>, flood: "1" },
    });
    if (i % 500 === 499) await new Promise((r) => setTimeout(r, 0));
  }
  return { flooded: objects, ms: Math.round(performance.now() - t0) };
}

function stats(): unknown {
  const counts: Record<string, number> = {};
  for (const r of server.requests) {
    const kind = `${r.verb} ${r.resource}`;
    counts[kind] = (counts[kind] ?? 0) + 1;
  }
  return { requests: counts };
}

const lines = Deno.stdin.readable.pipeThrough(new TextDecoderStream());
let buffer = "";
for await (const chunk of lines) {
  buffer += chunk;
  let nl: number;
  while ((nl = buffer.indexOf("\n")) >= 0) {
    const command = buffer.slice(0, nl).trim();
    buffer = buffer.slice(nl + 1);
    const [verb, arg] = command.split(" ");
    const answer = verb === "flood"
      ? await flood(Number(arg ?? 0))
      : command === "stats"
      ? stats()
      : { error: `unknown command ${command}` };
    console.log(JSON.stringify(answer));
  }
}
Deno.exit(0);
