/**
 * What the control plane needs from the runtime (files, the environment,
 * ports, processes, signals), on Deno through `Deno.*`, on Node and Bun
 * through their `node:` built-ins. These are loaded on first use with
 * `process.getBuiltinModule`, so Deno never loads them and the module loads
 * everywhere, as the client's own runtime layer does.
 *
 * @module
 */
import type * as NodeChildProcess from "node:child_process";
import type * as NodeFs from "node:fs";
import type * as NodeNet from "node:net";
import type * as NodeOs from "node:os";
import { nodeBuiltin } from "../../_internal/_node_builtin.ts";

/** The two signals that end a host which does not handle them. */
export type HostSignal = "SIGINT" | "SIGTERM";

interface NodeProcess {
  env: Record<string, string | undefined>;
  pid: number;
  kill(pid: number, signal: string | number): boolean;
  on(event: string, listener: () => void): unknown;
  off(event: string, listener: () => void): unknown;
  listenerCount(event: string): number;
}

const onDeno = typeof (globalThis as { Deno?: unknown }).Deno === "object";

function nodeProcess(): NodeProcess {
  return (globalThis as unknown as { process: NodeProcess }).process;
}

function fs(): typeof NodeFs {
  return nodeBuiltin<typeof NodeFs>("node:fs");
}

/** The whole environment of this process. */
export function hostEnv(): Record<string, string> {
  if (onDeno) return Deno.env.toObject();
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(nodeProcess().env)) {
    if (value !== undefined) env[name] = value;
  }
  return env;
}

/** Whether `error` says that a file or a command does not exist. */
export function isNotFound(error: unknown): boolean {
  return (onDeno && error instanceof Deno.errors.NotFound) ||
    (error as { code?: unknown } | null)?.code === "ENOENT";
}

/** A new folder `<dir>/<prefix>XXXXXX` (`dir`: the system's temporary folder). */
export async function makeTempDir(
  prefix: string,
  dir: string | undefined,
): Promise<string> {
  if (onDeno) return await Deno.makeTempDir({ prefix, dir });
  const parent = dir ?? nodeBuiltin<typeof NodeOs>("node:os").tmpdir();
  return await fs().promises.mkdtemp(`${parent}/${prefix}`);
}

/** Makes a folder (its parent must exist). */
export async function makeDir(path: string): Promise<void> {
  if (onDeno) await Deno.mkdir(path);
  else await fs().promises.mkdir(path);
}

/** Removes a file or a folder with its contents; nothing when it is not there. */
export async function removeTree(path: string): Promise<void> {
  try {
    if (onDeno) await Deno.remove(path, { recursive: true });
    else await fs().promises.rm(path, { recursive: true });
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
}

/**
 * Removes a folder with its contents without awaiting anything (at the
 * host's exit). A program killed a moment ago may still have added a file
 * meanwhile, so a removal that finds the folder not empty tries again.
 */
export function removeTreeSync(path: string): void {
  for (let attempt = 1;; attempt++) {
    try {
      if (onDeno) Deno.removeSync(path, { recursive: true });
      else fs().rmSync(path, { recursive: true });
      return;
    } catch (error) {
      if (isNotFound(error)) return;
      if (attempt >= 20) throw error;
      sleepSync(25);
    }
  }
}

/** Writes a text file, with `mode` when given. */
export async function writeTextFile(
  path: string,
  text: string,
  mode?: number,
): Promise<void> {
  if (onDeno) await Deno.writeTextFile(path, text, { mode });
  else await fs().promises.writeFile(path, text, { mode });
}

/** Reads a text file. */
export async function readTextFile(path: string): Promise<string> {
  return onDeno
    ? await Deno.readTextFile(path)
    : await fs().promises.readFile(path, "utf8");
}

/** Whether `path` is a file with an execute bit set. */
export async function isExecutableFile(path: string): Promise<boolean> {
  try {
    if (onDeno) {
      const info = await Deno.stat(path);
      return info.isFile && ((info.mode ?? 0o111) & 0o111) !== 0;
    }
    const info = await fs().promises.stat(path);
    return info.isFile() && (info.mode & 0o111) !== 0;
  } catch {
    return false;
  }
}

/**
 * The last `maxBytes` of a file, and whether the file holds more before
 * them; `undefined` when it cannot be opened.
 */
export async function readFileEnd(
  path: string,
  maxBytes: number,
): Promise<{ bytes: Uint8Array; cut: boolean } | undefined> {
  if (onDeno) {
    let file: Deno.FsFile;
    try {
      file = await Deno.open(path);
    } catch {
      return undefined;
    }
    try {
      const size = (await file.stat()).size;
      const start = Math.max(0, size - maxBytes);
      await file.seek(start, Deno.SeekMode.Start);
      const buffer = new Uint8Array(size - start);
      let read = 0;
      while (read < buffer.length) {
        const count = await file.read(buffer.subarray(read));
        if (count === null) break;
        read += count;
      }
      return { bytes: buffer.subarray(0, read), cut: start > 0 };
    } finally {
      file.close();
    }
  }
  let handle: NodeFs.promises.FileHandle;
  try {
    handle = await fs().promises.open(path, "r");
  } catch {
    return undefined;
  }
  try {
    const size = (await handle.stat()).size;
    const start = Math.max(0, size - maxBytes);
    const buffer = new Uint8Array(size - start);
    let read = 0;
    while (read < buffer.length) {
      const { bytesRead } = await handle.read(
        buffer,
        read,
        buffer.length - read,
        start + read,
      );
      if (bytesRead === 0) break;
      read += bytesRead;
    }
    return { bytes: buffer.subarray(0, read), cut: start > 0 };
  } finally {
    await handle.close();
  }
}

/**
 * Listens on 127.0.0.1:`port` (`0`: any free port) and closes at once;
 * the port listened on, or `undefined` when it is taken.
 */
export async function listenOnce(port: number): Promise<number | undefined> {
  if (onDeno) {
    try {
      const listener = Deno.listen({ hostname: "127.0.0.1", port });
      const bound = listener.addr.port;
      listener.close();
      return bound;
    } catch (error) {
      if (error instanceof Deno.errors.AddrInUse) return undefined;
      if (error instanceof Deno.errors.PermissionDenied) return undefined;
      throw error;
    }
  }
  const net = nodeBuiltin<typeof NodeNet>("node:net");
  return await new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", (error: Error & { code?: string }) => {
      if (error.code === "EADDRINUSE" || error.code === "EACCES") {
        resolve(undefined);
      } else reject(error);
    });
    server.listen({ host: "127.0.0.1", port, exclusive: true }, () => {
      const bound = (server.address() as NodeNet.AddressInfo).port;
      server.close(() => resolve(bound));
    });
  });
}

/** Sends `signal` to `pid`; false when there is no such process. */
export function signalProcess(
  pid: number,
  signal: "SIGKILL" | HostSignal,
): boolean {
  try {
    if (onDeno) Deno.kill(pid, signal);
    else nodeProcess().kill(pid, signal);
    return true;
  } catch (error) {
    if (onDeno && error instanceof Deno.errors.NotFound) return false;
    if ((error as { code?: unknown } | null)?.code === "ESRCH") return false;
    if (
      error instanceof Error && /ESRCH|No such process/i.test(error.message)
    ) {
      return false;
    }
    throw error;
  }
}

/**
 * Whether a process `pid` runs. A zombie does not: its parent has not
 * reaped it yet (or, its parent gone, whoever inherited it), but it is
 * dead. Zombies are told on Linux only, by `/proc`.
 */
export function processRuns(pid: number): boolean {
  try {
    if (onDeno) Deno.kill(pid, "SIGCONT");
    else nodeProcess().kill(pid, 0);
  } catch {
    return false;
  }
  let stat: string;
  try {
    stat = onDeno
      ? Deno.readTextFileSync(`/proc/${pid}/stat`)
      : fs().readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return true; // no /proc to tell
  }
  // "pid (command) state …": the command may hold spaces and parentheses.
  return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !==
    "Z";
}

/** Blocks for `ms` (at the host's exit, where nothing can be awaited). */
export function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** How a process ended. */
export interface ExitStatus {
  /** Whether it exited with code 0. */
  success: boolean;
  /** Its exit code (128 + the signal's number when a signal ended it). */
  code: number;
  /** The signal that ended it, or `null`. */
  signal: string | null;
}

/**
 * A process run with its stdin a pipe held open by this process (closed by
 * {@linkcode Spawned.closeStdin} or when this process goes), its stdout read
 * whole and its stderr discarded.
 */
export interface Spawned {
  /** The process's PID (undefined if it could not start). */
  readonly pid: number | undefined;
  /** Resolves with how it ended. */
  readonly status: Promise<ExitStatus>;
  /** Everything it wrote on stdout, once that closes. */
  readonly stdout: Promise<string>;
  /** Closes this process's end of its stdin. */
  closeStdin(): Promise<void>;
  /** Sends SIGKILL to it (not to what it started). */
  kill(): void;
}

/** Starts `command` with exactly `env`, as {@linkcode Spawned} says. */
export function spawnPiped(
  command: string,
  args: string[],
  env: Record<string, string>,
): Spawned {
  if (onDeno) {
    const child = new Deno.Command(command, {
      args,
      env,
      clearEnv: true,
      stdin: "piped",
      stdout: "piped",
      stderr: "null",
    }).spawn();
    return {
      pid: child.pid,
      status: child.status.then((s) => ({
        success: s.success,
        code: s.code,
        signal: s.signal,
      })),
      stdout: new Response(child.stdout).text(),
      closeStdin: () => child.stdin.close(),
      kill: () => child.kill("SIGKILL"),
    };
  }
  const { spawn } = nodeBuiltin<typeof NodeChildProcess>("node:child_process");
  const child = spawn(command, args, {
    env,
    stdio: ["pipe", "pipe", "ignore"],
  });
  // A write end whose reader is gone fails with EPIPE: nothing to do.
  child.stdin!.on("error", () => {});
  const status = new Promise<ExitStatus>((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code, signal) =>
      resolve({
        success: code === 0,
        code: code ?? 128 + signalNumber(signal),
        signal,
      }));
  });
  const stdout = new Promise<string>((resolve) => {
    let text = "";
    child.stdout!.setEncoding("utf8");
    child.stdout!.on("data", (chunk: string) => text += chunk);
    child.stdout!.once("close", () => resolve(text));
  });
  return {
    pid: child.pid,
    status,
    stdout,
    closeStdin: () =>
      new Promise<void>((resolve) => {
        if (child.stdin!.destroyed) return resolve();
        child.stdin!.end(() => resolve());
        child.stdin!.once("error", () => resolve());
      }),
    kill: () => void child.kill("SIGKILL"),
  };
}

function signalNumber(signal: string | null): number {
  const numbers = nodeBuiltin<typeof NodeOs>("node:os").constants.signals;
  return signal ? (numbers as Record<string, number>)[signal] ?? 0 : 0;
}

/** What a process run to its end printed. */
export interface RunOutput {
  /** Its exit code. */
  code: number;
  /** Its standard output. */
  stdout: string;
  /** Its standard error. */
  stderr: string;
}

/** How {@linkcode runToEnd} runs a process. */
export interface RunOptions {
  args: string[];
  /** Its folder (default: this process's). */
  cwd?: string;
  /** Exactly its environment (default: this process's). */
  env?: Record<string, string>;
  /** Written to its stdin, which is then closed (default: no stdin). */
  stdin?: string;
}

/**
 * Runs `command` to its end. Rejects with an error {@linkcode isNotFound}
 * recognises when there is no such command.
 */
export async function runToEnd(
  command: string,
  options: RunOptions,
): Promise<RunOutput> {
  if (onDeno) {
    const child = new Deno.Command(command, {
      args: options.args,
      cwd: options.cwd,
      env: options.env,
      clearEnv: options.env !== undefined,
      stdin: options.stdin === undefined ? "null" : "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    if (options.stdin !== undefined) {
      const writer = child.stdin.getWriter();
      await writer.write(new TextEncoder().encode(options.stdin));
      await writer.close();
    }
    const output = await child.output();
    const decoder = new TextDecoder();
    return {
      code: output.code,
      stdout: decoder.decode(output.stdout),
      stderr: decoder.decode(output.stderr),
    };
  }
  const { spawn } = nodeBuiltin<typeof NodeChildProcess>("node:child_process");
  return await new Promise((resolve, reject) => {
    const child = spawn(command, options.args, {
      cwd: options.cwd,
      env: options.env,
      stdio: [options.stdin === undefined ? "ignore" : "pipe", "pipe", "pipe"],
    });
    const stdout: string[] = [];
    const stderr: string[] = [];
    child.stdout!.setEncoding("utf8");
    child.stderr!.setEncoding("utf8");
    child.stdout!.on("data", (chunk: string) => stdout.push(chunk));
    child.stderr!.on("data", (chunk: string) => stderr.push(chunk));
    child.once("error", reject);
    child.once("close", (code, signal) =>
      resolve({
        code: code ?? 128 + signalNumber(signal),
        stdout: stdout.join(""),
        stderr: stderr.join(""),
      }));
    if (options.stdin !== undefined) {
      child.stdin!.on("error", () => {});
      child.stdin!.end(options.stdin);
    }
  });
}

/** This process's PID. */
export function hostPid(): number {
  return onDeno ? Deno.pid : nodeProcess().pid;
}

/** Calls `listener` when this process receives `signal`. */
export function addSignalListener(
  signal: HostSignal,
  listener: () => void,
): void {
  if (onDeno) Deno.addSignalListener(signal, listener);
  else nodeProcess().on(signal, listener);
}

/** Undoes {@linkcode addSignalListener}. */
export function removeSignalListener(
  signal: HostSignal,
  listener: () => void,
): void {
  if (onDeno) Deno.removeSignalListener(signal, listener);
  else nodeProcess().off(signal, listener);
}

/**
 * Whether something else in this process listens for `signal` with
 * `process.on` (so that it decides what the signal does). Deno has that
 * `process` too; what `Deno.addSignalListener` registers cannot be counted.
 */
export function othersListenFor(signal: HostSignal): boolean {
  const process = (globalThis as { process?: Partial<NodeProcess> }).process;
  return (process?.listenerCount?.(signal) ?? 0) > 0;
}

/**
 * Calls `listener` when this process exits (Deno's `unload`, Node's and
 * Bun's `exit`), where only synchronous work gets done.
 */
export function addExitListener(listener: () => void): void {
  if (onDeno) globalThis.addEventListener("unload", listener);
  else nodeProcess().on("exit", listener);
}

/** Undoes {@linkcode addExitListener}. */
export function removeExitListener(listener: () => void): void {
  if (onDeno) globalThis.removeEventListener("unload", listener);
  else nodeProcess().off("exit", listener);
}
