import assert from "node:assert/strict";
import { packageJson, rewriteDeclarationSpecifiers } from "./npm_package.ts";

const denoJson = JSON.parse(
  await Deno.readTextFile(new URL("../deno.json", import.meta.url)),
);

Deno.test("the npm package exports every entry point of deno.json, declarations first", () => {
  const pkg = packageJson(denoJson);
  assert.equal(pkg.name, "@haptic/k8s-watcher");
  assert.equal(pkg.version, denoJson.version);
  assert.equal(pkg.type, "module");
  assert.deepEqual(
    Object.keys(pkg.exports),
    [...Object.keys(denoJson.exports), "./package.json"],
  );
  assert.deepEqual(pkg.exports["./watcher"], {
    types: "./watcher/mod.d.ts",
    default: "./watcher/mod.js",
  });
  assert.deepEqual(pkg.exports["./types"], {
    types: "./types.d.ts",
    default: "./types.js",
  });
  // TypeScript picks the first matching condition: `types` must come first.
  for (const [subpath, target] of Object.entries(pkg.exports)) {
    if (typeof target === "string") continue;
    assert.deepEqual(
      Object.keys(target as object),
      ["types", "default"],
      subpath,
    );
  }
  assert.equal(pkg.main, "./mod.js");
  assert.equal(pkg.types, "./mod.d.ts");
});

Deno.test("an export that is not a ./….ts file is refused", () => {
  assert.throws(
    () => packageJson({ ...denoJson, exports: { ".": "./mod.js" } }),
    { message: "deno.json export . must be a ./….ts file, got ./mod.js" },
  );
});

Deno.test("declarations import the .js files, comments keep their text", () => {
  const before = [
    "/**",
    ' * import { Watcher } from "./bulk.ts";',
    " */",
    'export * from "./bulk.ts";',
    "import type { Gvr } from '../types.ts';",
    "export {",
    "  type A,",
    '} from "./a.ts";',
    'export declare function f(): import("../clock.ts").Clock;',
    'import type { X } from "@haptic/k8s-watcher/types.ts";',
    'export type Name = "file.ts";',
  ].join("\n");
  assert.equal(
    rewriteDeclarationSpecifiers(before),
    [
      "/**",
      ' * import { Watcher } from "./bulk.ts";',
      " */",
      'export * from "./bulk.js";',
      "import type { Gvr } from '../types.js';",
      "export {",
      "  type A,",
      '} from "./a.js";',
      'export declare function f(): import("../clock.js").Clock;',
      'import type { X } from "@haptic/k8s-watcher/types.ts";',
      'export type Name = "file.ts";',
    ].join("\n"),
  );
});
