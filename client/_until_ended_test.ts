import assert from "node:assert/strict";
import { untilEnded } from "./_until_ended.ts";

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
