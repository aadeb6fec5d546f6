/**
 * A request that times out retires its transport's connections: the one it
 * ran on may be half-open (a wedged peer, a middlebox that swallows
 * packets), and on HTTP/2 every other request of the client would be one
 * more stream on it. A timeout is an abort whose reason is named
 * `TimeoutError`, as the loop's timers and `AbortSignal.timeout()` name it;
 * any other abort (a stop) says nothing about the connection.
 *
 * @module
 */
import type { Transport } from "./_transport.ts";

/**
 * Retires the pool of `transport` a request is sent to now if `signal`
 * aborts with a timeout before the returned release is called (once the
 * request and its body are done).
 */
export function retireOnTimeout(
  signal: AbortSignal | undefined,
  transport: Transport,
): () => void {
  if (signal === undefined || signal.aborted) return () => {};
  const pool = transport.pool;
  const onAbort = () => {
    if (isTimeout(signal.reason)) transport.retire(pool);
  };
  signal.addEventListener("abort", onAbort, { once: true });
  return () => signal.removeEventListener("abort", onAbort);
}

function isTimeout(reason: unknown): boolean {
  return typeof reason === "object" && reason !== null &&
    (reason as { name?: unknown }).name === "TimeoutError";
}
