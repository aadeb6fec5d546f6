import assert from "node:assert/strict";
import { ComponentProcess, tailOfFile } from "./_process.ts";

Deno.test("a component's log tail is its last non-empty lines", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const lines = Array.from({ length: 100 }, (_, i) => `line ${i}`);
    await Deno.writeTextFile(`${dir}/log`, lines.join("\n\n") + "\n");
    assert.deepEqual(await tailOfFile(`${dir}/log`, 30), lines.slice(70));
    assert.deepEqual(await tailOfFile(`${dir}/missing`, 30), []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a component runs with its output in its log, and kill() ends it by its PID", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const process = new ComponentProcess({
      component: "etcd",
      command: "/bin/sh",
      args: ["-c", "echo started; echo on stderr >&2; exec sleep 100"],
      env: { PATH: "/usr/bin:/bin" },
      logFile: `${dir}/log`,
    });
    const pid = await process.pid();
    assert.ok(pid !== undefined);
    // Its output arrives in the file.
    for (let i = 0; (await process.tail(5)).length < 2; i++) {
      assert.ok(i < 500, "no output within 5 s");
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assert.deepEqual(await process.tail(5), ["started", "on stderr"]);
    assert.equal(process.status, undefined);
    await process.kill();
    assert.equal((await process.exited).success, false);
    assert.throws(() => Deno.kill(pid, "SIGCONT"), Deno.errors.NotFound);
    await process.kill(); // already gone: nothing to do
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
