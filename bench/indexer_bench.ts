// Hot paths of the indexer: JSONPath evaluation, key extraction, ignoreFields
// pruning and the client-side field selector, on a realistic 3 KB Pod.

import { FieldSelector, Indexer, JsonPath } from "../selection/mod.ts";
import { makePod } from "./_pods.ts";

const pod = makePod(4242, 1000, 1);
let sink: unknown;

const simple = new JsonPath("metadata.namespace");
const quoted = new JsonPath("metadata.labels['app.kubernetes.io/name']");
const indexed = new JsonPath("spec.containers[0].image");
const wildcard = new JsonPath("status.conditions[*].type");
const missing = new JsonPath("spec.ingressClassName");

Deno.bench("JsonPath.get metadata.namespace", {
  group: "jsonpath",
  baseline: true,
}, () => {
  sink = simple.get(pod);
});
Deno.bench("JsonPath.get metadata.labels['app.kubernetes.io/name']", {
  group: "jsonpath",
}, () => {
  sink = quoted.get(pod);
});
Deno.bench(
  "JsonPath.get spec.containers[0].image",
  { group: "jsonpath" },
  () => {
    sink = indexed.get(pod);
  },
);
Deno.bench("JsonPath.get spec.ingressClassName (missing)", {
  group: "jsonpath",
}, () => {
  sink = missing.get(pod);
});
Deno.bench(
  "JsonPath.getAll status.conditions[*].type",
  { group: "jsonpath" },
  () => {
    sink = wildcard.getAll(pod);
  },
);
Deno.bench("JsonPath parse (constructor)", { group: "jsonpath" }, () => {
  sink = new JsonPath("metadata.labels['app.kubernetes.io/name']");
});

const byNamespaceName = new Indexer({
  indexBy: ["metadata.namespace", "metadata.name"],
});
const pruning = new Indexer({
  indexBy: ["metadata.namespace", "metadata.name"],
  ignoreFields: ["metadata.managedFields"],
});
const pruningWide = new Indexer({
  indexBy: ["metadata.namespace", "metadata.name"],
  ignoreFields: [
    "metadata.managedFields",
    "metadata.annotations['kubectl.kubernetes.io/restartedAt']",
    "status.conditions[*].lastProbeTime",
  ],
});

Deno.bench("Indexer.extractKeys namespace+name", {
  group: "indexer",
  baseline: true,
}, () => {
  sink = byNamespaceName.extractKeys(pod);
});
Deno.bench("Indexer.filterFields managedFields", { group: "indexer" }, () => {
  sink = pruning.filterFields(pod);
});
Deno.bench(
  "Indexer.filterFields 3 paths incl. [*]",
  { group: "indexer" },
  () => {
    sink = pruningWide.filterFields(pod);
  },
);
Deno.bench("Indexer.filterFields no ignoreFields", { group: "indexer" }, () => {
  sink = byNamespaceName.filterFields(pod);
});
Deno.bench("Indexer.process keys + managedFields", { group: "indexer" }, () => {
  sink = pruning.process(pod);
});

const oneTerm = new FieldSelector("spec.nodeName=node-42");
const threeTerms = new FieldSelector(
  "spec.nodeName=node-42,status.phase!=Failed,metadata.labels['app.kubernetes.io/name']==web",
);
const anyCondition = new FieldSelector("status.conditions[*].type=Ready");

Deno.bench("FieldSelector.matches 1 term", {
  group: "field selector",
  baseline: true,
}, () => {
  sink = oneTerm.matches(pod);
});
Deno.bench("FieldSelector.matches 3 terms", { group: "field selector" }, () => {
  sink = threeTerms.matches(pod);
});
Deno.bench(
  "FieldSelector.matches [*] term",
  { group: "field selector" },
  () => {
    sink = anyCondition.matches(pod);
  },
);

// Keeps the results observable so that nothing is optimised away.
globalThis.addEventListener("unload", () => {
  if (sink === Symbol.for("never")) console.log(sink);
});
