import assert from "node:assert/strict";
import { builtinResources, type ResourceDefinition } from "./resources.ts";

/** The table row the module docs must have for a built-in resource. */
function row(r: ResourceDefinition): string {
  const cells = [
    `\`${r.resource}\``,
    `\`${r.group ? `${r.group}/${r.version}` : r.version}\``,
    r.kind,
    r.namespaced ? "yes" : "no",
    r.shortNames?.join(", ") || "—",
    r.generation === false
      ? "no"
      : Array.isArray(r.generation)
      ? r.generation.map((p) => `\`${p}\``).join(", ")
      : "yes",
    r.statusSubresource === false ? "no" : "yes",
    r.allowUnconditionalUpdate ? "yes" : "no",
  ];
  return `| ${cells.join(" | ")} |`;
}

Deno.test("the testing module docs list every built-in resource as served", async () => {
  const doc = await Deno.readTextFile(new URL("./mod.ts", import.meta.url));
  const rows = doc.split("\n")
    .map((line) => line.replace(/^ \* ?/, ""))
    .filter((line) => /^\| `/.test(line));
  assert.deepEqual(rows, builtinResources.map(row));
});

Deno.test("built-in resources include coordination.k8s.io/v1 leases", () => {
  const lease = builtinResources.find((r) => r.resource === "leases");
  assert.deepEqual(
    lease && [lease.group, lease.version, lease.kind, lease.namespaced],
    ["coordination.k8s.io", "v1", "Lease", true],
  );
});
