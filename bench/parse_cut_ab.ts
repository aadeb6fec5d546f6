/**
 * Parse only what is kept, interleaved: 20k MODIFIED lines of distinct 3.3 KB
 * Pods (bench/_pods.ts, 1.4 KB of each `metadata.managedFields`) and 40 LIST
 * pages of 500 of them, `ignoreFields: ["metadata.managedFields"]`, parsed
 * as the loop parses them (listwatch/_bodies.ts: cut before the
 * parse, pruned after) and as it did before (parse, then prune), in
 * alternating rounds; also the parts (the scan alone, parsing the cut text,
 * parsing the whole text). On a shared machine only such interleaved figures
 * compare; the minimum is the least disturbed round.
 *
 * Run: `deno run -A bench/parse_cut_ab.ts [--rounds 15]`
 *
 * @module
 */

import { Indexer } from "../selection/indexer.ts";
import { cutJson, jsonCut, parseJson } from "../_internal/_json.ts";
import { IgnoredFields } from "../listwatch/_bodies.ts";
import { median } from "./_format.ts";
import { makePod } from "./_pods.ts";

const at = Deno.args.indexOf("--rounds");
const rounds = at < 0 ? 15 : Number(Deno.args[at + 1]);
const LINES = 20_000;
const PAGE = 500;

const lines: string[] = [];
for (let i = 0; i < LINES; i++) {
  lines.push(JSON.stringify({
    type: "MODIFIED",
    object: makePod(i, 10_000 + i, i % 7),
  }));
}
const pages: string[] = [];
for (let p = 0; p < LINES / PAGE; p++) {
  pages.push(JSON.stringify({
    kind: "PodList",
    apiVersion: "v1",
    metadata: { resourceVersion: "30000", continue: "next" },
    items: Array.from({ length: PAGE }, (_, k) => {
      const { apiVersion: _a, kind: _k, ...item } = makePod(
        p * PAGE + k,
        10_000 + p * PAGE + k,
      );
      return item;
    }),
  }));
}
const plan = jsonCut([["metadata", "managedFields"]])!;
const cutLines = lines.map((line) => cutJson(line, plan.line)!);
const indexer = new Indexer({
  indexBy: ["metadata.name"],
  ignoreFields: ["metadata.managedFields"],
});
const ignored = IgnoredFields.of(["metadata.managedFields"])!;
let sink: unknown;

const cases: Record<string, () => void> = {
  "watch lines: parse, then prune": () => {
    for (let i = 0; i < LINES; i++) {
      const event = parseJson(lines[i]) as { object: never };
      event.object = indexer.filterFields(event.object) as never;
      sink = event;
    }
  },
  "watch lines: cut, parse, prune": () => {
    for (let i = 0; i < LINES; i++) {
      const event = ignored.parseLine!(lines[i]);
      ignored.event(event);
      sink = event;
    }
  },
  "LIST pages: parse, then prune": () => {
    for (const page of pages) {
      const list = parseJson(page) as { items: never[] };
      list.items = list.items.map((o) => indexer.filterFields(o) as never);
      sink = list;
    }
  },
  "LIST pages: cut, parse, prune": () => {
    for (const page of pages) sink = ignored.list(ignored.parseList!(page));
  },
  "(part) the scan and cut alone": () => {
    for (let i = 0; i < LINES; i++) sink = cutJson(lines[i], plan.line);
  },
  "(part) parsing the cut lines": () => {
    for (let i = 0; i < LINES; i++) sink = parseJson(cutLines[i]);
  },
  "(part) parsing the whole lines": () => {
    for (let i = 0; i < LINES; i++) sink = parseJson(lines[i]);
  },
};

const times: Record<string, number[]> = {};
for (let r = 0; r < rounds; r++) {
  const names = Object.keys(cases);
  if (r % 2 === 1) names.reverse();
  for (const name of names) {
    const start = performance.now();
    cases[name]();
    (times[name] ??= []).push(performance.now() - start);
  }
}
if (sink === Symbol.for("never")) console.log(sink);

console.log(
  `${LINES / 1000}k Pod lines (${lines[0].length} B, ${
    cutLines[0].length
  } B cut) and ${pages.length} pages of ${PAGE}, ${rounds} interleaved rounds (load ${
    Deno.loadavg().map((l) => l.toFixed(1)).join(" ")
  }):`,
);
console.log("| case | median ms | min ms | µs per object (median) |");
console.log("| --- | ---: | ---: | ---: |");
for (const [name, list] of Object.entries(times)) {
  const m = median(list)!;
  console.log(
    `| ${name} | ${m.toFixed(1)} | ${Math.min(...list).toFixed(1)} | ${
      (m * 1000 / LINES).toFixed(2)
    } |`,
  );
}
