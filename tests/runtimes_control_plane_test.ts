// The control plane's runtime test on Deno, from the sources: a Watcher
// synced against a ControlPlane, and hosts ended by SIGINT (to them and to
// their process groups), SIGTERM and process.exit() leaving no program and
// no folder of their planes.
// `.ci/runtimes` runs the same script on Node and Bun, from the package.
import assert from "node:assert/strict";
import {
  controlPlaneMissing,
  ignoredWithout,
  requireAvailable,
} from "./requirements.ts";

Deno.test({
  name:
    "a ControlPlane on Deno: a Watcher syncs against it, and a host ended by SIGINT, SIGTERM or exit() leaves nothing of it",
  ignore: ignoredWithout(controlPlaneMissing),
  async fn() {
    requireAvailable(controlPlaneMissing);
    const root = new URL("../", import.meta.url);
    const output = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--allow-all",
        "--no-lock",
        new URL("tests/runtimes/control_plane.mjs", root).pathname,
        new URL("mod.ts", root).href,
        new URL("testing/control_plane/mod.ts", root).href,
      ],
      stdout: "piped",
      stderr: "piped",
    }).output();
    const decoder = new TextDecoder();
    const stdout = decoder.decode(output.stdout);
    assert.ok(
      output.success,
      `the control plane's runtime test failed:\n${stdout}\n${
        decoder.decode(output.stderr)
      }`,
    );
    assert.match(
      stdout,
      /control plane ok on Deno .*: started in .* s, kubectl, a Watcher synced and saw a delete across a kube-apiserver restart, stopped leaving nothing/,
    );
    assert.match(
      stdout,
      /control plane ok on Deno .*: a host ended by SIGINT \(to it and to its process group\), by SIGTERM, by process.exit\(3\) and by its own SIGTERM listener left no program and no folder/,
    );
  },
});
