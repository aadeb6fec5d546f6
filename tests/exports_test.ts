// The public surface is a promise: every name a user can import, from the
// root or a subpath, is listed in exports.json, so adding, removing or
// moving one is a visible change in review (and a CHANGELOG line). Type-only
// names count too, which is why the names come from `deno doc --json` and not
// from `Object.keys` of the imported modules.
import assert from "node:assert/strict";

const ROOT = new URL("../", import.meta.url);
/** The most names the root may export: what a controller author holds in their head. */
const MAX_ROOT_NAMES = 40;

interface DocJson {
  nodes: Record<string, {
    symbols?: {
      name: string;
      declarations: {
        location: { filename: string; line: number };
        kind: string;
        /** For a re-export deno doc did not follow (`kind: "reference"`). */
        def?: { target?: { filename: string; line: number } };
      }[];
    }[];
  }>;
}

async function readJson<T>(path: string): Promise<T> {
  return JSON.parse(await Deno.readTextFile(new URL(path, ROOT)));
}

const denoJson = await readJson<{
  exports: Record<string, string>;
  tasks: Record<string, string>;
}>("deno.json");
const packageExports = denoJson.exports;
const expected = await readJson<Record<string, string[]>>(
  "tests/exports.json",
);

/** Each entry's exported names and the files that declare them. */
async function documented(): Promise<{
  names: Map<string, string[]>;
  declaredIn: Set<string>;
  /** name → where it is declared → the entry points exporting it from there. */
  origins: Map<string, Map<string, string[]>>;
}> {
  const entries = Object.values(packageExports);
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["doc", "--json", ...entries],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(code, 0, new TextDecoder().decode(stderr));
  const doc: DocJson = JSON.parse(new TextDecoder().decode(stdout));
  const names = new Map<string, string[]>();
  const declaredIn = new Set<string>();
  const origins = new Map<string, Map<string, string[]>>();
  for (const [subpath, file] of Object.entries(packageExports)) {
    const node = doc.nodes[new URL(file, ROOT).href];
    assert.ok(node, `deno doc --json has no module for ${file}`);
    const symbols = node.symbols ?? [];
    names.set(subpath, symbols.map((s) => s.name).sort());
    for (const symbol of symbols) {
      const where = symbol.declarations.map((d) => {
        const at = (d.kind === "reference" && d.def?.target) || d.location;
        return `${at.filename.slice(ROOT.href.length)}:${at.line}`;
      }).sort().join(", ");
      let byOrigin = origins.get(symbol.name);
      if (!byOrigin) origins.set(symbol.name, byOrigin = new Map());
      byOrigin.set(where, [...byOrigin.get(where) ?? [], subpath]);
      for (const d of symbol.declarations) {
        declaredIn.add(d.location.filename.slice(ROOT.href.length));
      }
    }
  }
  return { names, declaredIn, origins };
}

const { names, declaredIn, origins } = await documented();

Deno.test("exports: deno.json and exports.json list the same entry points", () => {
  assert.deepEqual(
    Object.keys(packageExports).sort(),
    Object.keys(expected).sort(),
  );
});

Deno.test("exports: the test tasks type-check (and the full ones doc-lint) every entry point", () => {
  const checks: [task: string, prefixes: string[]][] = [
    ["test", ["deno check ", "deno doc --lint "]],
    ["test:unit", ["deno check ", "deno doc --lint "]],
    ["test:fast", ["deno check "]],
  ];
  for (const [task, prefixes] of checks) {
    const commands = denoJson.tasks[task].split("&&").map((c) => c.trim());
    for (const prefix of prefixes) {
      const command = commands.find((c) => c.startsWith(prefix)) ?? "";
      const files = new Set(command.slice(prefix.length).split(/\s+/));
      const missing = Object.values(packageExports)
        .map((f) => f.slice(2))
        .filter((f) => !files.has(f));
      assert.deepEqual(missing, [], `"${prefix.trim()}" in the ${task} task`);
    }
  }
});

Deno.test("exports: every entry point exports exactly the listed names", () => {
  for (const [subpath, list] of Object.entries(expected)) {
    assert.deepEqual(
      names.get(subpath),
      [...list].sort(),
      `exports of "${subpath}" changed: update tests/exports.json (and CHANGELOG.md)`,
    );
  }
});

Deno.test(`exports: the root exports at most ${MAX_ROOT_NAMES} names`, () => {
  const root = names.get(".") ?? [];
  assert.ok(
    root.length <= MAX_ROOT_NAMES,
    `the root exports ${root.length} names; move building blocks to a subpath`,
  );
});

Deno.test("exports: every root name is also exported by its subpath", () => {
  const elsewhere = new Set(
    [...names].filter(([subpath]) => subpath !== ".").flatMap(([, n]) => n),
  );
  const onlyAtRoot = (names.get(".") ?? []).filter((n) => !elsewhere.has(n));
  assert.deepEqual(onlyAtRoot, []);
});

Deno.test("exports: a name exported by several entry points means one thing", () => {
  // The root re-exports names of the subpaths: the same declaration. Two
  // declarations under one name (a `Fault` of the loop and of the fake
  // server) would make a user's import say less than it seems to.
  const clashes = [...origins]
    .filter(([, byOrigin]) => byOrigin.size > 1)
    .map(([name, byOrigin]) =>
      `${name}: ${
        [...byOrigin].map(([where, subpaths]) =>
          `${subpaths.join(" and ")} (${where})`
        ).join(" vs ")
      }`
    );
  assert.deepEqual(clashes, []);
});

/** The published TypeScript files (deno.json's publish.exclude, by hand). */
async function publishedFiles(dir = "", out: string[] = []): Promise<string[]> {
  for await (const entry of Deno.readDir(new URL(dir || ".", ROOT))) {
    const path = dir + entry.name;
    if (entry.isDirectory) {
      if (
        /^(\.|bench$|demo$|dist$|tests$|tools$|node_modules$)/.test(entry.name)
      ) continue;
      await publishedFiles(`${path}/`, out);
    } else if (
      path.endsWith(".ts") && !path.endsWith("_test.ts") &&
      path !== "testing/_seeded_random.ts" && path !== "demo.ts"
    ) {
      out.push(path);
    }
  }
  return out.sort();
}

Deno.test("exports: a leading underscore marks exactly the files no entry point exports from", async () => {
  const entries = new Set(Object.values(packageExports).map((f) => f.slice(2)));
  const files = await publishedFiles();
  const internalButExported = files.filter((f) =>
    /(^|\/)_[^/]*$/.test(f) && declaredIn.has(f)
  );
  const publicButUnexported = files.filter((f) =>
    !/(^|\/)_[^/]*$/.test(f) && !declaredIn.has(f) && !entries.has(f)
  );
  assert.deepEqual(internalButExported, [], "public names in internal files");
  assert.deepEqual(
    publicButUnexported,
    [],
    "files without a leading underscore that no entry point exports from",
  );
});
