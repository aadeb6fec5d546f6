import type { ControlPlaneComponent } from "./errors.ts";
import {
  type ExitStatus,
  processRuns,
  readFileEnd,
  signalProcess,
  sleepSync,
  type Spawned,
  spawnPiped,
} from "./_runtime.ts";

/**
 * Runs the program under a small shell that prints the program's PID and
 * waits for it. A second shell holds this process's end of the stdin pipe:
 * when the host goes away (a crash, a test runner killed at its timeout, a
 * `kill -9`), the pipe closes and the program is killed, so no etcd or kube-apiserver
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
  # must not take the watchdog down before the host's end of the pipe closes.
  trap '' INT TERM HUP
  cat <&3 >/dev/null 2>&1
  # Still running when the pipe closed: the host is gone without stopping it.
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

/** How long a kill waits for the program to go, and how often it looks. */
const KILL_WAIT_MS = 5_000;
const GONE_POLL_MS = 5;

/** One running etcd or kube-apiserver, its output in a log file. */
export class ComponentProcess {
  readonly component: ControlPlaneComponent;
  readonly logFile: string;
  /** Resolves with the exit status. */
  readonly exited: Promise<ExitStatus>;
  #child: Spawned;
  #pid: Promise<number | undefined>;
  /** The program's PID once printed, for a kill that cannot await. */
  #knownPid: number | undefined;
  #status: ExitStatus | undefined;
  /** Set once the program was seen gone after a kill. */
  #programGone = false;

  constructor(spec: ComponentSpec) {
    this.component = spec.component;
    this.logFile = spec.logFile;
    this.#child = spawnPiped("/bin/sh", [
      "-c",
      WATCHDOG,
      "sh",
      spec.logFile,
      spec.cleanupDir ?? "",
      spec.command,
      ...spec.args,
    ], spec.env);
    this.#pid = this.#child.stdout.then((text) => {
      const pid = Number(text.trim());
      this.#knownPid = Number.isInteger(pid) && pid > 0 ? pid : undefined;
      return this.#knownPid;
    });
    this.exited = Promise.all([this.#child.status, this.#pid]).then(
      async ([status]) => {
        this.#status = status;
        try {
          await this.#child.closeStdin();
        } catch {
          // The shell is gone and the pipe with it.
        }
        return status;
      },
    );
  }

  /** The exit status once the program exited. */
  get status(): ExitStatus | undefined {
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

  /**
   * Kills the program with SIGKILL by its PID and waits until it is gone.
   * The shell may have gone first (a Ctrl-C reaches the whole process
   * group, and ends the shell at once but the program only once it has
   * shut down): the program is killed and waited for all the same.
   */
  async kill(): Promise<void> {
    const pid = await this.#pid;
    if (pid === undefined) this.#killShell();
    else if (this.#programMayRun()) signalProcess(pid, "SIGKILL");
    await this.exited;
    if (pid === undefined) return;
    // Without its shell, nobody here can wait for it: watch its PID.
    for (let waited = 0; this.#programMayRun(); waited += GONE_POLL_MS) {
      if (!processRuns(pid) || waited >= KILL_WAIT_MS) break;
      await new Promise((resolve) => setTimeout(resolve, GONE_POLL_MS));
    }
    this.#programGone = true;
  }

  /**
   * Kills the program with SIGKILL and blocks until it is gone (a few
   * seconds at most), for the host's exit, where nothing can be awaited.
   * With its PID not printed yet, the shell is killed instead: the
   * watchdog kills the program once this process is gone.
   */
  killNow(): void {
    const pid = this.#knownPid;
    if (pid === undefined) return this.#killShell();
    if (!this.#programMayRun() || !signalProcess(pid, "SIGKILL")) return;
    for (let waited = 0; processRuns(pid); waited += GONE_POLL_MS) {
      if (waited >= KILL_WAIT_MS) return;
      sleepSync(GONE_POLL_MS);
    }
  }

  /**
   * Whether the program may still run: its shell runs, or a signal ended
   * the shell (not the program's end) and the program was not seen gone
   * since. Once it is gone, its PID is never signalled again: another
   * process may have it by then.
   */
  #programMayRun(): boolean {
    if (this.#programGone) return false;
    return this.#status === undefined || this.#status.signal !== null;
  }

  #killShell(): void {
    if (this.#status !== undefined) return;
    try {
      this.#child.kill();
    } catch {
      // It exited in between.
    }
  }
}

/** The last `n` non-empty lines of a file (none if it does not exist). */
export async function tailOfFile(path: string, n: number): Promise<string[]> {
  const end = await readFileEnd(path, TAIL_BYTES);
  if (end === undefined) return [];
  const lines = new TextDecoder().decode(end.bytes)
    .split("\n").filter((line) => line.trim() !== "");
  if (end.cut) lines.shift(); // the first line is cut
  return lines.slice(Math.max(0, lines.length - n)).map((line) =>
    line.length > MAX_LINE_CHARS
      ? `${line.slice(0, MAX_LINE_CHARS)}… (${line.length} characters)`
      : line
  );
}
