// MemoryStore costs at 1k, 10k and 100k objects, indexed by namespace+name,
// 100 objects per namespace. Objects are small (metadata only): the store
// never looks past metadata, and small objects keep 100k stores cheap to
// build. Writes are paired (add + delete, update + prefix get) so the store
// keeps its size; bench/compare.ts times each operation alone, in batches.

import { MemoryStore } from "../store/mod.ts";
import type { KubeObject } from "../types.ts";
import { podName, podNamespace } from "./_pods.ts";

const SIZES = [1_000, 10_000, 100_000];

function small(i: number, rv: number): KubeObject {
  return {
    metadata: {
      namespace: podNamespace(i),
      name: podName(i),
      resourceVersion: String(rv),
    },
  };
}

let sink: unknown;

for (const size of SIZES) {
  const label = size >= 1000 ? `${size / 1000}k` : String(size);
  const store = new MemoryStore({ keyCount: 2 });
  const versions: KubeObject[][] = [[], []];
  const keys: string[][] = [];
  for (let i = 0; i < size; i++) {
    versions[0].push(small(i, 2 * i));
    versions[1].push(small(i, 2 * i + 1));
    keys.push([podNamespace(i), podName(i)]);
    store.add(versions[0][i], keys[i]);
  }
  // Step through objects with a stride coprime to size, so that successive
  // operations land in different namespaces.
  const STRIDE = 7_919;
  let at = 0;
  const next = () => (at = (at + STRIDE) % size);
  // New objects for add/delete, each a distinct identity: churning one
  // identity through a V8 Map piles deleted entries into its hash chain
  // until the next rehash, which would measure V8 rather than the store.
  const fresh: KubeObject[] = [];
  const freshKeys: string[][] = [];
  for (let j = 0; j < 10_000; j++) {
    // Into existing namespaces, under names no other object has.
    const namespace = podNamespace((j * 100) % size);
    const name = podName(size + j);
    fresh.push({ metadata: { namespace, name, resourceVersion: "1" } });
    freshKeys.push([namespace, name]);
  }
  let freshAt = 0;
  const namespaces = size / 100;
  let nsAt = 0;

  Deno.bench(
    `MemoryStore.add + delete (new object) @${label}`,
    { group: `add + delete` },
    () => {
      const j = freshAt = (freshAt + 1) % fresh.length;
      store.add(fresh[j], freshKeys[j]);
      store.delete(freshKeys[j][0], freshKeys[j][1]);
    },
  );
  let flip = 1;
  Deno.bench(`MemoryStore.update @${label}`, { group: `update` }, () => {
    const i = next();
    store.update(versions[flip][i], keys[i]);
    flip ^= 1;
  });
  Deno.bench(`MemoryStore.get exact @${label}`, { group: `get exact` }, () => {
    const i = next();
    sink = store.get(keys[i][0], keys[i][1]);
  });
  Deno.bench(
    `MemoryStore.get prefix (100-object namespace) @${label}`,
    { group: `get prefix` },
    () => {
      nsAt = (nsAt + 37) % namespaces;
      sink = store.get(podNamespace(nsAt * 100));
    },
  );
  Deno.bench(
    `MemoryStore.update + get prefix there @${label}`,
    { group: `get prefix after write` },
    () => {
      nsAt = (nsAt + 37) % namespaces;
      const i = nsAt * 100 + 5;
      store.update(versions[flip][i], keys[i]);
      flip ^= 1;
      sink = store.get(podNamespace(i));
    },
  );
  Deno.bench(`MemoryStore.list @${label}`, { group: `list` }, () => {
    sink = store.list();
  });
}

globalThis.addEventListener("unload", () => {
  if (sink === Symbol.for("never")) console.log(sink);
});
