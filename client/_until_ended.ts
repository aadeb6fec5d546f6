/**
 * A stream passed on as it is, with a call when it is over: the life of a
 * request whose answer is streamed ends with its body's, for the timeout
 * watch (`_retire_on_timeout.ts`) and the request's duration
 * (`_client_metrics.ts`) alike.
 *
 * @module
 */

/**
 * `stream`, calling `ended` once when it ends, fails or is cancelled.
 * Chunks are passed on as they are asked for; once over, `stream` is
 * unlocked, as it would be unwrapped.
 */
export function untilEnded<T>(
  stream: ReadableStream<T>,
  ended: () => void,
): ReadableStream<T> {
  const reader = stream.getReader();
  let open = true;
  const end = () => {
    if (!open) return;
    open = false;
    reader.releaseLock();
    ended();
  };
  return new ReadableStream<T>({
    async pull(controller) {
      let next: ReadableStreamReadResult<T>;
      try {
        next = await reader.read();
      } catch (error) {
        end();
        throw error;
      }
      if (next.done) {
        end();
        controller.close();
      } else controller.enqueue(next.value);
    },
    async cancel(reason) {
      try {
        await reader.cancel(reason);
      } finally {
        end();
      }
    },
  }, { highWaterMark: 0 });
}
