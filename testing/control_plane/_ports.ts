/**
 * Loopback ports. A free port is found by listening on port 0 and closing
 * the listener; the program that gets it binds it a moment later, so
 * another process can take it in between: the caller retries with other
 * ports when a program reports the address in use.
 */
import { listenOnce } from "./_runtime.ts";

/** Ports handed out by this process, not to be handed out twice. */
const handedOut = new Set<number>();

/** `preferred` when it is free (and not handed out yet), else a free port. */
export async function freePort(preferred?: number): Promise<number> {
  if (preferred !== undefined && !handedOut.has(preferred)) {
    if (await listenOnce(preferred) === preferred) {
      handedOut.add(preferred);
      return preferred;
    }
  }
  for (;;) {
    const port = await listenOnce(0);
    if (port !== undefined && !handedOut.has(port)) {
      handedOut.add(port);
      return port;
    }
  }
}

/** Makes `port` available to {@linkcode freePort} again. */
export function releasePort(port: number): void {
  handedOut.delete(port);
}

/** Whether a log line says a listen failed because the port is taken. */
export const ADDRESS_IN_USE: RegExp = /address already in use/i;
