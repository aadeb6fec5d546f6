// The map and its checks. Each folder's mod.ts module doc names, under
// "## Files", every library file of the folder by its path from the folder
// (the root's files, and its private helpers in `_internal/`, in the root
// mod.ts), and names no file that is not there.
// ARCHITECTURE.md's "Where a change goes" table names, for each kind of
// change, the library files whose code mentions its example, and their count:
// this searches the library and wants exactly those files.
import assert from "node:assert/strict";

const ROOT = new URL("../", import.meta.url);

/** The folders whose mod.ts names every file; `""` is the root's own files. */
const MAPPED = [
  "",
  "metrics",
  "selection",
  "store",
  "listwatch",
  "watcher",
  "indextracker",
  "leaderelection",
  "sharding",
  "controller",
  "health",
  "client",
];

/** The kinds of change ARCHITECTURE.md's table must have a row for. */
const CHANGES = [
  "a fault class",
  "a store backend",
  "a metric",
  "a loop option",
  "a kind of watcher",
  "a controller relation",
  "a shard mode",
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

/** The "## Files" section of a mod.ts module doc, its ` * ` margins removed. */
async function filesSection(folder: string): Promise<string> {
  const text = await Deno.readTextFile(
    new URL(folder ? `${folder}/mod.ts` : "mod.ts", ROOT),
  );
  const doc = text.slice(0, text.indexOf("*/"));
  const start = doc.indexOf(" * ## Files\n");
  assert.ok(start >= 0, `${folder || "the root"}'s mod.ts has no "## Files"`);
  const lines = doc.slice(start).split("\n").slice(1);
  const end = lines.findIndex((line) => /^ \* (## |@)/.test(line));
  return lines.slice(0, end < 0 ? undefined : end)
    .map((line) => line.replace(/^ \*( |$)/, ""))
    .join("\n");
}

const named = (text: string): string[] =>
  [...text.matchAll(/`([^`\s]+\.ts)`/g)].map((m) => m[1]);

Deno.test("each folder's mod.ts names every library file of the folder", async () => {
  const unnamed: string[] = [];
  const stale: string[] = [];
  for (const folder of MAPPED) {
    const section = await filesSection(folder);
    const names = new Set(named(section));
    const files = folder
      ? await filesOf(folder)
      : [...await filesOf(""), ...await filesOf("_internal")];
    for (const path of files) {
      const relative = folder ? path.slice(folder.length + 1) : path;
      if (!names.has(relative)) unnamed.push(path);
    }
    for (const name of names) {
      const path = folder ? `${folder}/${name}` : name;
      if (!files.includes(path)) stale.push(`${folder || "."}: ${name}`);
    }
  }
  assert.deepEqual(unnamed, []);
  assert.deepEqual(stale, []);
});

/** Published library code: what `deno publish` takes, tests aside. */
async function libraryFiles(): Promise<string[]> {
  const skip = /^(\.|bench$|demo$|dist$|docs$|node_modules$|tests$|tools$)/;
  const out: string[] = [];
  async function walk(dir: string): Promise<void> {
    for await (const entry of Deno.readDir(new URL(dir || ".", ROOT))) {
      const path = dir + entry.name;
      if (entry.isDirectory) {
        if (!skip.test(entry.name)) await walk(`${path}/`);
      } else if (
        path.endsWith(".ts") && !path.endsWith("_test.ts") &&
        path !== "demo.ts" && path !== "testing/_seeded_random.ts"
      ) out.push(path);
    }
  }
  await walk("");
  return out.sort();
}

/** A file's code with its comments aside (block comments, whole-line ones). */
function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
}

interface ChangeRow {
  change: string;
  example: string;
  count: number;
  files: string[];
}

async function changeRows(): Promise<ChangeRow[]> {
  const text = await Deno.readTextFile(new URL("ARCHITECTURE.md", ROOT));
  const section = text.slice(text.indexOf("## Where a change goes"));
  const table = section.slice(0, section.indexOf("\n\n", section.indexOf("|")));
  return table.split("\n").filter((line) => line.startsWith("|"))
    .slice(2)
    .map((line) => {
      const [change, example, files] = line.split("|").slice(1, -1)
        .map((cell) => cell.trim());
      const count = /^(\d+):/.exec(files);
      assert.ok(count, `the row of ${change} starts its files with a count`);
      return {
        change,
        example: /^`(.+)`$/.exec(example)![1],
        count: Number(count[1]),
        files: named(files),
      };
    });
}

Deno.test('ARCHITECTURE.md\'s "Where a change goes" names exactly the files of each change', async () => {
  const rows = await changeRows();
  for (const change of CHANGES) {
    assert.ok(
      rows.some((row) => row.change.startsWith(change)),
      `no row for ${change}`,
    );
  }
  const library = await Promise.all(
    (await libraryFiles()).map(async (path) =>
      [path, code(await Deno.readTextFile(new URL(path, ROOT)))] as const
    ),
  );
  for (const row of rows) {
    assert.equal(row.files.length, row.count, `${row.change}: the count`);
    const mentioning = library.filter(([, text]) => text.includes(row.example))
      .map(([path]) => path);
    assert.deepEqual(
      [...row.files].sort(),
      mentioning,
      `${row.change}: the files whose code mentions ${row.example}`,
    );
  }
});

Deno.test("every path ARCHITECTURE.md names exists", async () => {
  const text = await Deno.readTextFile(new URL("ARCHITECTURE.md", ROOT));
  const missing: string[] = [];
  for (
    const [path] of text.matchAll(/\b[\w.]+(\/[\w.]+)+\.(ts|md|sh|mjs|py)\b/g)
  ) {
    try {
      await Deno.stat(new URL(path, ROOT));
    } catch {
      missing.push(path);
    }
  }
  assert.deepEqual(missing, []);
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
