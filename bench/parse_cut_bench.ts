// Parse only what is kept: a watch line and a LIST page of 3.3 KB Pods
// (bench/_pods.ts, a third of each `metadata.managedFields`), with
// `ignoreFields: ["metadata.managedFields"]`, parsed as the loop parses them
// (listwatch/_bodies.ts: cut before the parse, pruned after) against
// parse-then-prune (the loop before the cut). Each iteration parses 1,000
// distinct lines, or one page of 500 items, so that what the parse builds is
// garbage to collect, as in a flood.
//
//   deno bench --allow-all bench/parse_cut_bench.ts

import { Indexer } from "../selection/indexer.ts";
import { parseJson } from "../_internal/_json.ts";
import { IgnoredFields } from "../listwatch/_bodies.ts";
import { makePod } from "./_pods.ts";

const LINES = 1_000;
const lines: string[] = [];
for (let i = 0; i < LINES; i++) {
  lines.push(JSON.stringify({
    type: "MODIFIED",
    object: makePod(i, 10_000 + i, i % 7),
  }));
}
const page = JSON.stringify({
  kind: "PodList",
  apiVersion: "v1",
  metadata: { resourceVersion: "20000", continue: "next" },
  items: Array.from({ length: 500 }, (_, i) => {
    const { apiVersion: _a, kind: _k, ...item } = makePod(i, 10_000 + i);
    return item;
  }),
});

const ignored = IgnoredFields.of(["metadata.managedFields"])!;
const indexer = new Indexer({
  indexBy: ["metadata.name"],
  ignoreFields: ["metadata.managedFields"],
});
let sink: unknown;

Deno.bench(
  `watch lines: parse, then prune (${LINES} Pod events)`,
  { group: "watch line", baseline: true },
  () => {
    for (let i = 0; i < LINES; i++) {
      const event = parseJson(lines[i]) as { object: never };
      event.object = indexer.filterFields(event.object) as never;
      sink = event;
    }
  },
);

Deno.bench(
  `watch lines: cut, parse, prune (${LINES} Pod events)`,
  { group: "watch line" },
  () => {
    for (let i = 0; i < LINES; i++) {
      const event = ignored.parseLine!(lines[i]);
      ignored.event(event);
      sink = event;
    }
  },
);

Deno.bench(
  "LIST page: parse, then prune (500 Pods)",
  { group: "LIST page", baseline: true },
  () => {
    const list = parseJson(page) as { items: never[] };
    list.items = list.items.map((o) => indexer.filterFields(o) as never);
    sink = list;
  },
);

Deno.bench(
  "LIST page: cut, parse, prune (500 Pods)",
  { group: "LIST page" },
  () => {
    sink = ignored.list(ignored.parseList!(page));
  },
);

globalThis.addEventListener("unload", () => {
  if (sink === Symbol.for("never")) console.log(sink);
});
