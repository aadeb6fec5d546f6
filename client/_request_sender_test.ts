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

Deno.test("untilEnded of a byte stream is a byte stream: a reader's buffer is filled by the stream under it, every byte in order", async () => {
  let next = 0;
  const sent = [new Uint8Array([1, 2, 3]), new Uint8Array(70_000).fill(7)];
  let ends = 0;
  const stream = untilEnded(
    new ReadableStream({
      type: "bytes",
      pull(controller) {
        const request = controller.byobRequest!;
        if (next === sent.length) {
          controller.close();
          return request.respond(0);
        }
        const view = new Uint8Array(
          request.view!.buffer,
          request.view!.byteOffset,
          request.view!.byteLength,
        );
        // As a runtime's body does: written straight into the reader's view.
        const chunk = sent[next].subarray(0, view.byteLength);
        view.set(chunk);
        sent[next] = sent[next].subarray(chunk.byteLength);
        if (sent[next].byteLength === 0) next++;
        request.respond(chunk.byteLength);
      },
      autoAllocateChunkSize: 1024,
    }),
    () => ends++,
  );
  const reader = stream.getReader({ mode: "byob" });
  let buffer = new ArrayBuffer(50_000);
  const read: number[] = [];
  while (true) {
    const { done, value } = await reader.read(new Uint8Array(buffer));
    if (done) break;
    read.push(...value);
    buffer = value.buffer as ArrayBuffer;
    assert.equal(buffer.byteLength, 50_000);
  }
  assert.deepEqual(read, [1, 2, 3, ...new Array(70_000).fill(7)]);
  assert.equal(ends, 1);
});

Deno.test("untilEnded of a byte stream calls back once when it ends, fails midway or is cancelled", async () => {
  let ends = 0;
  const bytes = (pull: (c: ReadableByteStreamController) => void) =>
    new ReadableStream({ type: "bytes", pull });
  const done = untilEnded(
    bytes((c) => {
      c.enqueue(new Uint8Array([97, 98]));
      c.close();
    }),
    () => ends++,
  );
  assert.equal(await new Response(done).text(), "ab");
  assert.equal(ends, 1);
  let pulls = 0;
  const failing = untilEnded(
    bytes((c) => {
      if (pulls++ === 0) c.enqueue(new Uint8Array([97]));
      else c.error(new Error("reset"));
    }),
    () => ends++,
  );
  await assert.rejects(new Response(failing).arrayBuffer(), /reset/);
  assert.equal(ends, 2);
  let reason: unknown;
  const cancelled = untilEnded(
    new ReadableStream({ type: "bytes", cancel: (why) => void (reason = why) }),
    () => ends++,
  );
  await cancelled.cancel("stopped");
  assert.equal(reason, "stopped");
  assert.equal(ends, 3);
});
