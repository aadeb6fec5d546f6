/**
 * Loopback ports. A free port is found by listening on port 0 and closing
 * the listener; the program that gets it binds it a moment later, so
 * another process can take it in between: the caller retries with other
 * ports when a program reports the address in use.
 */

/** Ports handed out by this process, not to be handed out twice. */
const handedOut = new Set<number>();

/** Whether 127.0.0.1:`port` can be listened on now. */
export function portIsFree(port: number): boolean {
  try {
    Deno.listen({ hostname: "127.0.0.1", port }).close();
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.AddrInUse) return false;
    if (error instanceof Deno.errors.PermissionDenied) return false;
    throw error;
  }
}

/** `preferred` when it is free (and not handed out yet), else a free port. */
export function freePort(preferred?: number): number {
  if (preferred !== undefined && !handedOut.has(preferred)) {
    if (portIsFree(preferred)) {
      handedOut.add(preferred);
      return preferred;
    }
  }
  for (;;) {
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = listener.addr.port;
    listener.close();
    if (!handedOut.has(port)) {
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
