/**
 * Builds the npm package: the route in for Node and Bun users who cannot
 * reach JSR (a company proxy that mirrors npm only, say). The same shape
 * JSR's npm layer serves: every module transpiled to JavaScript one by one,
 * a `.d.ts` beside each, and a `package.json` whose `exports` has one entry
 * per entry point of deno.json.
 *
 *     deno task npm [--out <dir>] [--tsc <path to tsc>]
 *
 * `--out` defaults to `dist/npm` (gitignored); `npm pack` there makes the
 * tarball. TypeScript (pinned, {@linkcode TYPESCRIPT_VERSION}) comes from
 * npm through `npx` unless `--tsc` names a `tsc` to use; it only strips
 * types and writes declarations (`noCheck`: `deno task test` checks the
 * types, with Deno's own TypeScript).
 *
 * @module
 */

/** The TypeScript that emits the JavaScript and the declarations. */
export const TYPESCRIPT_VERSION = "6.0.3";

/**
 * The oldest Node the package is tested on: `.ci/runtimes` runs the
 * machine's Node from 22.18 on (README: "Node 22.18 or later").
 */
export const NODE_ENGINE = ">=22.18.0";

/** The fields of deno.json the package is made from. */
export interface DenoJson {
  /** `@scope/name`, the package's name on npm too. */
  name: string;
  /** The version. */
  version: string;
  /** An SPDX identifier. */
  license: string;
  /** Subpath → source file (`./mod.ts`). */
  exports: Record<string, string>;
}

/**
 * The package.json of the npm package: `exports` maps each subpath of
 * deno.json to its declarations (`types`, first, as TypeScript requires)
 * and its JavaScript.
 *
 * @example
 * ```ts
 * import { packageJson } from "./npm_package.ts";
 *
 * const pkg = packageJson({
 *   name: "@haptic/k8s-watcher",
 *   version: "1.0.0",
 *   license: "Apache-2.0",
 *   exports: { ".": "./mod.ts" },
 * });
 * console.log(pkg.exports);
 * ```
 */
export function packageJson(deno: DenoJson): {
  name: string;
  exports: Record<string, unknown>;
  [field: string]: unknown;
} {
  const exports: Record<string, unknown> = {};
  for (const [subpath, file] of Object.entries(deno.exports)) {
    if (!/^\.\/.*\.ts$/.test(file)) {
      throw new Error(
        `deno.json export ${subpath} must be a ./….ts file, got ${file}`,
      );
    }
    const base = file.slice(0, -".ts".length);
    exports[subpath] = { types: `${base}.d.ts`, default: `${base}.js` };
  }
  exports["./package.json"] = "./package.json";
  const root = deno.exports["."]?.slice(0, -".ts".length);
  return {
    name: deno.name,
    version: deno.version,
    description:
      "Kubernetes list-then-watch loops, indexed in-memory stores and debounced change batches, with no dependencies",
    license: deno.license,
    keywords: ["kubernetes", "k8s", "watch", "informer", "controller"],
    homepage: `https://jsr.io/${deno.name}`,
    type: "module",
    engines: { node: NODE_ENGINE },
    // For tools that read neither `exports` nor its conditions.
    ...(root ? { main: `${root}.js`, types: `${root}.d.ts` } : {}),
    exports,
  };
}

/**
 * Rewrites the relative `.ts` specifiers TypeScript leaves in declarations
 * (`export * from "./bulk.ts"`) to the `.js` files a consumer resolves,
 * as it does in the JavaScript (`rewriteRelativeImportExtensions`).
 * Comment lines (the examples in the docs) keep their text.
 *
 * @example
 * ```ts
 * import { rewriteDeclarationSpecifiers } from "./npm_package.ts";
 *
 * console.log(rewriteDeclarationSpecifiers('export * from "./bulk.ts";'));
 * ```
 */
export function rewriteDeclarationSpecifiers(text: string): string {
  return text.split("\n").map((line) =>
    /^\s*(\*|\/\*|\/\/)/.test(line)
      ? line
      : line.replace(/(["'])(\.{1,2}\/[^"']*)\.ts\1/g, "$1$2.js$1")
  ).join("\n");
}

interface Args {
  out: string;
  tsc: string[];
}

function parseArgs(argv: string[], root: URL): Args {
  let out = new URL("dist/npm", root).pathname;
  let tsc = [
    "npx",
    "-y",
    "--prefer-offline",
    "-p",
    `typescript@${TYPESCRIPT_VERSION}`,
    "tsc",
  ];
  for (let i = 0; i < argv.length; i++) {
    const value = argv[i + 1];
    if ((argv[i] === "--out" || argv[i] === "--tsc") && value === undefined) {
      throw new Error(`${argv[i]} needs a value`);
    }
    if (argv[i] === "--out") out = value, i++;
    else if (argv[i] === "--tsc") tsc = [value], i++;
    else {throw new Error(
        `Unknown argument ${argv[i]}; use --out <dir> or --tsc <path>`,
      );}
  }
  return { out: out.startsWith("/") ? out : `${Deno.cwd()}/${out}`, tsc };
}

/** Empties `dir`, refusing one that holds anything but an earlier build. */
async function prepareOut(dir: string, name: string): Promise<void> {
  let entries: string[];
  try {
    entries = [...Deno.readDirSync(dir)].map((e) => e.name);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      await Deno.mkdir(dir, { recursive: true });
      return;
    }
    throw error;
  }
  if (entries.length === 0) return;
  let previous: string | undefined;
  try {
    previous = JSON.parse(await Deno.readTextFile(`${dir}/package.json`)).name;
  } catch {
    // Not a build of ours.
  }
  if (previous !== name) {
    throw new Error(
      `${dir} is not empty and holds no earlier build of ${name}; choose another --out`,
    );
  }
  await Deno.remove(dir, { recursive: true });
  await Deno.mkdir(dir, { recursive: true });
}

async function* files(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) yield* files(path);
    else if (entry.isFile) yield path;
  }
}

async function build(argv: string[]): Promise<void> {
  const root = new URL("../", import.meta.url);
  const rootPath = root.pathname.replace(/\/$/, "");
  const deno: DenoJson = JSON.parse(
    await Deno.readTextFile(new URL("deno.json", root)),
  );
  const args = parseArgs(argv, root);
  const pkg = packageJson(deno);
  await prepareOut(args.out, deno.name);

  // The tsconfig lives outside the repository: a tsconfig.json beside
  // deno.json would change how Deno reads the sources.
  const work = await Deno.makeTempDir({ prefix: "k8s-watcher-npm-" });
  try {
    const tsconfig = {
      compilerOptions: {
        target: "es2022",
        module: "esnext",
        moduleResolution: "bundler",
        allowImportingTsExtensions: true,
        rewriteRelativeImportExtensions: true,
        verbatimModuleSyntax: true,
        erasableSyntaxOnly: true,
        declaration: true,
        noCheck: true,
        types: [],
        newLine: "lf",
        rootDir: rootPath,
        outDir: args.out,
      },
      files: Object.values(deno.exports).map((f) =>
        `${rootPath}/${f.slice(2)}`
      ),
    };
    await Deno.writeTextFile(
      `${work}/tsconfig.json`,
      JSON.stringify(tsconfig, null, 2),
    );
    const [command, ...rest] = args.tsc;
    const { code } = await new Deno.Command(command, {
      args: [...rest, "-p", `${work}/tsconfig.json`],
      stdout: "inherit",
      stderr: "inherit",
    }).output();
    if (code !== 0) throw new Error(`tsc exited with ${code}`);
  } finally {
    await Deno.remove(work, { recursive: true });
  }

  let declarations = 0, modules = 0;
  for await (const path of files(args.out)) {
    if (path.endsWith(".d.ts")) {
      declarations++;
      const text = await Deno.readTextFile(path);
      const rewritten = rewriteDeclarationSpecifiers(text);
      if (rewritten !== text) await Deno.writeTextFile(path, rewritten);
    } else if (path.endsWith(".js")) {
      modules++;
    }
  }
  for (const target of Object.values(pkg.exports)) {
    if (typeof target === "string") continue;
    for (const file of Object.values(target as Record<string, string>)) {
      await Deno.stat(`${args.out}/${file.slice(2)}`).catch(() => {
        throw new Error(`tsc wrote no ${file}`);
      });
    }
  }
  await Deno.writeTextFile(
    `${args.out}/package.json`,
    JSON.stringify(pkg, null, 2) + "\n",
  );
  for (const file of ["README.md", "LICENSE"]) {
    await Deno.copyFile(`${rootPath}/${file}`, `${args.out}/${file}`);
  }
  console.log(
    `${deno.name}@${deno.version}: ${modules} modules, ${declarations} declaration files in ${args.out}`,
  );
  console.log(`Pack it with: (cd ${args.out} && npm pack)`);
}

if (import.meta.main) {
  try {
    await build(Deno.args);
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    Deno.exit(1);
  }
}
