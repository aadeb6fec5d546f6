// Public words say what they mean. The published sources and the docs once
// pointed at "the seed" (the Go packages this one ports, which a reader of
// the package never sees); they name those packages instead.
import assert from "node:assert/strict";

const ROOT = new URL("../", import.meta.url);
/** Not published: their words are for this repository's contributors. */
const SKIPPED =
  /^(\.|bench$|demo$|demo\.ts$|dist$|node_modules$|tests$|tools$)/;

async function publicTexts(dir = "", out: string[] = []): Promise<string[]> {
  for await (const entry of Deno.readDir(new URL(dir || ".", ROOT))) {
    if (SKIPPED.test(entry.name) && dir === "") continue;
    const path = dir + entry.name;
    if (entry.isDirectory) await publicTexts(`${path}/`, out);
    else if (/\.(ts|md)$/.test(path) && !path.endsWith("_test.ts")) {
      out.push(path);
    }
  }
  return out.sort();
}

Deno.test('public docs name the Go packages they mean, not "the seed"', async () => {
  const found: string[] = [];
  for (const path of await publicTexts()) {
    const lines = (await Deno.readTextFile(new URL(path, ROOT))).split("\n");
    lines.forEach((line, i) => {
      if (/\b(the|Go) seed\b|\bseed's\b/i.test(line)) {
        found.push(`${path}:${i + 1}: ${line.trim()}`);
      }
    });
  }
  assert.deepEqual(found, []);
});
