import assert from "node:assert/strict";
import { ByteBuffer, parseJson } from "./_json.ts";

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
