import assert from "node:assert/strict";
import { KubeConfigError } from "./errors.ts";
import { FetchClient } from "./fetch_client.ts";

const server = "https://127.0.0.1:6443";

/** `assert.throws` returns nothing; this returns the error. */
function thrown(make: () => unknown): KubeConfigError {
  try {
    make();
  } catch (error) {
    assert.ok(error instanceof KubeConfigError, String(error));
    return error;
  }
  assert.fail("no error thrown");
}

Deno.test("FetchClient refuses a misspelt token instead of sending none", () => {
  assert.equal(
    thrown(() => new FetchClient({ server, tokn: "secret" } as never)).message,
    "Invalid FetchClient config: tokn: is not a FetchClientConfig option (did you mean token?)",
  );
  // The token itself never appears, even under a wrong name.
  assert.doesNotMatch(
    thrown(() => new FetchClient({ server, tokn: "secret" } as never)).message,
    /secret/,
  );
});

Deno.test("FetchClient names every unknown or misplaced option, exec's too", () => {
  assert.equal(
    thrown(() =>
      new FetchClient(
        {
          server,
          execTimeoutMs: 5,
          exec: {
            apiVersion: "client.authentication.k8s.io/v1",
            command: "x",
            arg: [],
          },
        } as never,
        { namespace: "shop", clok: {} } as never,
      )
    ).message,
    "Invalid FetchClient config: execTimeoutMs, exec.arg, namespace, clok: " +
      "execTimeoutMs belongs in the second argument (FetchClientOptions), not in the config; " +
      "exec.arg is not an ExecPluginConfig option (did you mean args?); " +
      "namespace belongs in the config (the first argument), not in FetchClientOptions; " +
      "clok is not a FetchClientOptions option (did you mean clock?)",
  );
});

Deno.test("FetchClient's factories refuse names their options do not take", () => {
  assert.equal(
    thrown(() => FetchClient.fromEnv({ env: {}, kubeconfig: "x" } as never))
      .message,
    "Invalid FetchClient options: kubeconfig: is not a FetchClient.fromEnv() option",
  );
  assert.equal(
    thrown(() => FetchClient.inCluster({ env: {}, context: "x" } as never))
      .message,
    "Invalid FetchClient options: context: is not a FetchClient.inCluster() option",
  );
  assert.equal(
    thrown(() =>
      FetchClient.fromKubeconfig("/nonexistent", { contxt: "x" } as never)
    ).message,
    "Invalid FetchClient options: contxt: is not a FetchClient.fromKubeconfig() option (did you mean context?)",
  );
  assert.equal(
    thrown(() => FetchClient.fromKubectl({ kubctl: "x" } as never)).message,
    "Invalid FetchClient options: kubctl: is not a FetchClient.fromKubectl() option (did you mean kubectl?)",
  );
});
