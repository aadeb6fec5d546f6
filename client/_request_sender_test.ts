import assert from "node:assert/strict";
import { retireOnTimeout, untilEnded } from "./_request_sender.ts";
import type { Transport } from "./_transport.ts";

function recordingTransport(): Transport & { retired: number[] } {
  const retired: number[] = [];
  let pool = 0;
  return {
    kind: "fetch",
    retired,
    get pool() {
      return pool;
    },
    fetch: () => Promise.reject(new Error("not sent")),
    retire(of: number) {
      retired.push(of);
      if (of === pool) pool++;
    },
    close() {},
  };
}

Deno.test("retireOnTimeout retires the pool a request went to when it times out", () => {
  const transport = recordingTransport();
  const controller = new AbortController();
  retireOnTimeout(controller.signal, transport);
  controller.abort(new DOMException("No bytes for 400 ms", "TimeoutError"));
  assert.deepEqual(transport.retired, [0]);
});

Deno.test("retireOnTimeout leaves the pool alone on a stop, or once released", () => {
  const transport = recordingTransport();
  const stopped = new AbortController();
  retireOnTimeout(stopped.signal, transport);
  stopped.abort();
  const released = new AbortController();
  retireOnTimeout(released.signal, transport)();
  released.abort(new DOMException("late", "TimeoutError"));
  assert.deepEqual(transport.retired, []);
});

Deno.test("requests on one dead pool retire it once, not the pool their retries use", () => {
  const transport = recordingTransport();
  const first = new AbortController();
  const second = new AbortController();
  retireOnTimeout(first.signal, transport);
  retireOnTimeout(second.signal, transport);
  first.abort(new DOMException("No answer within 400 ms", "TimeoutError"));
  second.abort(new DOMException("No bytes", "TimeoutError"));
  // Both name pool 0; the transport moved to pool 1 at the first.
  assert.deepEqual(transport.retired, [0, 0]);
  assert.equal(transport.pool, 1);
});

Deno.test("untilEnded calls back once when the stream ends, fails or is cancelled", async () => {
  let ends = 0;
  const done = untilEnded(new Blob(["ab"]).stream(), () => ends++);
  assert.equal(
    new TextDecoder().decode(await new Response(done).arrayBuffer()),
    "ab",
  );
  assert.equal(ends, 1);
  const cancelled = untilEnded(new Blob(["ab"]).stream(), () => ends++);
  await cancelled.cancel();
  assert.equal(ends, 2);
  const failing = untilEnded(
    new ReadableStream({ pull: (c) => c.error(new Error("reset")) }),
    () => ends++,
  );
  await assert.rejects(new Response(failing).arrayBuffer(), /reset/);
  assert.equal(ends, 3);
});
