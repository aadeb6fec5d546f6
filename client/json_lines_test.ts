import assert from "node:assert/strict";
import { JsonLinesError, readJsonLines } from "./json_lines.ts";
import { SeededRandom } from "../testing/_seeded_random.ts";

const encoder = new TextEncoder();

interface Tracked {
  stream: ReadableStream<Uint8Array>;
  cancelled: () => boolean;
  pulls: () => number;
}

/** A pull-based stream over fixed chunks that records cancellation. */
function chunkStream(chunks: Uint8Array[]): Tracked {
  let index = 0;
  let cancelled = false;
  let pulls = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      pulls++;
      if (index < chunks.length) controller.enqueue(chunks[index++]);
      else controller.close();
    },
    cancel() {
      cancelled = true;
    },
  }, { highWaterMark: 0 });
  return { stream, cancelled: () => cancelled, pulls: () => pulls };
}

function splitEvery(bytes: Uint8Array, size: number): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += size) {
    chunks.push(bytes.slice(i, i + size));
  }
  return chunks;
}

/** Splits at pseudo-random points, reproducibly. */
function splitRandomly(bytes: Uint8Array, seed: number): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  const random = new SeededRandom(seed);
  let i = 0;
  while (i < bytes.length) {
    const size = random.int(1, 37);
    chunks.push(bytes.slice(i, i + size));
    i += size;
  }
  return chunks;
}

async function collect(
  chunks: Uint8Array[],
  options?: Parameters<typeof readJsonLines>[1],
): Promise<unknown[]> {
  const values: unknown[] = [];
  for await (
    const value of readJsonLines(chunkStream(chunks).stream, options)
  ) {
    values.push(value);
  }
  return values;
}

async function collectError(
  chunks: Uint8Array[],
  options?: Parameters<typeof readJsonLines>[1],
): Promise<{ values: unknown[]; error: JsonLinesError }> {
  const values: unknown[] = [];
  try {
    for await (
      const value of readJsonLines(chunkStream(chunks).stream, options)
    ) {
      values.push(value);
    }
  } catch (error) {
    assert.ok(error instanceof JsonLinesError, String(error));
    return { values, error };
  }
  assert.fail("expected a JsonLinesError");
}

const events = [
  {
    type: "ADDED",
    object: { metadata: { name: "café", resourceVersion: "1" } },
  },
  { type: "MODIFIED", object: { data: { greeting: "漢字 and 😀 emoji" } } },
  { type: "BOOKMARK", object: { metadata: { resourceVersion: "3" } } },
  { type: "DELETED", object: { spec: { list: [1, 2.5, null, true, "ß"] } } },
];
const document = encoder.encode(
  JSON.stringify(events[0]) + "\n" +
    JSON.stringify(events[1]) + "\r\n" +
    "\n" + // a blank line
    "   \r\n" + // a whitespace-only line
    JSON.stringify(events[2]) + "\n" +
    JSON.stringify(events[3]) + "\n",
);

Deno.test("readJsonLines() yields one value per line in one chunk", async () => {
  assert.deepEqual(await collect([document]), events);
});

Deno.test("readJsonLines() decodes the same values when split at every byte", async () => {
  assert.deepEqual(await collect(splitEvery(document, 1)), events);
});

Deno.test("readJsonLines() decodes the same values for any split size", async () => {
  for (let size = 2; size <= 64; size++) {
    assert.deepEqual(
      await collect(splitEvery(document, size)),
      events,
      `chunk size ${size}`,
    );
  }
  for (let seed = 1; seed <= 50; seed++) {
    assert.deepEqual(
      await collect(splitRandomly(document, seed)),
      events,
      `seed ${seed}`,
    );
  }
});

Deno.test("readJsonLines() keeps a multi-byte character split across chunks", async () => {
  const bytes = encoder.encode('{"s":"😀"}\n');
  // The emoji is 4 bytes starting at offset 6: split inside it in every way.
  for (let cut = 6; cut <= 10; cut++) {
    assert.deepEqual(
      await collect([bytes.slice(0, cut), bytes.slice(cut)]),
      [{ s: "😀" }],
    );
  }
  assert.deepEqual(
    await collect([
      bytes.slice(0, 7),
      bytes.slice(7, 8),
      bytes.slice(8, 9),
      bytes.slice(9),
    ]),
    [{ s: "😀" }],
  );
});

Deno.test("readJsonLines() decodes a line of several megabytes split in small chunks", async () => {
  const big = "x".repeat(4 * 1024 * 1024) + "é";
  const bytes = encoder.encode(
    JSON.stringify({ big }) + "\n" + JSON.stringify({ after: 1 }) + "\n",
  );
  const values = await collect(splitEvery(bytes, 1021));
  assert.equal(values.length, 2);
  assert.equal((values[0] as { big: string }).big, big);
  assert.deepEqual(values[1], { after: 1 });
});

Deno.test("readJsonLines() parses a final line without a newline", async () => {
  assert.deepEqual(
    await collect(splitEvery(encoder.encode('{"a":1}\n{"b":2}'), 3)),
    [{ a: 1 }, { b: 2 }],
  );
  assert.deepEqual(await collect([encoder.encode("7")]), [7]);
});

Deno.test("readJsonLines() yields nothing for an empty or blank stream", async () => {
  assert.deepEqual(await collect([]), []);
  assert.deepEqual(await collect([encoder.encode("\n\r\n  \n")]), []);
  assert.deepEqual(await collect([encoder.encode("\n  ")]), []);
});

Deno.test("readJsonLines() reports a truncated final line after the complete ones", async () => {
  const bytes = encoder.encode('{"a":1}\n{"type":"ADDED","object":{"meta');
  for (const chunks of [[bytes], splitEvery(bytes, 1), splitEvery(bytes, 5)]) {
    const { values, error } = await collectError(chunks);
    assert.deepEqual(values, [{ a: 1 }]);
    assert.equal(error.kind, "truncated");
    assert.equal(error.name, "JsonLinesError");
    assert.equal(error.preview, '{"type":"ADDED","object":{"meta');
    assert.ok(error.cause instanceof SyntaxError);
  }
});

Deno.test("readJsonLines() reports an invalid middle line and stops there", async () => {
  const bytes = encoder.encode(
    '{"a":1}\n<html>502 Bad Gateway</html>\n{"b":2}\n',
  );
  const { values, error } = await collectError(splitEvery(bytes, 4));
  assert.deepEqual(values, [{ a: 1 }]);
  assert.equal(error.kind, "invalid-json");
  assert.equal(error.preview, "<html>502 Bad Gateway</html>");
  assert.match(error.message, /not valid JSON.*502 Bad Gateway/);
});

Deno.test("readJsonLines() limits the preview of a bad line to 200 characters", async () => {
  const line = "<" + "y".repeat(5000);
  const { error } = await collectError([encoder.encode(line + "\n")]);
  assert.equal(error.preview, line.slice(0, 200));
  assert.ok(error.message.length < 400);
});

Deno.test("readJsonLines() calls onBytes once per chunk with its size", async () => {
  const chunks = splitEvery(document, 10);
  const sizes: number[] = [];
  await collect(chunks, { onBytes: (n) => sizes.push(n) });
  assert.deepEqual(sizes, chunks.map((c) => c.byteLength));
});

Deno.test("readJsonLines() calls onBytes before the chunk's lines are yielded", async () => {
  const { stream } = chunkStream([encoder.encode('{"a":1}\n{"b":2}\n')]);
  let bytes = 0;
  for await (const _ of readJsonLines(stream, { onBytes: (n) => bytes += n })) {
    assert.equal(bytes, 16);
  }
});

Deno.test("readJsonLines() rejects a line over maxLineBytes", async (t) => {
  const line = JSON.stringify({ s: "z".repeat(100) }); // 108 bytes
  const bytes = encoder.encode(`{"ok":1}\n${line}\n{"ok":2}\n`);
  await t.step("split across chunks", async () => {
    const { values, error } = await collectError(splitEvery(bytes, 7), {
      maxLineBytes: 100,
    });
    assert.equal(error.kind, "line-too-long");
    assert.deepEqual(values, [{ ok: 1 }]);
    assert.ok(error.preview.startsWith('{"s":"zzz'));
  });
  await t.step("inside one chunk", async () => {
    const { values, error } = await collectError([bytes], {
      maxLineBytes: 100,
    });
    assert.equal(error.kind, "line-too-long");
    assert.deepEqual(values, [{ ok: 1 }]);
  });
  await t.step("unfinished, before its newline arrives", async () => {
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(encoder.encode(line.slice(0, 60)));
        controller.enqueue(encoder.encode(line.slice(60)));
        // Never closes: the limit must trip without waiting for the end.
      },
    });
    await assert.rejects(
      async () => {
        for await (const _ of readJsonLines(stream, { maxLineBytes: 100 })) {
          // nothing
        }
      },
      (err) => err instanceof JsonLinesError && err.kind === "line-too-long",
    );
  });
  await t.step("counts bytes, not characters", async () => {
    const wide = encoder.encode(`"${"é".repeat(30)}"\n`); // 63 bytes, 33 chars
    const { error } = await collectError(splitEvery(wide, 5), {
      maxLineBytes: 40,
    });
    assert.equal(error.kind, "line-too-long");
    const inOne = await collectError([wide], { maxLineBytes: 40 });
    assert.equal(inOne.error.kind, "line-too-long");
  });
  await t.step("accepts a line exactly at the limit", async () => {
    assert.deepEqual(
      await collect(splitEvery(bytes, 7), { maxLineBytes: line.length }),
      [{ ok: 1 }, JSON.parse(line), { ok: 2 }],
    );
    assert.deepEqual(
      await collect([bytes], { maxLineBytes: line.length }),
      [{ ok: 1 }, JSON.parse(line), { ok: 2 }],
    );
  });
});

Deno.test("readJsonLines() cancels the stream when the consumer stops early", async () => {
  const tracked = chunkStream(splitEvery(document, 8));
  for await (const value of readJsonLines(tracked.stream)) {
    assert.deepEqual(value, events[0]);
    break;
  }
  assert.equal(tracked.cancelled(), true);
  assert.equal(tracked.stream.locked, false);
});

Deno.test("readJsonLines() cancels the stream when a line is invalid", async () => {
  const tracked = chunkStream([
    encoder.encode("nope\n"),
    encoder.encode('{"never":"read"}\n'),
  ]);
  await assert.rejects(async () => {
    for await (const _ of readJsonLines(tracked.stream)) {
      // nothing
    }
  }, JsonLinesError);
  assert.equal(tracked.cancelled(), true);
  assert.equal(tracked.stream.locked, false);
});

Deno.test("readJsonLines() cancels the stream when the consumer throws", async () => {
  const tracked = chunkStream([document]);
  await assert.rejects(async () => {
    for await (const _ of readJsonLines(tracked.stream)) {
      throw new Error("consumer failed");
    }
  }, /consumer failed/);
  assert.equal(tracked.cancelled(), true);
  assert.equal(tracked.stream.locked, false);
});

Deno.test("readJsonLines() passes on a stream error and releases the reader", async () => {
  const failure = new Error("connection reset");
  let sent = false;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (!sent) {
        sent = true;
        controller.enqueue(encoder.encode('{"a":1}\n{"b":'));
      } else {
        controller.error(failure);
      }
    },
  });
  const values: unknown[] = [];
  await assert.rejects(async () => {
    for await (const value of readJsonLines(stream)) values.push(value);
  }, (err) => err === failure);
  assert.deepEqual(values, [{ a: 1 }]);
  assert.equal(stream.locked, false);
});

Deno.test("readJsonLines() does not cancel a stream it read to the end", async () => {
  const tracked = chunkStream([document]);
  assert.deepEqual(
    await Array.fromAsync(readJsonLines(tracked.stream)),
    events,
  );
  assert.equal(tracked.cancelled(), false);
  assert.equal(tracked.stream.locked, false);
});

Deno.test("readJsonLines() reads a real fetch body and closes it when stopped", async () => {
  const lines = Array.from(
    { length: 1000 },
    (_, i) => JSON.stringify({ i, s: "é".repeat(i % 50) }),
  ).join("\n") + "\n";
  await using server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    () => new Response(lines),
  );
  const response = await fetch(`http://127.0.0.1:${server.addr.port}/`);
  let count = 0;
  for await (const value of readJsonLines(response.body!)) {
    assert.equal((value as { i: number }).i, count);
    if (++count === 500) break;
  }
  assert.equal(count, 500);
  assert.equal(response.bodyUsed, true);
});

Deno.test("readJsonLines() ends a pending read when its signal aborts", async () => {
  let cancelledWith: unknown;
  // A stream that sends one line, then nothing: like a quiet watch whose
  // fetch abort does not reach the body.
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode('{"n":1}\n'));
    },
    cancel(reason) {
      cancelledWith = reason;
    },
  });
  const controller = new AbortController();
  const seen: unknown[] = [];
  const reason = new Error("stopped");
  const reading = (async () => {
    for await (
      const value of readJsonLines(stream, { signal: controller.signal })
    ) {
      seen.push(value);
      controller.abort(reason);
    }
  })();
  await assert.rejects(reading, (e) => e === reason);
  assert.deepEqual(seen, [{ n: 1 }]);
  assert.equal(cancelledWith, reason);
});

Deno.test("readJsonLines() does not read at all with an aborted signal", async () => {
  const { stream, pulls } = chunkStream([encoder.encode('{"n":1}\n')]);
  const reason = new Error("already stopped");
  const lines = readJsonLines(stream, { signal: AbortSignal.abort(reason) });
  await assert.rejects(lines.next(), (e) => e === reason);
  assert.equal(pulls(), 0);
  await stream.cancel();
});

Deno.test("readJsonLines() keeps object data of a cut line out of the error message", async () => {
  const secret =
    '{"type":"MODIFIED","object":{"kind":"Secret","metadata":{"annotations":{"last-applied":"{\\"data\\":{\\"password\\":\\"hunter2\\"}}';
  const lines = readJsonLines(chunkStream([encoder.encode(secret)]).stream);
  const error = await lines.next().then(
    () => assert.fail("a cut line must fail"),
    (e) => e,
  );
  assert.ok(error instanceof JsonLinesError);
  assert.equal(error.kind, "truncated");
  assert.ok(error.preview.includes("hunter2"), "the preview keeps it for code");
  assert.ok(!error.message.includes("hunter2"), error.message);
  assert.match(
    error.message,
    /"\{\\"type\\":\\"MODIFIED\\",\\"object\\":\{\\"ki…"/,
  );
});

Deno.test("readJsonLines parse: how each line becomes its value; a throw is an invalid-json line with its cause", async () => {
  const lines = '{"n":1}\n{"n":2}\n';
  const values = [];
  const parse = (line: string) => ({
    ...JSON.parse(line),
    length: line.length,
  });
  for await (
    const value of readJsonLines(new Blob([lines]).stream(), { parse })
  ) {
    values.push(value);
  }
  assert.deepEqual(values, [{ n: 1, length: 7 }, { n: 2, length: 7 }]);
  const refused = new Error("not this one");
  await assert.rejects(
    async () => {
      const body = new Blob(['{"n":1}\n{"n":2}\n']).stream();
      for await (
        const _ of readJsonLines(body, {
          parse: (line) => {
            if (line.includes("2")) throw refused;
            return JSON.parse(line);
          },
        })
      ) { /* drained */ }
    },
    (error) =>
      error instanceof JsonLinesError && error.kind === "invalid-json" &&
      error.cause === refused && error.preview === '{"n":2}',
  );
});
