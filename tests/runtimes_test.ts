// The runtime smoke test on Deno, from the sources: a kubeconfig written by
// kubectl with an exec plugin, read by FetchClient.fromEnv() on a PATH
// without kubectl, against a TLS server with its own CA, and a Watcher
// synced through it; then a proxy-url with tls-server-name, in-cluster and
// a client certificate. `.ci/runtimes` runs the same script on Node and Bun.
import assert from "node:assert/strict";

function available(command: string, ...args: string[]): boolean {
  try {
    return new Deno.Command(command, { args, stdout: "null", stderr: "null" })
      .outputSync().success;
  } catch {
    return false;
  }
}

const missing = ["openssl", "kubectl"].filter((command) =>
  command === "openssl"
    ? !available("openssl", "version")
    : !available("kubectl", "version", "--client")
);

if (missing.length > 0) {
  console.warn(
    `Skipping the runtime smoke test: ${missing.join(", ")} not on PATH`,
  );
}

Deno.test({
  name:
    "a kubectl-written kubeconfig with an exec plugin syncs a Watcher over TLS on Deno",
  ignore: missing.length > 0,
  async fn() {
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
      /smoke ok on Deno .*: proxy-url with tls-server-name, in-cluster, client certificate, FakeApiServer.listen\(\)/,
    );
  },
});
