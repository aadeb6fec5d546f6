import assert from "node:assert/strict";
import { KubeConfigError, NoKubeConfigError } from "./errors.ts";
import { FetchClient } from "./fetch_client.ts";
import { CERT, KEY } from "../tests/fixtures.ts";

const base64 = (text: string) => btoa(text);

/** Replaces globalThis.fetch until disposed; records the headers sent. */
function stubFetch(): Disposable & { auth: (string | null)[]; urls: string[] } {
  const original = globalThis.fetch;
  const auth: (string | null)[] = [];
  const urls: string[] = [];
  globalThis.fetch = (input, init) => {
    const request = new Request(input, init);
    auth.push(request.headers.get("authorization"));
    urls.push(request.url);
    return Promise.resolve(new Response("{}"));
  };
  return {
    auth,
    urls,
    [Symbol.dispose]() {
      globalThis.fetch = original;
    },
  };
}

async function sentAuth(client: FetchClient): Promise<string | null> {
  using stub = stubFetch();
  await client.performRequest({ method: "GET", path: "/version" });
  return stub.auth[0];
}

async function withTempDir(
  fn: (dir: string) => Promise<void> | void,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "k8s-watcher-client-" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

interface KubeconfigParts {
  server?: string;
  cluster?: Record<string, unknown>;
  user?: Record<string, unknown>;
  namespace?: string;
}

function kubeconfig(parts: KubeconfigParts = {}): Record<string, unknown> {
  return {
    apiVersion: "v1",
    kind: "Config",
    "current-context": "dev",
    contexts: [
      { name: "other", context: { cluster: "other", user: "other" } },
      {
        name: "dev",
        context: {
          cluster: "dev-cluster",
          user: "dev-user",
          namespace: parts.namespace,
        },
      },
    ],
    clusters: [
      { name: "other", cluster: { server: "https://other.example" } },
      {
        name: "dev-cluster",
        cluster: {
          server: parts.server ?? "https://dev.example:6443",
          ...parts.cluster,
        },
      },
    ],
    users: [
      { name: "other", user: { token: "other-token" } },
      { name: "dev-user", user: parts.user ?? { token: "dev-token" } },
    ],
  };
}

/** Writes a fake kubectl into `dir`/bin that logs its args and prints `output`. */
async function fakeKubectl(
  dir: string,
  output: string,
  exitCode = 0,
): Promise<{ path: string; args: () => Promise<string> }> {
  const bin = `${dir}/bin`;
  await Deno.mkdir(bin, { recursive: true });
  await Deno.writeTextFile(`${dir}/kubectl-output`, output);
  await Deno.writeTextFile(
    `${bin}/kubectl`,
    `#!/bin/sh\necho "$@" >> '${dir}/kubectl-args'\n` +
      (exitCode === 0
        ? `cat '${dir}/kubectl-output'\n`
        : `cat '${dir}/kubectl-output' >&2\nexit ${exitCode}\n`),
  );
  await Deno.chmod(`${bin}/kubectl`, 0o755);
  return {
    path: `${bin}:/usr/bin:/bin`,
    args: () => Deno.readTextFile(`${dir}/kubectl-args`).catch(() => ""),
  };
}

async function serviceAccount(
  dir: string,
  namespace?: string,
): Promise<string> {
  const sa = `${dir}/serviceaccount`;
  await Deno.mkdir(sa, { recursive: true });
  await Deno.writeTextFile(`${sa}/token`, "in-cluster-token\n");
  await Deno.writeTextFile(`${sa}/ca.crt`, CERT);
  if (namespace) await Deno.writeTextFile(`${sa}/namespace`, namespace);
  return sa;
}

const IN_CLUSTER_ENV = {
  KUBERNETES_SERVICE_HOST: "10.96.0.1",
  KUBERNETES_SERVICE_PORT: "443",
};

Deno.test("fromKubeconfig() reads a JSON kubeconfig's current context", async () => {
  await withTempDir(async (dir) => {
    const path = `${dir}/config.json`;
    await Deno.writeTextFile(
      path,
      JSON.stringify(kubeconfig({
        namespace: "web",
        cluster: { "certificate-authority-data": base64(CERT) },
      })),
    );
    using client = FetchClient.fromKubeconfig(path);
    assert.equal(client.server, "https://dev.example:6443");
    assert.equal(client.defaultNamespace, "web");
    assert.equal(client.source, `kubeconfig ${path} (context "dev")`);
    assert.equal(await sentAuth(client), "Bearer dev-token");
  });
});

Deno.test("fromKubeconfig() picks another context on request", async () => {
  await withTempDir(async (dir) => {
    const path = `${dir}/config.json`;
    await Deno.writeTextFile(path, JSON.stringify(kubeconfig()));
    using client = FetchClient.fromKubeconfig(path, { context: "other" });
    assert.equal(client.server, "https://other.example");
    assert.equal(client.defaultNamespace, "default");
    assert.equal(await sentAuth(client), "Bearer other-token");
    assert.throws(
      () => FetchClient.fromKubeconfig(path, { context: "missing" }),
      /has no context named "missing"/,
    );
  });
});

Deno.test("fromKubeconfig() resolves files relative to the kubeconfig", async () => {
  await withTempDir(async (dir) => {
    await Deno.mkdir(`${dir}/kube/certs`, { recursive: true });
    await Deno.writeTextFile(`${dir}/kube/certs/ca.pem`, CERT);
    await Deno.writeTextFile(`${dir}/kube/certs/client.pem`, CERT);
    await Deno.writeTextFile(`${dir}/kube/certs/client.key`, KEY);
    await Deno.writeTextFile(`${dir}/kube/token`, "file-token\n");
    const path = `${dir}/kube/config`;
    await Deno.writeTextFile(
      path,
      JSON.stringify(kubeconfig({
        cluster: { "certificate-authority": "certs/ca.pem" },
        user: {
          tokenFile: "token",
          "client-certificate": "certs/client.pem",
          "client-key": `${dir}/kube/certs/client.key`,
        },
      })),
    );
    using client = FetchClient.fromKubeconfig(path);
    assert.equal(await sentAuth(client), "Bearer file-token");
  });
});

Deno.test("fromKubeconfig() prefers tokenFile over token, as client-go does", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/token`, "rotating-token\n");
    const path = `${dir}/config`;
    await Deno.writeTextFile(
      path,
      JSON.stringify(kubeconfig({
        user: { token: "static-token", tokenFile: "token" },
      })),
    );
    using client = FetchClient.fromKubeconfig(path);
    assert.equal(await sentAuth(client), "Bearer rotating-token");
  });
});

Deno.test("fromKubeconfig() refuses impersonation it cannot do", async () => {
  await withTempDir(async (dir) => {
    const path = `${dir}/config`;
    await Deno.writeTextFile(
      path,
      JSON.stringify(kubeconfig({
        user: {
          token: "dev-token",
          as: "admin",
          "as-groups": ["system:masters"],
        },
      })),
    );
    assert.throws(
      () => FetchClient.fromKubeconfig(path),
      (err) =>
        err instanceof KubeConfigError &&
        /impersonates with "as"/.test(err.message) &&
        !err.message.includes("dev-token"),
    );
  });
});

Deno.test("fromKubeconfig() accepts client certificate data as base64 or PEM", async () => {
  await withTempDir(async (dir) => {
    for (const encode of [base64, (text: string) => text]) {
      const path = `${dir}/config.json`;
      await Deno.writeTextFile(
        path,
        JSON.stringify(kubeconfig({
          cluster: { "certificate-authority-data": encode(CERT) },
          user: {
            "client-certificate-data": encode(CERT),
            "client-key-data": encode(KEY),
          },
        })),
      );
      using client = FetchClient.fromKubeconfig(path);
      assert.equal(await sentAuth(client), null);
    }
  });
});

Deno.test("fromKubeconfig() names what is wrong, never the secret", async (t) => {
  await withTempDir(async (dir) => {
    const path = `${dir}/config.json`;
    const cases: [string, unknown, RegExp][] = [
      [
        "no current context",
        { ...kubeconfig(), "current-context": "" },
        /has no current context/,
      ],
      [
        "no server",
        kubeconfig({ server: "" }),
        /cluster "dev-cluster" has no server URL/,
      ],
      [
        "missing CA file",
        kubeconfig({ cluster: { "certificate-authority": "nope.pem" } }),
        /Cannot read .*certificate-authority file .*nope\.pem: NotFound/,
      ],
      [
        "key that is not PEM",
        kubeconfig({
          user: {
            "client-certificate-data": base64(CERT),
            "client-key-data": "c2VjcmV0LWtleQ==",
          },
        }),
        /client-key-data is neither PEM text nor base64-encoded PEM/,
      ],
      [
        "exec plugin of an old API version",
        kubeconfig({
          user: {
            exec: {
              command: "aws",
              apiVersion: "client.authentication.k8s.io/v1alpha1",
            },
          },
        }),
        /user "dev-user" exec apiVersion "client.authentication.k8s.io\/v1alpha1" is not supported/,
      ],
      [
        "exec plugin v1 without interactiveMode, as kubectl refuses it",
        kubeconfig({
          user: {
            exec: {
              command: "aws",
              apiVersion: "client.authentication.k8s.io/v1",
            },
          },
        }),
        /interactiveMode must be specified/,
      ],
      [
        "exec plugin that wants a terminal",
        kubeconfig({
          user: {
            exec: {
              command: "kubelogin",
              apiVersion: "client.authentication.k8s.io/v1",
              interactiveMode: "Always",
            },
          },
        }),
        /interactiveMode Always.*never runs a plugin on a terminal/,
      ],
      [
        "auth-provider",
        kubeconfig({ user: { "auth-provider": { name: "gcp" } } }),
        /auth-provider \(gcp\).*exec credential plugin/,
      ],
      [
        "username and password",
        kubeconfig({ user: { username: "admin", password: "pw-secret" } }),
        /username and password/,
      ],
      [
        "a boolean that is text",
        kubeconfig({ cluster: { "insecure-skip-tls-verify": "yes" } }),
        /insecure-skip-tls-verify is not true or false/,
      ],
      [
        "the same cluster twice in one file",
        {
          ...kubeconfig(),
          clusters: [
            { name: "dev-cluster", cluster: { server: "https://a" } },
            { name: "dev-cluster", cluster: { server: "https://b" } },
          ],
        },
        /clusters has the name "dev-cluster" twice/,
      ],
    ];
    for (const [name, doc, pattern] of cases) {
      await t.step(name, async () => {
        await Deno.writeTextFile(path, JSON.stringify(doc));
        assert.throws(
          () => FetchClient.fromKubeconfig(path),
          (err) => err instanceof KubeConfigError && pattern.test(err.message),
        );
      });
    }
    await t.step("broken JSON", async () => {
      await Deno.writeTextFile(
        path,
        '{"users":[{"user":{"token":"tok-secret-1"}}',
      );
      try {
        FetchClient.fromKubeconfig(path);
        assert.fail("expected a KubeConfigError");
      } catch (error) {
        assert.ok(error instanceof KubeConfigError);
        assert.match(error.message, /is not valid JSON/);
        assert.ok(!Deno.inspect(error).includes("tok-secret-1"));
      }
    });
  });
});

Deno.test("fromKubeconfig() reads a YAML kubeconfig without kubectl", async () => {
  await withTempDir(async (dir) => {
    const path = `${dir}/config`;
    await Deno.writeTextFile(`${dir}/token`, "yaml-token");
    await Deno.writeTextFile(
      path,
      `# written by hand
apiVersion: v1
kind: Config
clusters:
- name: c
  cluster:
    server: https://yaml.example:6443
    certificate-authority-data: ${base64(CERT)}
contexts:
- name: ops
  context: {cluster: c, user: u, namespace: ops}
`.replace(
        "{cluster: c, user: u, namespace: ops}",
        "\n    cluster: c\n    user: u\n    namespace: ops",
      ) +
        `current-context: ops
users:
- name: u
  user:
    tokenFile: token
`,
    );
    using client = FetchClient.fromKubeconfig(path, {
      env: { PATH: `${dir}/empty` },
    });
    assert.equal(client.server, "https://yaml.example:6443");
    assert.equal(client.defaultNamespace, "ops");
    assert.equal(client.source, `kubeconfig ${path} (context "ops")`);
    assert.equal(await sentAuth(client), "Bearer yaml-token");
  });
});

Deno.test("fromKubeconfig() names the line and column of YAML it does not read", async () => {
  await withTempDir(async (dir) => {
    const path = `${dir}/config`;
    await Deno.writeTextFile(
      path,
      "apiVersion: v1\nusers:\n- name: u\n  user: &shared\n    token: yaml-secret\n",
    );
    assert.throws(
      () => FetchClient.fromKubeconfig(path),
      (err) =>
        err instanceof KubeConfigError &&
        err.message ===
          `Kubeconfig ${path} line 4 column 9: anchors (&) are not supported` &&
        !err.message.includes("yaml-secret"),
    );
  });
});

Deno.test("fromKubeconfig() uses the YAML parser it is given", async () => {
  await withTempDir(async (dir) => {
    const path = `${dir}/config`;
    await Deno.writeTextFile(path, "anything a real YAML parser reads");
    const seen: string[] = [];
    using client = FetchClient.fromKubeconfig(path, {
      parseYaml: (text) => {
        seen.push(text);
        return kubeconfig({ server: "https://parsed.example" });
      },
    });
    assert.deepEqual(seen, ["anything a real YAML parser reads"]);
    assert.equal(client.server, "https://parsed.example");
    // Its errors keep the position, never its message (it may quote a token).
    assert.throws(
      () =>
        FetchClient.fromKubeconfig(path, {
          parseYaml: () => {
            throw new Error(
              "bad indentation at line 3, column 7: token: s3cr3t",
            );
          },
        }),
      (err) =>
        err instanceof KubeConfigError &&
        err.message ===
          `Kubeconfig ${path} is not valid YAML (line 3 column 7)`,
    );
  });
});

Deno.test("fromKubectl() uses kubectl's view and reports its failure", async () => {
  await withTempDir(async (dir) => {
    const ok = await fakeKubectl(dir, JSON.stringify(kubeconfig()));
    using client = FetchClient.fromKubectl({
      env: { PATH: ok.path, HOME: dir },
      context: "dev",
    });
    assert.equal(await sentAuth(client), "Bearer dev-token");
    assert.match(await ok.args(), /--context dev/);

    const failing = await fakeKubectl(
      `${dir}/second`,
      "error: current-context must exist in order to minify\n",
      1,
    );
    assert.throws(
      () => FetchClient.fromKubectl({ env: { PATH: failing.path } }),
      /kubectl config view failed with exit code 1: error: current-context must exist/,
    );
  });
});

Deno.test("inCluster() reads the service account and the service address", async () => {
  await withTempDir(async (dir) => {
    const sa = await serviceAccount(dir, "haptic");
    using client = FetchClient.inCluster({
      env: IN_CLUSTER_ENV,
      inClusterDir: sa,
    });
    assert.equal(client.server, "https://10.96.0.1");
    assert.equal(client.defaultNamespace, "haptic");
    assert.equal(client.source, `in-cluster service account (${sa})`);
    assert.equal(await sentAuth(client), "Bearer in-cluster-token");

    using v6 = FetchClient.inCluster({
      env: {
        KUBERNETES_SERVICE_HOST: "fd00::1",
        KUBERNETES_SERVICE_PORT: "6443",
      },
      inClusterDir: sa,
    });
    assert.equal(v6.server, "https://[fd00::1]:6443");
  });
});

Deno.test("inCluster() says which part of the pod setup is missing", async () => {
  await withTempDir(async (dir) => {
    assert.throws(
      () => FetchClient.inCluster({ env: {}, inClusterDir: dir }),
      /KUBERNETES_SERVICE_HOST is not set/,
    );
    assert.throws(
      () => FetchClient.inCluster({ env: IN_CLUSTER_ENV, inClusterDir: dir }),
      /Service account token .*\/token does not exist/,
    );
    await Deno.writeTextFile(`${dir}/token`, "t");
    assert.throws(
      () => FetchClient.inCluster({ env: IN_CLUSTER_ENV, inClusterDir: dir }),
      /Cannot read the service account CA .*ca\.crt: NotFound/,
    );
  });
});

Deno.test("fromEnv() prefers KUBECONFIG, then in-cluster, then ~/.kube/config", async () => {
  await withTempDir(async (dir) => {
    const sa = await serviceAccount(dir);
    await Deno.mkdir(`${dir}/home/.kube`, { recursive: true });
    await Deno.writeTextFile(
      `${dir}/home/.kube/config`,
      JSON.stringify(kubeconfig({ server: "https://home.example" })),
    );
    await Deno.writeTextFile(
      `${dir}/explicit.json`,
      JSON.stringify(kubeconfig({ server: "https://explicit.example" })),
    );
    const base = { HOME: `${dir}/home`, ...IN_CLUSTER_ENV };
    const options = { inClusterDir: sa } as const;

    using explicit = FetchClient.fromEnv({
      ...options,
      env: { ...base, KUBECONFIG: `${dir}/missing:${dir}/explicit.json` },
    });
    assert.equal(explicit.server, "https://explicit.example");
    assert.match(explicit.source, /explicit\.json/);

    using inCluster = FetchClient.fromEnv({ ...options, env: base });
    assert.equal(inCluster.server, "https://10.96.0.1");
    assert.match(inCluster.source, /in-cluster/);

    using home = FetchClient.fromEnv({
      ...options,
      env: { HOME: `${dir}/home` },
    });
    assert.equal(home.server, "https://home.example");
    assert.match(home.source, /home\/\.kube\/config/);
  });
});

Deno.test("fromEnv() merges several KUBECONFIG files as kubectl does", async () => {
  await withTempDir(async (dir) => {
    await Deno.mkdir(`${dir}/a`);
    await Deno.mkdir(`${dir}/b`);
    await Deno.writeTextFile(`${dir}/b/token`, "b-file-token");
    // a: no current-context; defines "shared" cluster and context "dev".
    await Deno.writeTextFile(
      `${dir}/a/config`,
      `apiVersion: v1
kind: Config
clusters:
- name: shared
  cluster:
    server: https://from-a.example
contexts:
- name: dev
  context:
    cluster: shared
    user: b-user
    namespace: from-a
`,
    );
    // b: sets current-context, redefines "shared" and "dev" (ignored: a
    // came first), and brings the user, whose token file is next to b.
    await Deno.writeTextFile(
      `${dir}/b/config`,
      JSON.stringify({
        "current-context": "dev",
        clusters: [{ name: "shared", cluster: { server: "https://from-b" } }],
        contexts: [{ name: "dev", context: { cluster: "shared" } }],
        users: [{ name: "b-user", user: { tokenFile: "token" } }],
      }),
    );
    // c: another current-context, too late to count.
    await Deno.writeTextFile(
      `${dir}/c.yaml`,
      "current-context: other\ncontexts:\n- name: other\n  context:\n    cluster: shared\n",
    );
    using client = FetchClient.fromEnv({
      env: {
        PATH: `${dir}/no-kubectl-here`,
        KUBECONFIG:
          `${dir}/a/config:${dir}/missing::${dir}/b/config:${dir}/c.yaml`,
      },
      inClusterDir: dir,
    });
    assert.equal(client.server, "https://from-a.example");
    assert.equal(client.defaultNamespace, "from-a");
    assert.equal(await sentAuth(client), "Bearer b-file-token");
    assert.equal(
      client.source,
      `kubeconfig ${dir}/a/config, ${dir}/b/config, ${dir}/c.yaml (context "dev")`,
    );
  });
});

Deno.test("fromEnv() refuses a KUBECONFIG file that exists but is broken", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/good`, JSON.stringify(kubeconfig()));
    await Deno.writeTextFile(`${dir}/bad`, "clusters: [broken\n");
    assert.throws(
      () =>
        FetchClient.fromEnv({
          env: { KUBECONFIG: `${dir}/good:${dir}/bad` },
          inClusterDir: dir,
        }),
      (err) =>
        err instanceof NoKubeConfigError &&
        err.attempts[0].reason ===
          `Kubeconfig ${dir}/bad line 1 column 11: the flow collection is never closed`,
    );
  });
});

Deno.test("fromEnv() falls back to kubectl proxy only when asked", async () => {
  await withTempDir((dir) => {
    const options = {
      env: { HOME: dir },
      inClusterDir: dir,
    } as const;
    using proxy = FetchClient.fromEnv({ ...options, kubectlProxy: true });
    assert.equal(proxy.server, "http://127.0.0.1:8001");
    assert.equal(proxy.source, "kubectl proxy at http://127.0.0.1:8001");
    using custom = FetchClient.fromEnv({
      ...options,
      kubectlProxy: "http://localhost:9999",
    });
    assert.equal(custom.server, "http://localhost:9999");
  });
});

Deno.test("fromEnv() lists why every source was rejected", async () => {
  await withTempDir(async (dir) => {
    await Deno.mkdir(`${dir}/.kube`);
    await Deno.writeTextFile(
      `${dir}/.kube/config`,
      JSON.stringify(
        kubeconfig({ user: { exec: { command: "gke-gcloud-auth-plugin" } } }),
      ),
    );
    try {
      FetchClient.fromEnv({
        env: {
          HOME: dir,
          KUBECONFIG: `${dir}/nope`,
          KUBERNETES_SERVICE_HOST: "10.0.0.1",
        },
        inClusterDir: dir,
      });
      assert.fail("expected NoKubeConfigError");
    } catch (error) {
      assert.ok(error instanceof NoKubeConfigError, String(error));
      assert.deepEqual(error.attempts.map((a) => a.source), [
        "KUBECONFIG",
        "in-cluster",
        "~/.kube/config",
        "kubectl proxy",
      ]);
      assert.match(error.attempts[0].reason, /no file exists among .*nope/);
      assert.match(
        error.attempts[1].reason,
        /KUBERNETES_SERVICE_PORT is not set/,
      );
      assert.match(
        error.attempts[2].reason,
        /user "dev-user" exec apiVersion is missing/,
      );
      assert.match(error.attempts[3].reason, /kubectlProxy: true/);
      assert.match(
        error.message,
        /^No Kubernetes client configuration found: KUBECONFIG: /,
      );
    }
  });
});
