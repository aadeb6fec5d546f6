// What `freezeObjects` costs: the stored copy of a 3 KB Pod made by the
// watcher's preparer (ignoreFields: managedFields), without and with the deep
// freeze. Each iteration prepares a fresh copy (cloned outside the timing):
// the freeze stops at objects frozen already.

import { Indexer } from "../selection/indexer.ts";
import { silentLogger } from "../logger.ts";
import type { KubeObject } from "../types.ts";
import { ObjectPreparer } from "../watcher/_store_writer.ts";
import { makePod } from "./_pods.ts";

const pod = makePod(4242, 1000, 1);
const indexer = new Indexer({
  indexBy: ["metadata.namespace", "metadata.name"],
  ignoreFields: ["metadata.managedFields"],
});
let sink: unknown;

for (const freeze of [false, true]) {
  const preparer = new ObjectPreparer<KubeObject>({
    indexer,
    logger: silentLogger,
    resource: "pods",
    freeze,
  });
  Deno.bench(
    `prepare a 3 KB Pod${freeze ? ", deep-frozen (freezeObjects)" : ""}`,
    { group: "freezeObjects", baseline: !freeze },
    (b) => {
      const raw = structuredClone(pod);
      b.start();
      sink = preparer.prepare(raw);
      b.end();
    },
  );
}

globalThis.addEventListener("unload", () => {
  if (sink === Symbol.for("never")) console.log(sink);
});
