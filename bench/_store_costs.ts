/**
 * MemoryStore operation costs at 1k, 10k and 100k objects (namespace+name
 * index, 100 objects per namespace), each operation timed alone over a
 * batch and reported in ns per operation: the figures the targets name.
 * `compare.ts` runs this in a fresh process; it prints one `RESULT {…}`.
 *
 * Objects are small (metadata only): the store never looks past metadata.
 * Lookups step through the store with a large stride, so that each one
 * lands somewhere else in memory, as lookups by a controller do.
 *
 * @module
 */

import { MemoryStore } from "../store/mod.ts";
import type { KubeObject } from "../types.ts";
import { podName, podNamespace, PODS_PER_NAMESPACE } from "./_pods.ts";

/** Per-operation cost in ns, by operation, at one store size. */
export interface StoreCosts {
  size: number;
  getExactNs: number;
  getPrefixNs: number;
  getPrefixAfterWriteNs: number;
  addNs: number;
  updateNs: number;
  deleteNs: number;
  listNs: number;
}

const STRIDE = 7_919;
/** Namespaces a prefix get cycles through, at every store size. */
const PREFIX_NAMESPACES = 10;
let sink: unknown;

function meta(namespace: string, name: string, rv: number): KubeObject {
  return { metadata: { namespace, name, resourceVersion: String(rv) } };
}

/** Best of `rounds` timings of `fn`, divided by `ops`, in ns. */
function time(rounds: number, ops: number, fn: () => void): number {
  let best = Infinity;
  for (let r = 0; r < rounds; r++) {
    const t0 = performance.now();
    fn();
    best = Math.min(best, performance.now() - t0);
  }
  return best * 1e6 / ops;
}

function measure(size: number): StoreCosts {
  const store = new MemoryStore({ keyCount: 2 });
  const namespaces: string[] = [];
  const names: string[] = [];
  const versions: KubeObject[][] = [[], []];
  for (let i = 0; i < size; i++) {
    namespaces.push(podNamespace(i));
    names.push(podName(i));
    versions[0].push(meta(namespaces[i], names[i], 2 * i));
    versions[1].push(meta(namespaces[i], names[i], 2 * i + 1));
    store.add(versions[0][i], [namespaces[i], names[i]]);
  }
  const nsCount = size / PODS_PER_NAMESPACE;
  const nsNames = Array.from(
    { length: nsCount },
    (_, j) => podNamespace(j * PODS_PER_NAMESPACE),
  );
  const OPS = 20_000;

  const getExactNs = time(5, OPS, () => {
    let at = 0;
    for (let k = 0; k < OPS; k++) {
      at = (at + STRIDE) % size;
      sink = store.get(namespaces[at], names[at]);
    }
  });
  // The same namespaces at every size (the smallest store's 10): stepping
  // through all of them measured the CPU caches, 1,000 answers at 100k
  // against 10 at 1k, not the store (bench/ANALYSIS.md, "Prefix get and
  // store size").
  const prefixSet = Math.min(nsCount, PREFIX_NAMESPACES);
  const getPrefixNs = time(5, OPS, () => {
    let at = 0;
    for (let k = 0; k < OPS; k++) {
      at = (at + 37) % prefixSet;
      sink = store.get(nsNames[at]);
    }
  });
  let flip = 1;
  const updateNs = time(5, OPS, () => {
    let at = 0;
    for (let k = 0; k < OPS; k++) {
      at = (at + STRIDE) % size;
      store.update(versions[flip][at], [namespaces[at], names[at]]);
    }
    flip ^= 1;
  });
  // A write invalidates the namespace's sorted answer; the next prefix get
  // rebuilds it. Timed as update + get, minus the same updates alone.
  const PREFIX_OPS = 5_000;
  const localUpdates = (withGet: boolean) => () => {
    let at = 0;
    for (let k = 0; k < PREFIX_OPS; k++) {
      at = (at + 37) % nsCount;
      const i = at * PODS_PER_NAMESPACE + (k % PODS_PER_NAMESPACE);
      store.update(versions[flip][i], [namespaces[i], names[i]]);
      if (withGet) sink = store.get(nsNames[at]);
    }
    flip ^= 1;
  };
  const updatesOnly = time(5, PREFIX_OPS, localUpdates(false));
  const updateThenGet = time(5, PREFIX_OPS, localUpdates(true));
  const getPrefixAfterWriteNs = Math.max(0, updateThenGet - updatesOnly);

  // Fresh identities in existing namespaces. Each round uses new names:
  // re-adding one identity over and over piles deleted entries into its
  // V8 hash-table chain, which would measure V8, not the store.
  const FRESH = 5_000;
  let addNs = Infinity;
  let deleteNs = Infinity;
  for (let round = 0; round < 5; round++) {
    const fresh: KubeObject[] = [];
    const keys: string[][] = [];
    for (let j = 0; j < FRESH; j++) {
      const namespace = nsNames[(j * 37) % nsCount];
      const name = `fresh-${round}-${j}`;
      fresh.push(meta(namespace, name, 1));
      keys.push([namespace, name]);
    }
    let t0 = performance.now();
    for (let j = 0; j < FRESH; j++) store.add(fresh[j], keys[j]);
    addNs = Math.min(addNs, (performance.now() - t0) * 1e6 / FRESH);
    t0 = performance.now();
    for (let j = 0; j < FRESH; j++) store.delete(keys[j][0], keys[j][1]);
    deleteNs = Math.min(deleteNs, (performance.now() - t0) * 1e6 / FRESH);
  }
  if (store.size !== size) throw new Error("Store size drifted");

  const listNs = time(size >= 100_000 ? 5 : 20, 1, () => {
    sink = store.list();
  });
  return {
    size,
    getExactNs,
    getPrefixNs,
    getPrefixAfterWriteNs,
    addNs,
    updateNs,
    deleteNs,
    listNs,
  };
}

if (import.meta.main) {
  const sizes = (Deno.args[0] ?? "1000,10000,100000").split(",").map(Number);
  const results = sizes.map(measure);
  if (sink === Symbol.for("never")) console.log(sink);
  console.log(`RESULT ${JSON.stringify(results)}`);
}
