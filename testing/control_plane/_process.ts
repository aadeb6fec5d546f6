import type { ControlPlaneComponent } from "./errors.ts";

/**
 * Runs the program under a small shell that prints the program's PID and
 * waits for it. A second shell holds this process's end of the stdin pipe:
 * when Deno goes away (a crash, a test runner killed at its timeout), the
 * pipe closes and the program is killed, so no etcd or kube-apiserver
 * outlives the tests that started it. The program's output goes to a log
 * file (`$1`), so nothing reads a pipe while tests run. This process
 * closes its end only after the program exited, so a program still running
 * when the pipe closes was left behind: the watchdog kills it and removes
 * the folder `$2` (if given), the temporary folder `stop()` would have
 * removed.
 */
const WATCHDOG = `log=$1
cleanup=$2
shift 2
exec 3<&0
"$@" >>"$log" 2>&1 3<&- </dev/null &
child=$!
echo "$child"
exec >/dev/null
(
  # A signal to the whole process group (a CI runner stopping the job)
  # must not take the watchdog down before Deno's end of the pipe closes.
  trap '' INT TERM HUP
  cat <&3 >/dev/null 2>&1
  # Still running when the pipe closed: Deno is gone without stopping it.
  if kill -9 "$child" 2>/dev/null && [ -n "$cleanup" ]; then
    sleep 1
    rm -rf "$cleanup"
  fi
) >/dev/null 2>&1 </dev/null &
exec 3<&-
wait "$child"`;

/** Longer log lines are cut (a log line can hold a whole object). */
const MAX_LINE_CHARS = 2_000;
/** How much of the end of a log file is read for its last lines. */
const TAIL_BYTES = 256 * 1024;

/** What to run. */
export interface ComponentSpec {
  component: ControlPlaneComponent;
  command: string;
  args: string[];
  /** The whole environment of the program. */
  env: Record<string, string>;
  /** The file its output is appended to. */
  logFile: string;
  /** A folder to remove when this process exits without stopping it. */
  cleanupDir?: string;
}

/** One running etcd or kube-apiserver, its output in a log file. */
export class ComponentProcess {
  readonly component: ControlPlaneComponent;
  readonly logFile: string;
  /** Resolves with the exit status. */
  readonly exited: Promise<Deno.CommandStatus>;
  #child: Deno.ChildProcess;
  #pid: Promise<number | undefined>;
  #status: Deno.CommandStatus | undefined;

  constructor(spec: ComponentSpec) {
    this.component = spec.component;
    this.logFile = spec.logFile;
    this.#child = new Deno.Command("/bin/sh", {
      args: [
        "-c",
        WATCHDOG,
        "sh",
        spec.logFile,
        spec.cleanupDir ?? "",
        spec.command,
        ...spec.args,
      ],
      env: spec.env,
      clearEnv: true,
      stdin: "piped",
      stdout: "piped",
      stderr: "null",
    }).spawn();
    this.#pid = new Response(this.#child.stdout).text().then((text) => {
      const pid = Number(text.trim());
      return Number.isInteger(pid) && pid > 0 ? pid : undefined;
    });
    this.exited = Promise.all([this.#child.status, this.#pid]).then(
      async ([status]) => {
        this.#status = status;
        try {
          await this.#child.stdin.close();
        } catch {
          // The shell is gone and the pipe with it.
        }
        return status;
      },
    );
  }

  /** The exit status once the program exited. */
  get status(): Deno.CommandStatus | undefined {
    return this.#status;
  }

  /** The program's PID (not the shell's), once printed. */
  pid(): Promise<number | undefined> {
    return this.#pid;
  }

  /** The last `n` lines of its output, oldest first. */
  tail(n: number): Promise<string[]> {
    return tailOfFile(this.logFile, n);
  }

  /** Kills the program with SIGKILL by its PID and waits until it is gone. */
  async kill(): Promise<void> {
    if (this.#status === undefined) {
      const pid = await this.#pid;
      try {
        if (pid === undefined) this.#child.kill("SIGKILL");
        else if (this.#status === undefined) Deno.kill(pid, "SIGKILL");
      } catch (error) {
        // It exited in between: nothing left to kill.
        if (!(error instanceof Deno.errors.NotFound) && !isGone(error)) {
          throw error;
        }
      }
    }
    await this.exited;
  }
}

/** The last `n` non-empty lines of a file (none if it does not exist). */
export async function tailOfFile(path: string, n: number): Promise<string[]> {
  let file: Deno.FsFile;
  try {
    file = await Deno.open(path);
  } catch {
    return [];
  }
  try {
    const size = (await file.stat()).size;
    const start = Math.max(0, size - TAIL_BYTES);
    await file.seek(start, Deno.SeekMode.Start);
    const buffer = new Uint8Array(size - start);
    let read = 0;
    while (read < buffer.length) {
      const count = await file.read(buffer.subarray(read));
      if (count === null) break;
      read += count;
    }
    const lines = new TextDecoder().decode(buffer.subarray(0, read))
      .split("\n").filter((line) => line.trim() !== "");
    if (start > 0) lines.shift(); // the first line is cut
    return lines.slice(Math.max(0, lines.length - n)).map((line) =>
      line.length > MAX_LINE_CHARS
        ? `${line.slice(0, MAX_LINE_CHARS)}… (${line.length} characters)`
        : line
    );
  } finally {
    file.close();
  }
}

function isGone(error: unknown): boolean {
  return error instanceof Error && /ESRCH|No such process/i.test(error.message);
}
