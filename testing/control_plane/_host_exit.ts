/**
 * A control plane does not outlive its host. While one runs, SIGINT and
 * SIGTERM to this process stop every running plane (their programs killed,
 * their folders removed) and are then raised again, so that the host ends
 * as the signal would have ended it (exit status 130 or 143 in a shell);
 * and the host's exit (Deno's `unload`, Node's and Bun's `exit`, with
 * nothing left to await) kills the programs and removes the folders at
 * once. What no handler sees (`kill -9`, a crash) the watchdog of
 * `_process.ts` covers. The handlers are there only while a plane runs.
 *
 * When the host listens for the signal too (`process.on`, on Deno as on
 * Node and Bun), it is not raised again: that listener decides what it
 * does.
 *
 * @module
 */
import {
  addExitListener,
  addSignalListener,
  hostPid,
  type HostSignal,
  othersListenFor,
  removeExitListener,
  removeSignalListener,
  signalProcess,
} from "./_runtime.ts";

/** A running control plane, as its host's end sees it. */
export interface HostedPlane {
  /** The whole stop: the programs killed and waited for, the folder removed. */
  stop(): Promise<void>;
  /** The same without awaiting anything, at the host's exit. */
  stopNow(): void;
}

const SIGNALS: readonly HostSignal[] = ["SIGINT", "SIGTERM"];

const planes = new Set<HostedPlane>();
const signalListeners = new Map<HostSignal, () => void>();
let exitListening = false;

/** `plane` runs from now on: the host's signals and exit stop it. */
export function hostPlane(plane: HostedPlane): void {
  planes.add(plane);
  if (!exitListening) {
    addExitListener(onExit);
    exitListening = true;
  }
  if (signalListeners.size === 0) {
    for (const signal of SIGNALS) {
      const listener = () => void onSignal(signal);
      try {
        addSignalListener(signal, listener);
        signalListeners.set(signal, listener);
      } catch {
        // A runtime without this signal (Windows has no SIGTERM).
      }
    }
  }
}

/** `plane` has stopped: the last one to stop takes the handlers away. */
export function releasePlane(plane: HostedPlane): void {
  planes.delete(plane);
  if (planes.size > 0) return;
  removeSignalListeners();
  if (exitListening) {
    removeExitListener(onExit);
    exitListening = false;
  }
}

function removeSignalListeners(): void {
  for (const [signal, listener] of signalListeners) {
    removeSignalListener(signal, listener);
  }
  signalListeners.clear();
}

async function onSignal(signal: HostSignal): Promise<void> {
  // A second signal meanwhile takes its default action: the host ends at
  // once, and the watchdogs end what is left.
  removeSignalListeners();
  await Promise.all([...planes].map((plane) => plane.stop().catch(() => {})));
  if (!othersListenFor(signal)) signalProcess(hostPid(), signal);
}

function onExit(): void {
  for (const plane of [...planes]) {
    try {
      plane.stopNow();
    } catch {
      // The others still get theirs; the watchdogs do the rest.
    }
  }
}
