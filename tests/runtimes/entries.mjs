// Every entry point of the package loads on this runtime, as bundled for
// npm users, and exports no value that tests/exports.json does not list
// (the Deno tests check the full lists, types included).
//
//   <runtime> tests/runtimes/entries.mjs <bundle dir>
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const [bundleDir] = process.argv.slice(2);
if (!bundleDir) throw new Error("usage: entries.mjs <bundle dir>");
const read = (path) =>
  JSON.parse(readFileSync(new URL(`../../${path}`, import.meta.url), "utf8"));
const { exports } = read("deno.json");
const expected = read("tests/exports.json");

const problems = [];
let values = 0;
for (const [subpath, file] of Object.entries(exports)) {
  const bundled = `${bundleDir}/${
    file.replace(/^\.\//, "").replace(/\.ts$/, ".js")
  }`;
  try {
    const names = Object.keys(await import(pathToFileURL(bundled).href));
    const unlisted = names.filter((name) => !expected[subpath]?.includes(name));
    if (unlisted.length > 0) {
      problems.push(`${subpath} exports unlisted ${unlisted.join(", ")}`);
    }
    values += names.length;
  } catch (error) {
    problems.push(`${subpath} does not load: ${error?.stack ?? error}`);
  }
}
if (problems.length > 0) {
  console.error(problems.join("\n"));
  process.exit(1);
}
console.log(
  `entries ok: ${Object.keys(exports).length} entry points, ${values} values`,
);
