// What named indexes (`indexes`) cost a watcher's writes: 10k MODIFIED
// events over 10k 3 KB Pods applied through the store writer into a memory
// store with 0, 1 and 3 indexes besides indexBy (namespace and name), each
// built from JSONPath as a Watcher builds it. Each event is a new version of
// a stored Pod (its status changed, its keys not: the common event); every
// 10th moves the Pod to another node, so that byNode moves it too.

import { Indexer } from "../selection/indexer.ts";
import { MemoryStore } from "../store/memory_store.ts";
import type { IndexKeyFunction, KubeObject } from "../types.ts";
import { BatchBuilder } from "../watcher/change_batch.ts";
import { StoreWriter } from "../watcher/_store_writer.ts";
import { silentLogger } from "../logger.ts";
import { makePod } from "./_pods.ts";

const PODS = 10_000;
const BY_IDENTITY = ["metadata.namespace", "metadata.name"];
/** The extra indexes, the first `n` of them for each case. */
const EXTRA: [string, string[]][] = [
  ["byNode", ["spec.nodeName"]],
  ["byApp", ["metadata.labels['app.kubernetes.io/name']"]],
  ["byOwner", ["metadata.ownerReferences[0].uid"]],
];

/** A Pod at a version, on another node for every 10th Pod of `moved`. */
function version(i: number, rv: number, moved: boolean): KubeObject {
  const pod = makePod(i, rv, rv);
  if (moved && i % 10 === 0) {
    (pod.spec as { nodeName: string }).nodeName = `node-${(i % 50) + 50}`;
  }
  return pod;
}

for (const n of [0, 1, 3]) {
  const indexes: Record<string, IndexKeyFunction<KubeObject>> = {};
  for (const [name, paths] of EXTRA.slice(0, n)) {
    const indexer = new Indexer({ indexBy: paths });
    indexes[name] = (obj) => indexer.extractKeys(obj);
  }
  const store = new MemoryStore<KubeObject>({ keyCount: 2, indexes });
  const batch = new BatchBuilder<KubeObject>();
  const writer = new StoreWriter<KubeObject>({
    store,
    indexer: new Indexer({ indexBy: BY_IDENTITY }),
    changes: batch,
    logger: silentLogger,
    resource: "pods",
  });
  // Two alternating versions of every Pod: each event is a change.
  const versions = [0, 1].map((v) =>
    Array.from(
      { length: PODS },
      (_, i) => version(i, 2 * PODS * v + i + 1, v === 1),
    )
  );
  for (const pod of versions[0]) writer.applyPrepared("ADDED", pod, pod);
  batch.take(true);
  let flip = 1;
  Deno.bench(
    `apply 10k MODIFIED events, ${n} named index${n === 1 ? "" : "es"}`,
    { group: "named indexes", baseline: n === 0 },
    () => {
      for (const pod of versions[flip]) {
        writer.applyPrepared("MODIFIED", pod, pod);
      }
      batch.take(false);
      flip ^= 1;
    },
  );
}
