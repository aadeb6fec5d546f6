import assert from "node:assert/strict";
import { FakeClock, waitFor } from "../testing/fake_clock.ts";
import { ApiError } from "./api_error.ts";
import { KubeConfigError } from "./errors.ts";
import { FetchClient, type FetchClientOptions } from "./fetch_client.ts";
import type { ExecPluginConfig } from "./fetch_client_config.ts";
import { CERT as CA } from "../tests/fixtures.ts";

const V1 = "client.authentication.k8s.io/v1";
const START = Date.parse("2030-01-01T00:00:00Z");
const SYSTEM_PATH = "/usr/bin:/bin";

/**
 * A plugin that counts its runs in `dir/runs`, records its arguments and
 * `KUBERNETES_EXEC_INFO`, and prints the token `tok-<run>` with the expiry
 * in `dir/expiry` (none when the file is empty).
 */
const COUNTING_PLUGIN = `
n=$(( $(cat "$DIR/runs" 2>/dev/null || echo 0) + 1 ))
echo "$n" > "$DIR/runs"
printf '%s' "$KUBERNETES_EXEC_INFO" > "$DIR/info"
printf '%s|' "$@" > "$DIR/args"
printf '%s' "$FROM_KUBECONFIG" > "$DIR/env"
expiry=$(cat "$DIR/expiry" 2>/dev/null)
if [ -n "$expiry" ]; then expiry=",\\"expirationTimestamp\\":\\"$expiry\\""; fi
printf '{"apiVersion":"${V1}","kind":"ExecCredential","status":{"token":"tok-%s"%s}}' "$n" "$expiry"
`;

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "k8s-watcher-exec-" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

async function writePlugin(dir: string, body: string): Promise<string> {
  await Deno.mkdir(`${dir}/bin`, { recursive: true });
  const path = `${dir}/bin/plugin`;
  await Deno.writeTextFile(path, `#!/bin/sh\n${body}\n`);
  await Deno.chmod(path, 0o755);
  return path;
}

async function runs(dir: string): Promise<number> {
  return Number((await Deno.readTextFile(`${dir}/runs`)).trim());
}

/**
 * Replaces globalThis.fetch: answers 401 to the tokens in `refused`, else
 * 200 with the Authorization header it got.
 */
function stubServer(
  refused: Set<string> = new Set(),
): Disposable & { seen: (string | null)[] } {
  const original = globalThis.fetch;
  const seen: (string | null)[] = [];
  globalThis.fetch = (input, init) => {
    const auth = new Request(input, init).headers.get("authorization");
    seen.push(auth);
    const token = auth?.replace(/^Bearer /, "") ?? "";
    return Promise.resolve(
      refused.has(token)
        ? Response.json({ kind: "Status", code: 401, reason: "Unauthorized" }, {
          status: 401,
        })
        : Response.json({ auth }),
    );
  };
  return {
    seen,
    [Symbol.dispose]() {
      globalThis.fetch = original;
    },
  };
}

function client(
  dir: string,
  exec: Partial<ExecPluginConfig>,
  options: FetchClientOptions = {},
): FetchClient {
  return new FetchClient({
    server: "https://exec.example:6443",
    exec: { apiVersion: V1, command: `${dir}/bin/plugin`, ...exec },
  }, { env: { PATH: SYSTEM_PATH, DIR: dir }, ...options });
}

function get(c: FetchClient): Promise<unknown> {
  return c.performRequest({ method: "GET", path: "/api", expectJson: true });
}

async function failure(promise: Promise<unknown>): Promise<Error> {
  const error = await promise.then(() => undefined, (e) => e);
  assert.ok(error instanceof Error, `expected a failure, got ${error}`);
  return error;
}

Deno.test("an exec plugin's token is sent, from a run with its args, env and cluster info", async () => {
  await withDir(async (dir) => {
    await writePlugin(dir, COUNTING_PLUGIN);
    using _server = stubServer();
    using c = new FetchClient({
      server: "https://127.0.0.1:1",
      caData: CA,
      tlsServerName: "api.internal",
      exec: {
        apiVersion: V1,
        command: `${dir}/bin/plugin`,
        args: ["get-token", "--cluster name"],
        env: [{ name: "FROM_KUBECONFIG", value: "a b" }],
        provideClusterInfo: true,
        clusterConfig: { audience: "k8s" },
        interactiveMode: "Never",
      },
    }, { env: { PATH: SYSTEM_PATH, DIR: dir } });
    // With a TLS server name the request goes through node:https, so only
    // the plugin run is checked here; the stub sees the other clients.
    using plain = client(dir, {
      args: ["get-token", "--cluster name"],
      env: [{ name: "FROM_KUBECONFIG", value: "a b" }],
    });
    assert.deepEqual(await get(plain), { auth: "Bearer tok-1" });
    assert.equal(
      await Deno.readTextFile(`${dir}/args`),
      "get-token|--cluster name|",
    );
    assert.equal(await Deno.readTextFile(`${dir}/env`), "a b");
    assert.deepEqual(JSON.parse(await Deno.readTextFile(`${dir}/info`)), {
      apiVersion: V1,
      kind: "ExecCredential",
      spec: { interactive: false },
    });

    await failure(get(c)); // Nothing listens on port 1; the plugin ran.
    assert.deepEqual(JSON.parse(await Deno.readTextFile(`${dir}/info`)), {
      apiVersion: V1,
      kind: "ExecCredential",
      spec: {
        interactive: false,
        cluster: {
          server: "https://127.0.0.1:1",
          "tls-server-name": "api.internal",
          "certificate-authority-data": btoa(CA),
          config: { audience: "k8s" },
        },
      },
    });
  });
});

Deno.test("an exec credential is reused until shortly before it expires", async () => {
  await withDir(async (dir) => {
    await writePlugin(dir, COUNTING_PLUGIN);
    await Deno.writeTextFile(`${dir}/expiry`, "2030-01-01T00:10:00Z");
    using server = stubServer();
    const clock = new FakeClock({ now: START });
    using c = client(dir, {}, { clock });
    await get(c);
    await clock.tick(9 * 60_000);
    await get(c);
    assert.equal(await runs(dir), 1);
    await clock.tick(31_000); // 29 s left: renewed before it passes
    await get(c);
    assert.equal(await runs(dir), 2);
    assert.deepEqual(server.seen, [
      "Bearer tok-1",
      "Bearer tok-1",
      "Bearer tok-2",
    ]);
  });
});

Deno.test("a short-lived exec credential is renewed halfway through its life", async () => {
  await withDir(async (dir) => {
    await writePlugin(dir, COUNTING_PLUGIN);
    await Deno.writeTextFile(`${dir}/expiry`, "2030-01-01T00:00:20Z");
    using _server = stubServer();
    const clock = new FakeClock({ now: START });
    using c = client(dir, {}, { clock });
    await get(c);
    await clock.tick(9_000);
    await get(c);
    assert.equal(await runs(dir), 1, "used again within its first half");
    await clock.tick(1_000);
    await get(c);
    assert.equal(await runs(dir), 2);
  });
});

Deno.test("an exec plugin runs once however many requests wait for it", async () => {
  await withDir(async (dir) => {
    await writePlugin(dir, COUNTING_PLUGIN);
    using server = stubServer();
    using c = client(dir, {});
    await Promise.all(Array.from({ length: 8 }, () => get(c)));
    assert.equal(await runs(dir), 1);
    assert.deepEqual(server.seen, Array(8).fill("Bearer tok-1"));
  });
});

Deno.test("a 401 runs the exec plugin once more and retries once", async () => {
  await withDir(async (dir) => {
    await writePlugin(dir, COUNTING_PLUGIN);
    using server = stubServer(new Set(["tok-1"]));
    using c = client(dir, {});
    // Five requests refused with the same credential: one new run.
    const answers = await Promise.all(Array.from({ length: 5 }, () => get(c)));
    assert.deepEqual(answers, Array(5).fill({ auth: "Bearer tok-2" }));
    assert.equal(await runs(dir), 2);
    assert.equal(server.seen.filter((a) => a === "Bearer tok-1").length, 5);
  });
  await withDir(async (dir) => {
    await writePlugin(dir, COUNTING_PLUGIN);
    using _server = stubServer(new Set(["tok-1", "tok-2", "tok-3"]));
    using c = client(dir, {});
    const error = await failure(get(c));
    assert.ok(error instanceof ApiError && error.code === 401, String(error));
    assert.equal(await runs(dir), 2, "no loop of runs on a refused token");
  });
});

Deno.test("a missing exec plugin shows its install hint", async () => {
  await withDir(async (dir) => {
    using c = client(dir, {
      command: "gke-gcloud-auth-plugin",
      installHint: "Install gke-gcloud-auth-plugin: gcloud components install",
    }, { env: { PATH: `${dir}/empty` } });
    const error = await failure(get(c));
    assert.ok(error instanceof KubeConfigError);
    assert.equal(
      error.message,
      "Exec credential plugin gke-gcloud-auth-plugin was not found on PATH. Install gke-gcloud-auth-plugin: gcloud components install",
    );
  });
});

Deno.test("a failing exec plugin shows the end of its stderr, never a token", async () => {
  await withDir(async (dir) => {
    await writePlugin(
      dir,
      `if [ -f "$DIR/ran" ]; then
  printf 'x%.0s' $(seq 1 700) >&2
  echo " tok-secret-1 expired; run: cloud auth login" >&2
  exit 3
fi
touch "$DIR/ran"
printf '{"apiVersion":"${V1}","kind":"ExecCredential","status":{"token":"tok-secret-1","expirationTimestamp":"2030-01-01T00:01:00Z"}}'`,
    );
    using _server = stubServer();
    const clock = new FakeClock({ now: START });
    using c = client(dir, {}, { clock });
    await get(c);
    await clock.tick(60_000);
    const error = await failure(get(c));
    assert.ok(error instanceof KubeConfigError);
    assert.match(
      error.message,
      /^Exec credential plugin \S+ failed with exit code 3: …x+ \[REDACTED\] expired; run: cloud auth login$/,
    );
    assert.ok(error.message.length < 620, "only the end of stderr");
    assert.ok(!Deno.inspect(error).includes("tok-secret-1"));
  });
});

Deno.test("exec plugin output that is not a usable credential is named, never quoted", async (t) => {
  const cases: [string, string, RegExp][] = [
    ["not JSON", "token=tok-secret", /did not print an ExecCredential as JSON/],
    [
      "another API version",
      `{"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential","status":{"token":"tok-secret"}}`,
      /printed apiVersion "client.authentication.k8s.io\/v1beta1", but the kubeconfig asks for client.authentication.k8s.io\/v1/,
    ],
    [
      "no credential",
      `{"apiVersion":"${V1}","kind":"ExecCredential","status":{}}`,
      /printed neither a token nor a client certificate/,
    ],
    [
      "a certificate without key",
      `{"apiVersion":"${V1}","kind":"ExecCredential","status":{"clientCertificateData":"tok-secret"}}`,
      /client certificate without its key/,
    ],
    [
      "a bad expiry",
      `{"apiVersion":"${V1}","kind":"ExecCredential","status":{"token":"tok-secret","expirationTimestamp":"soon"}}`,
      /expirationTimestamp that is not a date/,
    ],
  ];
  for (const [name, output, pattern] of cases) {
    await t.step(name, async () => {
      await withDir(async (dir) => {
        await writePlugin(
          dir,
          `cat <<'EOF'
${output}
EOF`,
        );
        using _server = stubServer();
        using c = client(dir, {});
        const error = await failure(get(c));
        assert.ok(error instanceof KubeConfigError, String(error));
        assert.match(error.message, pattern);
        assert.ok(!Deno.inspect(error).includes("tok-secret"));
      });
    });
  }
});

Deno.test("an exec plugin that hangs is stopped after the timeout", async () => {
  await withDir(async (dir) => {
    await writePlugin(dir, `exec sleep 600`);
    using _server = stubServer();
    const clock = new FakeClock({ now: START });
    using c = client(dir, {}, { clock, execTimeoutMs: 5_000 });
    const request = failure(get(c));
    await waitFor(() => clock.pendingTimers === 1, {
      description: "the plugin timeout is set",
    });
    await clock.tick(5_000);
    const error = await request;
    assert.ok(error instanceof KubeConfigError, String(error));
    assert.match(error.message, /did not finish within 5000 ms/);
  });
});

/** The pid the plugin wrote to `dir/sleep.pid`, once written whole. */
function sleepPid(dir: string): number | undefined {
  try {
    const text = Deno.readTextFileSync(`${dir}/sleep.pid`);
    return text.endsWith("\n") ? Number(text) : undefined;
  } catch {
    return undefined;
  }
}

/** True while `pid` runs: a process that exited and awaits its reaping does not. */
function running(pid: number): boolean {
  if (Deno.build.os === "linux") {
    try {
      const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
      return !/^[ZX]/.test(stat.slice(stat.lastIndexOf(")") + 2));
    } catch {
      return false;
    }
  }
  return new Deno.Command("kill", { args: ["-0", String(pid)], stderr: "null" })
    .outputSync().success;
}

Deno.test("an exec plugin's timeout holds while a process it started keeps its output open", async () => {
  await withDir(async (dir) => {
    // The shell waits for sleep, which holds the plugin's stdout and stderr:
    // ending the shell alone leaves them open for 30 s.
    await writePlugin(dir, `sleep 30 &\necho $! > "$DIR/sleep.pid"\nwait`);
    using _server = stubServer();
    const clock = new FakeClock({ now: START });
    using c = client(dir, {}, { clock, execTimeoutMs: 300 });
    let settled = 0;
    const requests = [get(c), get(c)].map((request) =>
      failure(request).finally(() => settled++)
    );
    await waitFor(() => sleepPid(dir) !== undefined, {
      maxTurns: 20_000,
      description: "the plugin started sleep",
    });
    const pid = sleepPid(dir)!;
    try {
      await clock.tick(300);
      await waitFor(() => settled === 2, {
        maxTurns: 2_000,
        description: "both requests failed at the timeout, sleep still running",
      });
    } finally {
      if (settled < 2) Deno.kill(pid, "SIGKILL");
      await Promise.all(requests);
    }
    for (const error of await Promise.all(requests)) {
      assert.ok(error instanceof KubeConfigError, String(error));
      assert.match(error.message, /did not finish within 300 ms/);
    }
    if (Deno.build.os !== "windows") {
      await waitFor(() => !running(pid), {
        description: "the process the plugin started was ended with it",
      });
    }
  });
});

Deno.test("a kubeconfig exec command with a path is relative to the kubeconfig", async () => {
  await withDir(async (dir) => {
    await Deno.writeTextFile(
      `${dir}/config`,
      `apiVersion: v1
kind: Config
current-context: c
clusters:
- name: k
  cluster:
    server: https://exec.example
    extensions:
    - name: client.authentication.k8s.io/exec
      extension:
        audience: from-extension
contexts:
- name: c
  context: {}
users:
- name: u
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1beta1
      command: ./bin/plugin
      provideClusterInfo: true
`.replace("context: {}", "context:\n    cluster: k\n    user: u"),
    );
    await writePlugin(
      dir,
      COUNTING_PLUGIN.replaceAll(V1, "client.authentication.k8s.io/v1beta1"),
    );
    using _server = stubServer();
    using c = FetchClient.fromKubeconfig(`${dir}/config`, {
      env: { PATH: SYSTEM_PATH, DIR: dir },
    });
    assert.deepEqual(await get(c), { auth: "Bearer tok-1" });
    const info = JSON.parse(await Deno.readTextFile(`${dir}/info`));
    assert.deepEqual(info.spec, {
      interactive: false,
      cluster: {
        server: "https://exec.example",
        config: { audience: "from-extension" },
      },
    });
  });
});
