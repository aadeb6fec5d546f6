/**
 * What the process tells of itself, read through `node:process` (a global
 * on Deno 2, Node and Bun alike): CPU time, memory, start time, and, where
 * the platform or the runtime tells, open file descriptors and active
 * resources. Each read is cheap and synchronous, made at a scrape.
 *
 * @module
 */
import { nodeBuiltin } from "../_internal/_node_builtin.ts";

/** The part of Node's `process` read here (no Node types needed). */
interface ProcessLike {
  cpuUsage(): { user: number; system: number };
  memoryUsage: {
    (): { heapTotal: number; heapUsed: number; external: number };
    rss(): number;
  };
  uptime(): number;
  platform: string;
  versions: { bun?: string };
  getActiveResourcesInfo?: () => string[];
}

interface FsLike {
  readdirSync(path: string): unknown[];
  readFileSync(path: string, encoding: "utf8"): string;
}

const FD_DIR = "/proc/self/fd";
const LIMITS = "/proc/self/limits";

/** The process's readings, each `undefined` where it is not told. */
export class ProcessReadings {
  readonly #process: ProcessLike;
  readonly #fs: FsLike | undefined;
  readonly #listsResources: boolean;
  /** Fixed for the process: its start, on the wall clock. */
  readonly startTimeSeconds: number;

  constructor() {
    const found = (globalThis as { process?: ProcessLike }).process;
    if (typeof found?.cpuUsage !== "function") {
      throw new TypeError(
        "ProcessMetrics needs node:process (a global on Deno 2, Node and Bun), and this runtime has none",
      );
    }
    this.#process = found;
    this.#fs = procFs(found.platform);
    // Deno and Bun answer getActiveResourcesInfo() with an empty list
    // whatever is open: no count is better than a wrong one.
    this.#listsResources = !("Deno" in globalThis) &&
      found.versions.bun === undefined &&
      typeof found.getActiveResourcesInfo === "function";
    this.startTimeSeconds = Date.now() / 1000 - found.uptime();
  }

  /** User and system CPU time, in seconds. */
  cpuSeconds(): number {
    const { user, system } = this.#process.cpuUsage();
    return (user + system) / 1e6;
  }

  residentBytes(): number {
    return this.#process.memoryUsage.rss();
  }

  /** The JavaScript heap, and memory the engine holds outside it. */
  heap(): { used: number; total: number; external: number } {
    const usage = this.#process.memoryUsage();
    return {
      used: usage.heapUsed,
      total: usage.heapTotal,
      external: usage.external,
    };
  }

  /** Open file descriptors, on Linux where `/proc/self/fd` may be read. */
  openFds(): number | undefined {
    try {
      return this.#fs?.readdirSync(FD_DIR).length;
    } catch {
      return undefined;
    }
  }

  /** The soft limit of open file descriptors, on Linux. */
  maxFds(): number | undefined {
    let limits: string | undefined;
    try {
      limits = this.#fs?.readFileSync(LIMITS, "utf8");
    } catch {
      return undefined;
    }
    const soft = limits && /^Max open files\s+(\d+)\s/m.exec(limits)?.[1];
    return soft ? Number(soft) : undefined;
  }

  /** Handles, requests and timers keeping the loop busy: Node tells. */
  activeResources(): number | undefined {
    return this.#listsResources
      ? this.#process.getActiveResourcesInfo!().length
      : undefined;
  }
}

/**
 * `node:fs` for `/proc/self`, on Linux only, and on Deno only with read
 * permission granted there already: a scrape must not ask at a prompt.
 */
function procFs(platform: string): FsLike | undefined {
  if (platform !== "linux") return undefined;
  const deno = (globalThis as {
    Deno?: {
      permissions: {
        querySync(descriptor: { name: "read"; path: string }): {
          state: string;
        };
      };
    };
  }).Deno;
  if (deno !== undefined) {
    const granted = [FD_DIR, LIMITS].every((path) =>
      deno.permissions.querySync({ name: "read", path }).state === "granted"
    );
    if (!granted) return undefined;
  }
  try {
    return nodeBuiltin<FsLike>("node:fs");
  } catch {
    return undefined;
  }
}
