import assert from "node:assert/strict";
import { readJsonAnswer, readJsonBody } from "./_bodies.ts";
import { MalformedListError } from "./list_watch_types.ts";

const PATH = "/api/v1/pods";
const encoder = new TextEncoder();

/** A stream of `parts`, then closed; records whether it was cancelled. */
function body(parts: string[], options: { close?: boolean } = {}) {
  const state = { cancelled: false as unknown };
  let i = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (i < parts.length) controller.enqueue(encoder.encode(parts[i++]));
      else if (options.close ?? true) controller.close();
    },
    cancel(reason) {
      state.cancelled = reason ?? true;
    },
  }, { highWaterMark: 0 });
  return { stream, state };
}

Deno.test("readJsonBody parses a body split anywhere, a multi-byte character included, calling onBytes per chunk", async () => {
  const json = JSON.stringify({ items: [{ name: "café ☕" }] });
  const bytes = encoder.encode(json);
  const cut = bytes.indexOf(0xe2) + 1; // inside the 3-byte ☕
  const chunks = [bytes.slice(0, 5), bytes.slice(5, cut), bytes.slice(cut)];
  let i = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (i < chunks.length) controller.enqueue(chunks[i++]);
      else controller.close();
    },
  });
  let calls = 0;
  const value = await readJsonBody(stream, {
    onBytes: () => calls++,
    signal: new AbortController().signal,
    path: PATH,
  });
  assert.deepEqual(value, { items: [{ name: "café ☕" }] });
  assert.equal(calls, 3);
});

Deno.test("readJsonBody names a body that is not JSON, showing only its start", async () => {
  const { stream } = body([
    "<html><body>502 Bad Gateway from the proxy</body>",
  ]);
  await assert.rejects(
    readJsonBody(stream, {
      onBytes: () => {},
      signal: new AbortController().signal,
      path: PATH,
    }),
    (e: unknown) => {
      assert.ok(e instanceof MalformedListError);
      assert.equal(e.path, PATH);
      assert.match(e.message, /not a Kubernetes list: its body is not JSON/);
      assert.match(e.message, /"<html><body>502 Bad Gateway from…"/);
      return true;
    },
  );
  const cut = body(['{"items":[{"na']);
  await assert.rejects(
    readJsonBody(cut.stream, {
      onBytes: () => {},
      signal: new AbortController().signal,
      path: PATH,
    }),
    MalformedListError,
  );
});

Deno.test("readJsonBody stops a pending read when its signal aborts, and cancels the stream", async () => {
  const { stream, state } = body(['{"items":'], { close: false });
  const controller = new AbortController();
  let chunks = 0;
  const reading = readJsonBody(stream, {
    onBytes: () => {
      if (++chunks === 1) queueMicrotask(() => controller.abort("idle"));
    },
    signal: controller.signal,
    path: PATH,
  });
  await assert.rejects(reading, (e: unknown) => e === "idle");
  assert.equal(state.cancelled, "idle");
  assert.equal(chunks, 1);
});

Deno.test("readJsonBody passes a broken stream's error on", async () => {
  const broken = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode("{"));
      controller.error(new TypeError("connection reset"));
    },
  });
  await assert.rejects(
    readJsonBody(broken, {
      onBytes: () => {},
      signal: new AbortController().signal,
      path: PATH,
    }),
    /connection reset/,
  );
});

Deno.test("readJsonAnswer also takes bytes or parsed JSON from a client that gives those", async () => {
  const options = {
    onBytes: () => {},
    signal: new AbortController().signal,
    path: PATH,
  };
  const list = { metadata: { resourceVersion: "1" }, items: [] };
  assert.deepEqual(
    await readJsonAnswer(encoder.encode(JSON.stringify(list)), options),
    list,
  );
  assert.equal(await readJsonAnswer(list, options), list);
  assert.deepEqual(
    await readJsonAnswer(new Blob([JSON.stringify(list)]).stream(), options),
    list,
  );
  await assert.rejects(
    readJsonAnswer(encoder.encode("<html>"), options),
    MalformedListError,
  );
});

Deno.test("readJsonBody copies each chunk as it comes: a runtime that reuses its read buffer changes nothing", async () => {
  // Deno's fetch hands out small views of larger buffers; a stream may
  // reuse its buffer for the next read. Keeping the views until the body
  // ended kept many times the body alive, and with reuse, read wrong bytes.
  const json = encoder.encode(
    JSON.stringify({ items: Array.from({ length: 200 }, (_, i) => ({ i })) }),
  );
  const shared = new Uint8Array(64 * 1024);
  let offset = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offset >= json.length) return controller.close();
      const part = json.subarray(offset, offset + 100);
      offset += part.length;
      shared.fill(0x20);
      shared.set(part);
      controller.enqueue(shared.subarray(0, part.length));
    },
  }, { highWaterMark: 0 });
  const value = await readJsonBody(stream, {
    onBytes: () => {},
    signal: new AbortController().signal,
    path: PATH,
  }) as { items: { i: number }[] };
  assert.deepEqual(value.items.map((item) => item.i), [...Array(200).keys()]);
});
