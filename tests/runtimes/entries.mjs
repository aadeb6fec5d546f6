// Every entry point of the installed npm package loads on this runtime,
// imported by name as a user would, and exports no value that
// tests/exports.json does not list (the Deno tests check the full lists,
// types included). The package's subpaths must be exports.json's.
//
//   <runtime> tests/runtimes/entries.mjs <package name>
//
// Run from a copy of this file in a project that has the package
// installed (`.ci/runtimes`), beside a copy of tests/exports.json.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const [name] = process.argv.slice(2);
if (!name) throw new Error("usage: entries.mjs <package name>");
const read = (url) => JSON.parse(readFileSync(fileURLToPath(url), "utf8"));
const expected = read(new URL("../exports.json", import.meta.url));
const { exports } = read(import.meta.resolve(`${name}/package.json`));
const subpaths = Object.keys(exports).filter((s) => s !== "./package.json");

const problems = [];
const listed = Object.keys(expected).sort().join(" ");
if (subpaths.slice().sort().join(" ") !== listed) {
  problems.push(
    `the package's subpaths (${
      subpaths.join(" ")
    }) are not exports.json's (${listed})`,
  );
}
let values = 0;
for (const subpath of subpaths) {
  const specifier = name + subpath.slice(1);
  try {
    const names = Object.keys(await import(specifier));
    const unlisted = names.filter((n) => !expected[subpath]?.includes(n));
    if (unlisted.length > 0) {
      problems.push(`${specifier} exports unlisted ${unlisted.join(", ")}`);
    }
    values += names.length;
  } catch (error) {
    problems.push(`${specifier} does not load: ${error?.stack ?? error}`);
  }
}
if (problems.length > 0) {
  console.error(problems.join("\n"));
  process.exit(1);
}
console.log(
  `entries ok: ${subpaths.length} entry points of ${name}, ${values} values`,
);
