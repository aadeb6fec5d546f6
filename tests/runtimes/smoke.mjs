// The runtime smoke test: the same script on Deno, Node and Bun.
//
//   <runtime> tests/runtimes/smoke.mjs <mod module> <testing module>
//
// It starts an HTTPS API server with its own CA on 127.0.0.1 (the fake API
// server behind node:https), has the real kubectl write a YAML kubeconfig
// whose user is an exec credential plugin, then reads it with
// FetchClient.fromEnv() on a PATH without kubectl and syncs a Watcher
// through it, watch stream included. It exits non-zero on any failure.
// The modules are the package as a user of that runtime gets it: the
// TypeScript sources on Deno, the transpiled bundle on Node and Bun.
import { execFileSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import https from "node:https";
import { tmpdir } from "node:os";
import { pathToFileURL } from "node:url";

const runtime = typeof globalThis.Deno === "object"
  ? `Deno ${globalThis.Deno.version.deno}`
  : typeof globalThis.Bun === "object"
  ? `Bun ${globalThis.Bun.version}`
  : `Node ${process.versions.node}`;

const moduleUrl = (spec) =>
  /^[a-z]+:/.test(spec) ? spec : pathToFileURL(spec).href;
const [modPath, testingPath] = process.argv.slice(2);
if (!modPath || !testingPath) {
  throw new Error("usage: smoke.mjs <mod module> <testing module>");
}
const { FetchClient, Watcher } = await import(moduleUrl(modPath));
const { FakeApiServer } = await import(moduleUrl(testingPath));

const TOKEN = "smoke-token-from-plugin";
const dir = mkdtempSync(`${tmpdir()}/k8s-watcher-smoke-`);
const guard = setTimeout(() => {
  console.error(`smoke test on ${runtime} did not finish within 60 s`);
  process.exit(1);
}, 60_000);

function run(command, args) {
  return execFileSync(command, args, { cwd: dir, stdio: "pipe" }).toString();
}

/** A CA and a server certificate for 127.0.0.1 signed by it. */
function makeCertificates() {
  const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1"];
  run("openssl", [
    "req",
    "-x509",
    ...ec,
    "-nodes",
    "-keyout",
    "ca.key",
    "-out",
    "ca.crt",
    "-days",
    "2",
    "-subj",
    "/CN=smoke-ca",
    "-addext",
    "basicConstraints=critical,CA:TRUE",
    "-addext",
    "keyUsage=critical,keyCertSign,cRLSign",
  ]);
  run("openssl", [
    "req",
    ...ec,
    "-nodes",
    "-keyout",
    "server.key",
    "-out",
    "server.csr",
    "-subj",
    "/CN=127.0.0.1",
  ]);
  writeFileSync(
    `${dir}/server.ext`,
    "subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\n" +
      "keyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n",
  );
  run("openssl", [
    "x509",
    "-req",
    "-in",
    "server.csr",
    "-CA",
    "ca.crt",
    "-CAkey",
    "ca.key",
    "-CAcreateserial",
    "-out",
    "server.crt",
    "-days",
    "2",
    "-extfile",
    "server.ext",
  ]);
}

/** The fake API server behind node:https, for bearer TOKEN only. */
async function serve(api) {
  const server = https.createServer({
    cert: readFileSync(`${dir}/server.crt`),
    key: readFileSync(`${dir}/server.key`),
  }, async (req, res) => {
    if (req.headers.authorization !== `Bearer ${TOKEN}`) {
      res.writeHead(401, { "content-type": "application/json" });
      res.end(JSON.stringify({ kind: "Status", code: 401 }));
      return;
    }
    const gone = new AbortController();
    res.on("close", () => gone.abort());
    const answer = await api.handle(
      new Request(`${api.url}${req.url}`, {
        method: req.method,
        headers: req.headers,
        signal: gone.signal,
      }),
    );
    res.writeHead(answer.status, Object.fromEntries(answer.headers));
    if (!answer.body) return void res.end();
    const reader = answer.body.getReader();
    gone.signal.addEventListener(
      "abort",
      () => reader.cancel().catch(() => {}),
    );
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        res.write(value);
      }
    } catch {
      // The client went away.
    }
    res.end();
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return server;
}

/** The exec plugin: shell built-ins only, so it needs no PATH. */
function writePlugin(bin) {
  mkdirSync(bin);
  writeFileSync(
    `${bin}/k8s-smoke-token`,
    `#!/bin/sh
[ "$1" = "--audience=smoke" ] || { echo "unexpected arguments: $*" >&2; exit 2; }
echo run >> "${dir}/plugin-runs"
printf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"%s-from-plugin","expirationTimestamp":"2999-01-01T00:00:00Z"}}' "$TOKEN_PREFIX"
`,
  );
  chmodSync(`${bin}/k8s-smoke-token`, 0o755);
}

function check(condition, what) {
  if (!condition) throw new Error(`smoke test on ${runtime}: ${what}`);
}

const api = new FakeApiServer();
let server;
let client;
try {
  makeCertificates();
  server = await serve(api);
  const port = server.address().port;
  const bin = `${dir}/bin`;
  writePlugin(bin);
  const kubeconfig = `${dir}/kubeconfig`;
  const kubectl = (...args) =>
    run("kubectl", ["config", ...args, "--kubeconfig", kubeconfig]);
  kubectl(
    "set-cluster",
    "smoke",
    `--server=https://127.0.0.1:${port}`,
    `--certificate-authority=${dir}/ca.crt`,
    "--embed-certs",
  );
  kubectl(
    "set-credentials",
    "smoke-user",
    "--exec-command=k8s-smoke-token",
    "--exec-arg=--audience=smoke",
    "--exec-env=TOKEN_PREFIX=smoke-token",
    "--exec-api-version=client.authentication.k8s.io/v1",
    "--exec-interactive-mode=Never",
  );
  kubectl(
    "set-context",
    "smoke",
    "--cluster=smoke",
    "--user=smoke-user",
    "--namespace=shop",
  );
  kubectl("use-context", "smoke");
  check(
    readFileSync(kubeconfig, "utf8").startsWith("apiVersion: v1\n"),
    "kubectl wrote YAML",
  );
  check(!existsSync(`${bin}/kubectl`), "the PATH has no kubectl");

  for (const name of ["a", "b", "c"]) {
    api.create("configmaps", {
      metadata: { namespace: "shop", name },
      data: { name },
    });
  }
  client = FetchClient.fromEnv({
    env: { KUBECONFIG: kubeconfig, PATH: bin, HOME: dir },
    inClusterDir: `${dir}/no-service-account`,
  });
  check(client.defaultNamespace === "shop", "the context namespace is used");
  const batches = [];
  const watcher = new Watcher({
    gvr: { group: "", version: "v1", resource: "configmaps" },
    indexBy: ["metadata.namespace", "metadata.name"],
    debounceInterval: 10,
    onChange: (_store, stats) => {
      if (!stats.isInitialSync) batches.push(stats.created);
    },
  }, client);
  watcher.start();
  const synced = await watcher.waitForSync();
  check(synced === 3, `the initial list has 3 objects, not ${synced}`);
  api.create("configmaps", { metadata: { namespace: "shop", name: "d" } });
  while (batches.length === 0) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  check(batches[0] === 1, "the watch stream delivered the new object");
  check((await watcher.store.get("shop", "d")).length === 1, "d is stored");
  await watcher.stop();
  const runs = readFileSync(`${dir}/plugin-runs`, "utf8").trim().split("\n");
  check(runs.length === 1, `the plugin ran once, not ${runs.length} times`);
  console.log(
    `smoke ok on ${runtime}: ${client.source}, exec plugin, ${synced} objects synced, 1 watched`,
  );
} finally {
  client?.close();
  server?.closeAllConnections?.();
  await new Promise((resolve) => server ? server.close(resolve) : resolve());
  await api.close?.();
  clearTimeout(guard);
  rmSync(dir, { recursive: true, force: true });
}
