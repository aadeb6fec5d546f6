// Test helper (not published): the kubectl on this machine against
// FakeApiServer.listen(), with its own kubeconfig and cache directory.
import assert from "node:assert/strict";
import {
  FakeApiServer,
  type FakeApiServerOptions,
} from "../fake_api_server.ts";
import { TEST_CERT, TEST_KEY } from "../_tls_test.ts";
import { kubectlPath } from "../../tests/requirements.ts";

/**
 * kubectl: the machine's, else the control plane's (see
 * tests/requirements.ts, which also decides when its tests are skipped).
 */
export const KUBECTL: string = kubectlPath ?? "kubectl";

/** How long one kubectl invocation (or one wait on it) may take. */
export const COMMAND_DEADLINE_MS = 20_000;

/** A listening fake API server and the kubectl settings that reach it. */
export interface Cluster extends AsyncDisposable {
  server: FakeApiServer;
  /** The directory of the kubeconfig, also usable for manifests. */
  dir: string;
  env: Record<string, string>;
  args: string[];
}

/**
 * Starts a server with `options` and writes a kubeconfig for it; `token`
 * goes into the kubeconfig's user (default: the server's own token; null
 * for none). With a token the server listens over HTTPS, since kubectl
 * sends tokens only over TLS (and the kubeconfig trusts the test
 * certificate); without one, over HTTP, where kubectl sends no credentials
 * (over HTTPS it would prompt for them).
 */
export async function startCluster(
  options: FakeApiServerOptions = {},
  token: string | null = options.token ?? null,
): Promise<Cluster> {
  const server = new FakeApiServer(options);
  const tls = token === null ? undefined : { cert: TEST_CERT, key: TEST_KEY };
  const listener = await server.listen({ tls });
  const dir = await Deno.makeTempDir({ prefix: "fake-api-kubectl-" });
  const kubeconfig = `${dir}/kubeconfig`;
  await Deno.writeTextFile(
    kubeconfig,
    JSON.stringify({
      apiVersion: "v1",
      kind: "Config",
      clusters: [{
        name: "fake",
        cluster: {
          server: listener.url,
          ...(tls && { "certificate-authority-data": btoa(tls.cert) }),
        },
      }],
      users: [{ name: "tester", user: token === null ? {} : { token } }],
      contexts: [{
        name: "fake",
        context: { cluster: "fake", user: "tester", namespace: "default" },
      }],
      "current-context": "fake",
    }),
  );
  return {
    server,
    dir,
    env: { HOME: dir, KUBECONFIG: kubeconfig },
    args: ["--kubeconfig", kubeconfig, "--cache-dir", `${dir}/cache`],
    async [Symbol.asyncDispose]() {
      await server.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

/** What one kubectl run printed and how it exited. */
export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs kubectl once, whatever its exit code. */
export async function runKubectl(
  cluster: Cluster,
  ...args: string[]
): Promise<KubectlResult> {
  const command = new Deno.Command(KUBECTL, {
    args: [...cluster.args, "--request-timeout=10s", ...args],
    env: cluster.env,
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(COMMAND_DEADLINE_MS),
  });
  const { code, stdout, stderr } = await command.output();
  const decoder = new TextDecoder();
  return {
    code,
    stdout: decoder.decode(stdout),
    stderr: decoder.decode(stderr),
  };
}

/** Runs kubectl once and returns its output; it must succeed. */
export async function kubectl(
  cluster: Cluster,
  ...args: string[]
): Promise<string> {
  const { code, stdout, stderr } = await runKubectl(cluster, ...args);
  assert.equal(code, 0, `kubectl ${args.join(" ")} failed: ${stderr}`);
  return stdout;
}

/** Writes a manifest (JSON is YAML) into the cluster's directory. */
export async function manifest(
  cluster: Cluster,
  name: string,
  object: unknown,
): Promise<string> {
  const path = `${cluster.dir}/${name}`;
  await Deno.writeTextFile(path, JSON.stringify(object, null, 2));
  return path;
}

/** Polls (in real time, bounded) for something a separate process does. */
export async function until(
  check: () => boolean,
  describe: () => string,
): Promise<void> {
  const deadline = Date.now() + COMMAND_DEADLINE_MS;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`Timed out: ${describe()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A kubectl process that keeps running (e.g. `get -w`); dispose to stop it. */
export interface RunningKubectl extends AsyncDisposable {
  /** Everything printed to stdout so far. */
  readonly stdout: string;
  /** Everything printed to stderr so far. */
  readonly stderr: string;
}

/** Starts kubectl without waiting for it to end. */
export function spawnKubectl(
  cluster: Cluster,
  ...args: string[]
): RunningKubectl {
  const child = new Deno.Command(KUBECTL, {
    args: [...cluster.args, ...args],
    env: cluster.env,
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const out = { stdout: "", stderr: "" };
  const pump = async (
    stream: ReadableStream<Uint8Array>,
    key: keyof typeof out,
  ) => {
    for await (const text of stream.pipeThrough(new TextDecoderStream())) {
      out[key] += text;
    }
  };
  const reading = Promise.all([
    pump(child.stdout, "stdout"),
    pump(child.stderr, "stderr"),
  ]);
  return {
    get stdout() {
      return out.stdout;
    },
    get stderr() {
      return out.stderr;
    },
    async [Symbol.asyncDispose]() {
      child.kill("SIGTERM");
      await child.status;
      await reading;
    },
  };
}
