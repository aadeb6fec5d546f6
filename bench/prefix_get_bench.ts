// Why a prefix get of one 100-object namespace costs more in a 100k store
// than in a 1k one, though it does the same work (the store tests' visit
// counters show that): the namespaces it cycles through. The report's row
// (`bench/_store_costs.ts`) steps through every namespace of the store, 10
// at 1k and 1,000 at 100k, so at 100k the answers it reads (1,000 × 100
// objects) no longer fit in the CPU caches. Here the same get runs at 1k,
// 10k and 100k over every namespace (as the report does) and over the same
// 10 namespaces at every size (the same working set): flat in the second
// case means the growth is the cache, not the store.
//
// Run: `deno bench bench/prefix_get_bench.ts`

import { MemoryStore } from "../store/mod.ts";
import type { KubeObject } from "../types.ts";
import { podName, podNamespace, PODS_PER_NAMESPACE } from "./_pods.ts";

const SIZES = [1_000, 10_000, 100_000];
const HOT = 10;
let sink: unknown;

for (const size of SIZES) {
  const label = `${size / 1000}k`;
  const store = new MemoryStore({ keyCount: 2 });
  for (let i = 0; i < size; i++) {
    const namespace = podNamespace(i);
    const name = podName(i);
    store.add({ metadata: { namespace, name } } as KubeObject, [
      namespace,
      name,
    ]);
  }
  const nsCount = size / PODS_PER_NAMESPACE;
  const all = Array.from(
    { length: nsCount },
    (_, j) => podNamespace(j * PODS_PER_NAMESPACE),
  );
  // The same 10 namespaces at every size, spread over the store.
  const hot = Array.from(
    { length: HOT },
    (_, j) => all[Math.floor(j * nsCount / HOT)],
  );
  let a = 0;
  Deno.bench(
    `get prefix, every namespace in turn (${nsCount}) @${label}`,
    { group: "every namespace" },
    () => {
      a = (a + 37) % nsCount;
      sink = store.get(all[a]);
    },
  );
  let h = 0;
  Deno.bench(
    `get prefix, the same ${HOT} namespaces @${label}`,
    { group: `the same ${HOT} namespaces` },
    () => {
      h = (h + 3) % HOT;
      sink = store.get(hot[h]);
    },
  );
}

globalThis.addEventListener("unload", () => {
  if (sink === Symbol.for("never")) console.log(sink);
});
