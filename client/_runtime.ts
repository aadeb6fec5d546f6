/**
 * The few things the client needs from the runtime — files, environment,
 * processes — on Deno through `Deno.*`, on Node and Bun through their
 * `node:` built-ins (loaded on first use with `process.getBuiltinModule`,
 * so Deno never loads them and nothing is imported at the top level).
 */
import type * as NodeChildProcess from "node:child_process";
import type * as NodeFs from "node:fs";
import { ByteBuffer, chunkReader } from "../_internal/_json.ts";
import { nodeBuiltin } from "../_internal/_node_builtin.ts";

/** The runtime this module runs on. */
export type RuntimeName = "deno" | "node" | "bun";

interface NodeProcess {
  env: Record<string, string | undefined>;
  platform: string;
  getBuiltinModule?: (id: string) => unknown;
}

const globals = globalThis as { Deno?: unknown; Bun?: unknown };

/** Which runtime this is; Deno and Bun are recognised, anything else is Node. */
export const runtimeName: RuntimeName = typeof globals.Deno === "object"
  ? "deno"
  : typeof globals.Bun === "object"
  ? "bun"
  : "node";

function nodeProcess(): NodeProcess {
  return (globalThis as unknown as { process: NodeProcess }).process;
}

/** One environment variable. */
export function getEnv(name: string): string | undefined {
  return runtimeName === "deno" ? Deno.env.get(name) : nodeProcess().env[name];
}

/** The whole environment of this process. */
export function allEnv(): Record<string, string> {
  if (runtimeName === "deno") return Deno.env.toObject();
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(nodeProcess().env)) {
    if (value !== undefined) env[name] = value;
  }
  return env;
}

/** The separator between the files of `KUBECONFIG`. */
export function pathListSeparator(): string {
  const os = runtimeName === "deno" ? Deno.build.os : nodeProcess().platform;
  return os === "windows" || os === "win32" ? ";" : ":";
}

const NODE_ERROR_NAMES: Record<string, string> = {
  ENOENT: "NotFound",
  EACCES: "PermissionDenied",
  EPERM: "PermissionDenied",
  EISDIR: "IsADirectory",
  ENOTDIR: "NotADirectory",
};

/**
 * A short name for a file system error (`NotFound`, `PermissionDenied`…),
 * the same on every runtime and never quoting file contents.
 */
export function fsErrorName(error: unknown): string {
  if (!(error instanceof Error)) return "unknown error";
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string") return NODE_ERROR_NAMES[code] ?? code;
  return error.name;
}

function fs(): typeof NodeFs {
  return nodeBuiltin<typeof NodeFs>("node:fs");
}

/** Reads a text file. */
export function readTextFileSync(path: string): string {
  return runtimeName === "deno"
    ? Deno.readTextFileSync(path)
    : fs().readFileSync(path, "utf8");
}

/** Reads a text file without blocking. */
export function readTextFile(path: string): Promise<string> {
  return runtimeName === "deno"
    ? Deno.readTextFile(path)
    : fs().promises.readFile(path, "utf8");
}

/** True when `path` exists (of any kind). */
export function exists(path: string): boolean {
  try {
    if (runtimeName === "deno") Deno.statSync(path);
    else fs().statSync(path);
    return true;
  } catch {
    return false;
  }
}

/** True when `path` is a regular file. */
export function isFile(path: string): boolean {
  try {
    return runtimeName === "deno"
      ? Deno.statSync(path).isFile
      : fs().statSync(path).isFile();
  } catch {
    return false;
  }
}

/** Modification time, size and inode of a file, to notice it changed. */
export async function fileFingerprint(path: string): Promise<string> {
  if (runtimeName === "deno") {
    const info = await Deno.stat(path);
    return `${info.mtime?.getTime()}:${info.size}:${info.ino}`;
  }
  const info = await fs().promises.stat(path);
  return `${info.mtimeMs}:${info.size}:${info.ino}`;
}

/** The command to run was not found. */
export class CommandNotFoundError extends Error {
  constructor(command: string, options?: { cause?: unknown }) {
    super(`${command} was not found`, options);
    this.name = "CommandNotFoundError";
  }
}

/** What a finished process left. */
export interface ProcessOutput {
  /** Exit code; -1 when it was ended by a signal. */
  code: number;
  stdout: Uint8Array;
  stderr: Uint8Array;
}

/** How to run a process: with exactly `env`, no stdin. */
export interface RunOptions {
  args: string[];
  env: Record<string, string>;
  /** Ends the process (and rejects with the reason) when aborted. */
  signal?: AbortSignal;
}

function isNotFound(error: unknown): boolean {
  return (runtimeName === "deno" && error instanceof Deno.errors.NotFound) ||
    (error as { code?: unknown })?.code === "ENOENT";
}

/**
 * Runs a process to its end; the command is looked up on `env.PATH`.
 *
 * When `signal` aborts, the promise rejects with its reason at once: the
 * process and every process it started are killed (POSIX: it runs in a
 * process group of its own, ended as a whole), and the pipes are let go of
 * even when a process that survived still holds them. Waiting for the pipes
 * to close, as `Deno.Command#output()` does, would wait for a grandchild
 * (`sh -c 'sleep 600'`) long after the deadline.
 */
export async function run(
  command: string,
  options: RunOptions,
): Promise<ProcessOutput> {
  options.signal?.throwIfAborted();
  try {
    return await (runtimeName === "deno"
      ? runDeno(command, options)
      : runNode(command, options));
  } catch (error) {
    if (options.signal?.aborted) throw options.signal.reason;
    if (isNotFound(error)) throw new CommandNotFoundError(command);
    throw error;
  }
}

/** Process groups are POSIX; on Windows only the process itself is killed. */
function ownGroup(): boolean {
  const os = runtimeName === "deno" ? Deno.build.os : nodeProcess().platform;
  return os !== "windows" && os !== "win32";
}

/**
 * Kills the process group led by `pid` (the process was started in a new
 * session, so it leads one), or `kill()` the process itself when there is
 * no group to end (Windows, or a runtime that ignored the request).
 */
function killGroup(pid: number | undefined, kill: () => void): void {
  if (pid !== undefined && ownGroup()) {
    try {
      if (runtimeName === "deno") Deno.kill(-pid, "SIGKILL");
      else (nodeProcess() as unknown as NodeKill).kill(-pid, "SIGKILL");
      return;
    } catch {
      // No such group: fall through to the process itself.
    }
  }
  try {
    kill();
  } catch {
    // It exited already.
  }
}

interface NodeKill {
  kill(pid: number, signal: string): void;
}

/** Reads a stream to its end, or to `cancel()`: what arrived until then. */
function collect(stream: ReadableStream<Uint8Array>): {
  bytes: Promise<Uint8Array>;
  cancel: () => void;
} {
  const reader = chunkReader(stream);
  const received = new ByteBuffer();
  const bytes = (async () => {
    try {
      while (true) {
        const { done, value } = await reader.read();
        if (done) return received.bytes();
        received.push(value);
      }
    } finally {
      reader.releaseLock();
    }
  })();
  return {
    bytes,
    cancel: () => {
      reader.cancel().catch(() => {});
    },
  };
}

async function runDeno(
  command: string,
  options: RunOptions,
): Promise<ProcessOutput> {
  const child = new Deno.Command(command, {
    args: options.args,
    env: options.env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    // A new session, hence a process group to kill whole (setsid).
    detached: ownGroup(),
  }).spawn();
  const stdout = collect(child.stdout);
  const stderr = collect(child.stderr);
  const signal = options.signal;
  const abort = () => {
    killGroup(child.pid, () => child.kill("SIGKILL"));
    stdout.cancel();
    stderr.cancel();
  };
  signal?.addEventListener("abort", abort, { once: true });
  try {
    // The direct child dies at the kill; awaiting its status reaps it.
    const [status, out, err] = await Promise.all([
      child.status,
      stdout.bytes,
      stderr.bytes,
    ]);
    signal?.throwIfAborted();
    return { code: status.signal ? -1 : status.code, stdout: out, stderr: err };
  } finally {
    signal?.removeEventListener("abort", abort);
  }
}

function runNode(command: string, options: RunOptions): Promise<ProcessOutput> {
  const { spawn } = nodeBuiltin<typeof NodeChildProcess>("node:child_process");
  const signal = options.signal;
  return new Promise((resolve, reject) => {
    const child = spawn(command, options.args, {
      env: options.env,
      stdio: ["ignore", "pipe", "pipe"],
      // A new session, hence a process group to kill whole (setsid).
      detached: ownGroup(),
    });
    const abort = () => {
      killGroup(child.pid, () => child.kill("SIGKILL"));
      child.stdout!.destroy();
      child.stderr!.destroy();
      reject(signal!.reason);
    };
    signal?.addEventListener("abort", abort, { once: true });
    const stdout = new ByteBuffer();
    const stderr = new ByteBuffer();
    child.stdout!.on("data", (chunk: Uint8Array) => stdout.push(chunk));
    child.stderr!.on("data", (chunk: Uint8Array) => stderr.push(chunk));
    child.on("error", (error) => {
      signal?.removeEventListener("abort", abort);
      reject(error);
    });
    child.on("close", (code: number | null) => {
      signal?.removeEventListener("abort", abort);
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      resolve({
        code: code ?? -1,
        stdout: stdout.bytes(),
        stderr: stderr.bytes(),
      });
    });
  });
}

/** Runs a process to its end, blocking; for kubectl at construction. */
export function runSync(
  command: string,
  options: Omit<RunOptions, "signal">,
): ProcessOutput {
  try {
    if (runtimeName === "deno") {
      const output = new Deno.Command(command, {
        args: options.args,
        env: options.env,
        clearEnv: true,
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
      }).outputSync();
      return {
        code: output.signal ? -1 : output.code,
        stdout: output.stdout,
        stderr: output.stderr,
      };
    }
    const { spawnSync } = nodeBuiltin<typeof NodeChildProcess>(
      "node:child_process",
    );
    const result = spawnSync(command, options.args, {
      env: options.env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    if (result.error) throw result.error;
    return {
      code: result.status ?? -1,
      stdout: new Uint8Array(result.stdout),
      stderr: new Uint8Array(result.stderr),
    };
  } catch (error) {
    if (isNotFound(error)) throw new CommandNotFoundError(command);
    throw error;
  }
}
