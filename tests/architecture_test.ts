// ARCHITECTURE.md's table names every library file of the folders it maps
// file by file, so a file added without a line there fails here. A row may
// group several (`a.ts`, `b.ts`); a name counts when it appears in
// backticks, alone or as a path.
import assert from "node:assert/strict";

const ROOT = new URL("../", import.meta.url);

/** The folders mapped file by file; `""` is the root's own files. */
const MAPPED = [
  "",
  "metrics",
  "indexer",
  "store",
  "listwatch",
  "watcher",
  "indextracker",
  "leaderelection",
  "health",
];

/** Files that need no line: entry points that only re-export, and the demo. */
function exempt(path: string): boolean {
  const base = path.split("/").at(-1)!;
  return base === "mod.ts" || path === "demo.ts" || base.endsWith("_test.ts");
}

async function filesOf(folder: string): Promise<string[]> {
  const out: string[] = [];
  for await (const entry of Deno.readDir(new URL(folder || ".", ROOT))) {
    const path = folder ? `${folder}/${entry.name}` : entry.name;
    if (entry.isFile && path.endsWith(".ts") && !exempt(path)) out.push(path);
  }
  return out.sort();
}

Deno.test("ARCHITECTURE.md names every library file of the folders it maps", async () => {
  const text = await Deno.readTextFile(new URL("ARCHITECTURE.md", ROOT));
  const named = new Set(
    [...text.matchAll(/`([^`\s]+\.ts)`/g)].flatMap((m) => {
      const path = m[1];
      return [path, path.split("/").at(-1)!];
    }),
  );
  const unnamed: string[] = [];
  for (const folder of MAPPED) {
    for (const path of await filesOf(folder)) {
      if (!named.has(path) && !named.has(path.split("/").at(-1)!)) {
        unnamed.push(path);
      }
    }
  }
  assert.deepEqual(unnamed, []);
});

Deno.test("test helpers are named _<what>_test.ts, like the tests they serve", async () => {
  // One convention: a `_test.ts` ending keeps a helper out of the package
  // and out of this map; a leading underscore says it holds no tests.
  const odd: string[] = [];
  async function walk(dir: string): Promise<void> {
    for await (const entry of Deno.readDir(new URL(dir || ".", ROOT))) {
      const path = dir + entry.name;
      if (entry.isDirectory) {
        if (!/^(\.|bench$|dist$|node_modules$)/.test(entry.name)) {
          await walk(`${path}/`);
        }
      } else if (/^_?test_.*\.ts$/.test(entry.name)) odd.push(path);
    }
  }
  await walk("");
  assert.deepEqual(odd, []);
});
