// The runtime smoke test on Deno, from the sources: a kubeconfig written by
// kubectl with an exec plugin, read by FetchClient.fromEnv() on a PATH
// without kubectl, against a TLS server with its own CA, and a Watcher
// synced through it; then a proxy-url with tls-server-name, in-cluster and
// a client certificate, a WorkQueue and a Controller. `.ci/runtimes` runs
// the same script on Node and Bun.
import assert from "node:assert/strict";
import {
  ignoredWithout,
  kubectlPath,
  opensslMissing,
  requireAvailable,
} from "./requirements.ts";

// The smoke script runs kubectl from PATH: the provisioned one is put first
// on it when the machine has none.
const runtimeMissing = opensslMissing ??
  (kubectlPath
    ? undefined
    : "kubectl (install it or run `bash tools/control_plane.sh`)");

Deno.test({
  name:
    "a kubectl-written kubeconfig with an exec plugin syncs a Watcher over TLS on Deno",
  ignore: ignoredWithout(runtimeMissing),
  async fn() {
    requireAvailable(runtimeMissing);
    const root = new URL("../", import.meta.url);
    const output = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--allow-all",
        "--no-lock",
        new URL("tests/runtimes/smoke.mjs", root).pathname,
        new URL("mod.ts", root).href,
        new URL("testing/mod.ts", root).href,
      ],
      env: {
        PATH: `${kubectlPath!.slice(0, kubectlPath!.lastIndexOf("/"))}:${
          Deno.env.get("PATH") ?? ""
        }`,
      },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const decoder = new TextDecoder();
    const stdout = decoder.decode(output.stdout);
    assert.ok(
      output.success,
      `smoke test failed:\n${stdout}\n${decoder.decode(output.stderr)}`,
    );
    assert.match(
      stdout,
      /smoke ok on Deno .*kubeconfig .* \(context "smoke"\), exec plugin, 3 objects synced, 1 watched/,
    );
    assert.match(
      stdout,
      /smoke ok on Deno .*: proxy-url with tls-server-name, in-cluster, client certificate, FakeApiServer.listen\(\), half-open connections, process metrics, work queue, controller$/m,
    );
  },
});
