// The README's npm route says what `.ci/runtimes` tests: the oldest Node
// (which `engines` of the generated package.json names too), the project a
// consumer needs (`"type": "module"`, the tsconfig) and the TypeScript
// versions its typed consumer compiles with.
import assert from "node:assert/strict";
import { packageJson, TYPESCRIPT_VERSION } from "../tools/npm_package.ts";
import { PROVISIONING_COMMAND } from "../testing/control_plane/errors.ts";

const ROOT = new URL("../", import.meta.url);
const read = (path: string) => Deno.readTextFile(new URL(path, ROOT));

const runtimes = await read(".ci/runtimes");
const readme = await read("README.md");

/** The oldest Node `.ci/runtimes` runs on, from its check of the machine's. */
function oldestTestedNode(): { major: number; minor: number } {
  const check = runtimes.match(/a > (\d+) \|\| \(a === \1 && b >= (\d+)\)/);
  assert.ok(check, ".ci/runtimes checks the version of the machine's Node");
  return { major: Number(check[1]), minor: Number(check[2]) };
}

/** The `Node X.Y or later` claims of a text (`Node (X.Y or later)` too). */
function nodeClaims(text: string): string[] {
  return [...text.matchAll(/Node \(?(\d+\.\d+)\+? or later/g)].map((m) => m[1]);
}

/** The README's fenced JSON blocks, parsed. */
function jsonBlocks(): unknown[] {
  return [...readme.matchAll(/^```json\n([\s\S]*?)^```$/gm)].map((m) =>
    JSON.parse(m[1])
  );
}

Deno.test("engines, the README and the module docs name the oldest Node .ci/runtimes tests", async () => {
  const { major, minor } = oldestTestedNode();
  const oldest = `${major}.${minor}`;
  const deno = JSON.parse(await read("deno.json"));
  assert.deepEqual(packageJson(deno).engines, { node: `>=${oldest}.0` });
  // The Node it installs when the machine's is older is not older either.
  const pinned = runtimes.match(/^NODE_VERSION=(\d+)\.(\d+)\.\d+$/m);
  assert.ok(pinned, ".ci/runtimes pins a Node");
  assert.equal(Number(pinned[1]), major);
  assert.ok(Number(pinned[2]) >= minor, pinned[0]);
  for (const path of ["README.md", "mod.ts", "client/fetch_client.ts"]) {
    const claims = nodeClaims(await read(path));
    assert.ok(claims.length > 0, `${path} names the Node it runs on`);
    assert.deepEqual(
      [...new Set(claims)],
      [oldest],
      `${path}: Node ${claims.join(", ")} or later`,
    );
  }
});

Deno.test("the README shows the package.json field and tsconfig the consumer compiles with", async () => {
  const blocks = jsonBlocks();
  assert.ok(
    blocks.some((b) => (b as { type?: string }).type === "module"),
    'the README shows "type": "module" for the consumer\'s package.json',
  );
  assert.match(runtimes, /"type": "module"/);
  const shown = blocks.find((b) =>
    (b as { compilerOptions?: unknown }).compilerOptions !== undefined
  ) as { compilerOptions: Record<string, unknown> } | undefined;
  assert.ok(shown, "the README shows a tsconfig");
  // .ci/runtimes copies this file into the consumer's project as is.
  assert.match(runtimes, /tests\/runtimes\/consumer\.tsconfig\.json/);
  const tested = JSON.parse(await read("tests/runtimes/consumer.tsconfig.json"))
    .compilerOptions as Record<string, unknown>;
  // What only the check adds: the output folder, no output on an error,
  // and the package's own declarations checked too.
  const { outDir: _, noEmitOnError: __, skipLibCheck, ...settings } = tested;
  assert.equal(skipLibCheck, false);
  assert.deepEqual(shown.compilerOptions, settings);
});

Deno.test("the README names every TypeScript the consumer compiles with", () => {
  const extra = runtimes.match(/^CONSUMER_TYPESCRIPT_VERSIONS=\(([^)]*)\)$/m);
  assert.ok(extra, ".ci/runtimes lists the TypeScript versions it checks");
  const versions = [TYPESCRIPT_VERSION, ...extra[1].trim().split(/\s+/)];
  assert.ok(versions.some((v) => v.startsWith("5.")), versions.join(" "));
  assert.ok(versions.some((v) => v.startsWith("7.")), versions.join(" "));
  // Where the README describes the route without JSR.
  const route = readme.slice(
    readme.indexOf("Without JSR"),
    readme.indexOf("## The two commands"),
  );
  for (const version of versions) {
    assert.ok(
      route.includes(version),
      `the README names TypeScript ${version}`,
    );
  }
});

Deno.test("the control plane's provisioning command needs no Deno, and is the one the README, the errors and .ci/runtimes use", async () => {
  assert.match(PROVISIONING_COMMAND, /^bash /);
  assert.ok(
    readme.includes(`\`${PROVISIONING_COMMAND}\``),
    `the README gives \`${PROVISIONING_COMMAND}\``,
  );
  // .ci/runtimes provisions as a Node user would, then runs the plane on
  // Node and Bun from the package.
  assert.ok(runtimes.includes(PROVISIONING_COMMAND), runtimes);
  assert.match(runtimes, /tests\/runtimes\/control_plane\.mjs/);
  const task = JSON.parse(await read("deno.json")).tasks["control-plane"];
  assert.equal(task, PROVISIONING_COMMAND, "deno task control-plane runs it");
});
