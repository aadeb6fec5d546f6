/**
 * Heap of a `MemoryStore` holding 100,000 objects in 1,000 namespaces (the
 * soak's shape, indexed by namespace and name) while one object in every
 * namespace is replaced by a new name per round (a DELETED, then an ADDED,
 * so the population stays put): what churn costs a store that keeps
 * nothing it should have dropped.
 *
 * A hash table under deletes keeps room for the deleted entries until it
 * next rehashes, so each per-namespace Map doubles its capacity once, after
 * about 28 replacements in its namespace (100 entries in a table sized for
 * 128), and stays there: heap steps up once, then is flat. The soak
 * (`deno task soak`) sees the same step across its stores; at its old rate
 * of 100 writes/s the step was still under way in the hour's last minutes.
 *
 * ```sh
 * deno run --v8-flags=--expose-gc bench/store_churn_memory.ts [--rounds 80] [--per-namespace 100]
 * ```
 *
 * @module
 */

import { MemoryStore } from "../store/memory_store.ts";
import type { KubeObject } from "../types.ts";

function flag(name: string, fallback: number): number {
  const i = Deno.args.indexOf(`--${name}`);
  return i >= 0 ? Number(Deno.args[i + 1]) : fallback;
}

const NAMESPACES = 1_000;
const perNamespace = flag("per-namespace", 100);
const rounds = flag("rounds", 80);
if (!(Number.isInteger(perNamespace) && perNamespace > 0)) {
  throw new Error(
    `--per-namespace must be a positive integer but is ${perNamespace}`,
  );
}
if (!(Number.isInteger(rounds) && rounds > 0)) {
  throw new Error(`--rounds must be a positive integer but is ${rounds}`);
}

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) {
  throw new Error("Run with --v8-flags=--expose-gc");
}
function settledHeap(): number {
  gc!();
  gc!();
  return Deno.memoryUsage().heapUsed;
}

let next = 0;
function object(namespace: string): KubeObject {
  const name = `pod-${next++}`;
  return { metadata: { namespace, name, resourceVersion: String(next) } };
}

const store = new MemoryStore();
/** The names each namespace holds, so a round can pick one to replace. */
const names: string[][] = [];
for (let n = 0; n < NAMESPACES; n++) {
  const namespace = `ns-${n}`;
  const held: string[] = [];
  for (let i = 0; i < perNamespace; i++) {
    const obj = object(namespace);
    store.add(obj, [namespace, obj.metadata.name!]);
    held.push(obj.metadata.name!);
  }
  names.push(held);
}
const objects = store.size;
const before = settledHeap();
console.log(
  `${objects} objects in ${NAMESPACES} namespaces: heap ${
    (before / 2 ** 20).toFixed(1)
  } MiB`,
);
console.log("round  heap since the fill (MiB)  per object (B)");
for (let round = 1; round <= rounds; round++) {
  for (let n = 0; n < NAMESPACES; n++) {
    const namespace = `ns-${n}`;
    const slot = round % perNamespace;
    store.delete(namespace, names[n][slot]);
    const obj = object(namespace);
    store.add(obj, [namespace, obj.metadata.name!]);
    names[n][slot] = obj.metadata.name!;
  }
  if (round % 4 === 0) {
    const grown = settledHeap() - before;
    console.log(
      `${String(round).padStart(5)}  ${
        (grown / 2 ** 20).toFixed(2).padStart(25)
      }  ${(grown / objects).toFixed(1).padStart(14)}`,
    );
  }
}
