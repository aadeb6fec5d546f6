// The library's layers point one way. Each folder is a layer: a file may
// import its own folder, the root's internal files and the folders below its
// own, never one above. A folder's `_` files are its own; another folder may
// reach into them only where ALLOWED_INTERNAL says so, with the reason. And no
// library file imports itself back through others. Test files are exempt: a
// test may drive any layer.
import assert from "node:assert/strict";

const ROOT = new URL("../", import.meta.url);

/**
 * Bottom first; `""` is the root's own files (`clock.ts`, …, and its private
 * helpers in `_internal/`, one layer with them). They
 * sit above `metrics`, which imports nothing (the root's `_metrics.ts` makes
 * every component's instruments over its `Meter`), and below the rest.
 */
const LAYERS = [
  "metrics",
  "",
  "client",
  "selection",
  "store",
  "listwatch",
  "watcher",
  "indextracker",
  "leaderelection",
  "sharding",
  "controller",
  "health",
  "testing",
];

/** Files that only gather the others: the root entry and the demo. */
const TOP = new Set(["mod.ts", "demo.ts"]);

/** Cross-folder imports of another folder's `_` file, each with the reason. */
const ALLOWED_INTERNAL: Record<string, string> = {
  "watcher/_source_form.ts -> selection/_prune.ts":
    "whether ignoreFields removes a selector's path is the indexer's pruning rule (mayCover)",
  "testing/_apply_request.ts -> client/_yaml.ts":
    "an apply body sent as application/apply-patch+yaml is read with the YAML reader kubeconfig files use",
};

/** The upper bound the structure promises on ALLOWED_INTERNAL. */
const MAX_ALLOWED_INTERNAL = 3;

function isLibraryFile(path: string): boolean {
  return path.endsWith(".ts") && !path.endsWith("_test.ts");
}

async function libraryFiles(): Promise<string[]> {
  const out: string[] = [];
  async function walk(dir: string) {
    for await (const entry of Deno.readDir(new URL(dir, ROOT))) {
      const path = dir + entry.name;
      if (entry.isDirectory) {
        if (
          dir === "" && !LAYERS.includes(entry.name) &&
          entry.name !== ROOT_INTERNAL
        ) continue;
        await walk(path + "/");
      } else if (isLibraryFile(path)) out.push(path);
    }
  }
  await walk("");
  return out.sort();
}

const IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)"(\.{1,2}\/[^"]+)"/g;

function resolve(from: string, spec: string): string {
  return new URL(spec, new URL(from, ROOT)).pathname.slice(
    ROOT.pathname.length,
  );
}

/** The root's private helpers: a folder of the root's layer. */
const ROOT_INTERNAL = "_internal";

function folderOf(path: string): string {
  const folder = path.includes("/") ? path.slice(0, path.indexOf("/")) : "";
  return folder === ROOT_INTERNAL ? "" : folder;
}

const files = await libraryFiles();
const imports = new Map<string, string[]>();
for (const file of files) {
  const text = await Deno.readTextFile(new URL(file, ROOT));
  imports.set(file, [...text.matchAll(IMPORT)].map((m) => resolve(file, m[1])));
}

Deno.test("layers: no library file imports a folder above its own", () => {
  const upward: string[] = [];
  for (const [file, targets] of imports) {
    if (TOP.has(file)) continue;
    const rank = LAYERS.indexOf(folderOf(file));
    for (const target of targets) {
      if (TOP.has(target) || LAYERS.indexOf(folderOf(target)) > rank) {
        upward.push(`${file} -> ${target}`);
      }
    }
  }
  assert.deepEqual(upward, []);
});

Deno.test("layers: another folder's internal files only where listed", () => {
  const found: Record<string, string> = {};
  for (const [file, targets] of imports) {
    for (const target of targets) {
      const folder = folderOf(target);
      const base = target.split("/").at(-1)!;
      if (folder === "" || folder === folderOf(file) || !base.startsWith("_")) {
        continue;
      }
      found[`${file} -> ${target}`] =
        ALLOWED_INTERNAL[`${file} -> ${target}`] ??
          "not listed";
    }
  }
  assert.deepEqual(found, ALLOWED_INTERNAL);
  assert.ok(Object.keys(ALLOWED_INTERNAL).length <= MAX_ALLOWED_INTERNAL);
});

Deno.test("layers: no circle of imports between library files", () => {
  // Tarjan's strongly connected components over the import graph.
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  function visit(file: string) {
    index.set(file, next);
    low.set(file, next++);
    stack.push(file);
    onStack.add(file);
    for (const target of imports.get(file) ?? []) {
      if (!imports.has(target)) continue;
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file)!, index.get(target)!));
      }
    }
    if (low.get(file) === index.get(file)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== file);
      if (component.length > 1) circles.push(component.sort());
    }
  }
  for (const file of imports.keys()) if (!index.has(file)) visit(file);
  assert.deepEqual(circles, []);
});
