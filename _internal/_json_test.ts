import assert from "node:assert/strict";
import { ByteBuffer, chunkReader, parseJson } from "./_json.ts";

Deno.test("ByteBuffer joins chunks in order", () => {
  const buffer = new ByteBuffer();
  assert.equal(buffer.bytes().byteLength, 0);
  buffer.push(new Uint8Array([1, 2]));
  buffer.push(new Uint8Array([]));
  buffer.push(new Uint8Array([3]));
  assert.deepEqual([...buffer.bytes()], [1, 2, 3]);
  assert.equal(buffer.byteLength, 3);
});

Deno.test("ByteBuffer copies each chunk as it comes: what the runtime does with its buffer after the read changes nothing", () => {
  // A runtime's body stream may give small views of one larger buffer, and
  // may reuse it for the next read.
  const runtime = new Uint8Array(64 * 1024);
  const buffer = new ByteBuffer();
  for (let i = 0; i < 40; i++) {
    runtime.fill(i);
    buffer.push(runtime.subarray(0, 4096));
  }
  runtime.fill(255);
  const bytes = buffer.bytes();
  assert.equal(bytes.byteLength, 40 * 4096);
  for (let i = 0; i < 40; i++) assert.equal(bytes[i * 4096 + 17], i);
  // Held: the bytes and at most as much again, never the runtime's buffer.
  assert.notEqual(bytes.buffer, runtime.buffer);
  assert.ok(bytes.buffer.byteLength <= 2 * bytes.byteLength);
});

Deno.test("parseJson gives what JSON.parse gives", () => {
  const texts = [
    `{"metadata":{"name":"a","resourceVersion":"1234"}}`,
    `{"kind":"PodList","metadata":{"resourceVersion":"99"},"items":[` +
    `{"metadata":{"resourceVersion":"0"}},{"metadata":{"resourceVersion":""}},` +
    `{"metadata":{"resourceVersion":"abc"}},{"metadata":{"resourceVersion":7}}]}`,
    // Pretty-printed, and nested (an Event's involvedObject).
    `{\n  "involvedObject": {\n    "resourceVersion": "42"\n  }\n}`,
    // The words inside string values, escaped as JSON must escape them.
    `{"note":"\\"resourceVersion\\":\\"1\\"","a\\"resourceVersion":"5"}`,
    `{"resourceVersion":"123456789012345","x":"é\\u00e9"}`,
    `"resourceVersion"`,
  ];
  for (const text of texts) {
    assert.deepEqual(parseJson(text), JSON.parse(text), text);
  }
});

Deno.test("parseJson throws what JSON.parse throws", () => {
  for (const text of [`{"resourceVersion":"12"`, `{"resourceVersion":"1"} x`]) {
    let expected: unknown;
    try {
      JSON.parse(text);
    } catch (error) {
      expected = error;
    }
    assert.throws(() => parseJson(text), expected as Error);
  }
});

Deno.test("parseJson leaves resourceVersions out of V8's string table", async () => {
  // JSON.parse interns short strings; the control shows the probe sees it.
  const probe = `
    import { parseJson } from ${
    JSON.stringify(import.meta.resolve("./_json.ts"))
  };
    const interned = new Function("s", "return %IsInternalizedString(s)");
    const text = '{"metadata":{"resourceVersion":"1000123"}}';
    console.log(JSON.stringify([
      interned(JSON.parse(text).metadata.resourceVersion),
      interned(parseJson(text).metadata.resourceVersion),
    ]));
  `;
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--no-lock", "--v8-flags=--allow-natives-syntax", probe],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(code, 0, new TextDecoder().decode(stderr));
  assert.deepEqual(JSON.parse(new TextDecoder().decode(stdout)), [true, false]);
});

/** A byte stream that enqueues `chunks` one per pull, as a runtime's body does. */
function byteStream(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  let next = 0;
  return new ReadableStream({
    type: "bytes",
    pull(controller) {
      if (next < chunks.length) {
        return controller.enqueue(chunks[next++].slice());
      }
      controller.close();
      // A read waiting on a closed byte stream is answered with no bytes.
      controller.byobRequest?.respond(0);
    },
  });
}

function chunksOf(sizes: number[]): Uint8Array[] {
  let byte = 0;
  return sizes.map((size) => {
    const chunk = new Uint8Array(size);
    for (let i = 0; i < size; i++) chunk[i] = byte++ & 0xff;
    return chunk;
  });
}

function joined(chunks: Uint8Array[]): number[] {
  return chunks.flatMap((chunk) => [...chunk]);
}

Deno.test("chunkReader reads every byte of a byte stream in order, chunks larger than its buffer too", async () => {
  const sent = chunksOf([4096, 1, 100_000, 4096, 70_000, 3]);
  const reader = chunkReader(byteStream(sent));
  const read: Uint8Array[] = [];
  while (true) {
    const { done, value } = await reader.read();
    if (done) break;
    read.push(value.slice());
  }
  assert.deepEqual(joined(read), joined(sent));
  reader.releaseLock();
});

Deno.test("chunkReader reads a byte stream into one buffer: the next read takes it back from the chunk", async () => {
  const reader = chunkReader(byteStream(chunksOf([4096, 4096, 4096])));
  const first = await reader.read();
  assert.equal(first.done, false);
  const buffer = first.value!.buffer;
  assert.equal(buffer.byteLength, 64 * 1024);
  const second = await reader.read();
  // The first chunk's buffer went to the second read, and came back in it.
  assert.equal(buffer.byteLength, 0);
  assert.equal(second.value!.buffer.byteLength, 64 * 1024);
  assert.equal(second.value!.byteOffset, 0);
  await reader.cancel();
  assert.deepEqual(await reader.read(), { done: true, value: undefined });
});

Deno.test("chunkReader reads any other stream with its own reader, chunk for chunk", async () => {
  const sent = chunksOf([3, 5]);
  let next = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (next === sent.length) controller.close();
      else controller.enqueue(sent[next++]);
    },
  });
  const reader = chunkReader(stream);
  assert.equal((await reader.read()).value, sent[0]);
  assert.equal((await reader.read()).value, sent[1]);
  assert.equal((await reader.read()).done, true);
  reader.releaseLock();
  assert.equal(stream.locked, false);
});

Deno.test("chunkReader passes a cancel's reason to the stream", async () => {
  let reason: unknown;
  const reader = chunkReader(
    new ReadableStream({
      type: "bytes",
      cancel: (why) => void (reason = why),
    }),
  );
  await reader.cancel("stopped");
  assert.equal(reason, "stopped");
});

Deno.test("chunkReader after a cancel, an error, or with two reads at once answers as a stream's reader does", async () => {
  const cancelled = chunkReader(byteStream(chunksOf([10, 10])));
  await cancelled.read();
  await cancelled.cancel();
  assert.deepEqual(await cancelled.read(), { done: true, value: undefined });
  assert.deepEqual(await cancelled.read(), { done: true, value: undefined });

  let pulls = 0;
  const failing = chunkReader(
    new ReadableStream({
      type: "bytes",
      pull(controller) {
        if (pulls++ === 0) controller.enqueue(new Uint8Array([1]));
        else controller.error(new Error("reset"));
      },
    }),
  );
  assert.deepEqual([...(await failing.read()).value!], [1]);
  await assert.rejects(failing.read(), /reset/);
  await assert.rejects(failing.read(), /reset/);

  const both = chunkReader(byteStream(chunksOf([3, 4])));
  const [first, second] = await Promise.all([both.read(), both.read()]);
  assert.deepEqual(
    [...first.value!, ...second.value!],
    joined(chunksOf([3, 4])),
  );
});
