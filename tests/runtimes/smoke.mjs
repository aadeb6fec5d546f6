// The runtime smoke test: the same script on Deno, Node and Bun.
//
//   <runtime> tests/runtimes/smoke.mjs <mod module> <testing module>
//
// It starts an HTTPS API server with its own CA on 127.0.0.1 (the fake API
// server behind node:https), has the real kubectl write a YAML kubeconfig
// whose user is an exec credential plugin, then reads it with
// FetchClient.fromEnv() on a PATH without kubectl and syncs a Watcher
// through it, watch stream included. Then, on the same runtime: another
// context of that kubeconfig through an HTTP CONNECT proxy-url to a server
// known by its tls-server-name only, the in-cluster service account, and a
// client certificate; the process's metrics; a WorkQueue, and a Controller
// that reconciles, requeues and stops. It exits non-zero on any failure.
// The modules are the package as a user of that runtime gets it: the
// TypeScript sources on Deno (and on Node, which strips their types), the
// npm package imported by name on Node and Bun (`@haptic/k8s-watcher` and
// `@haptic/k8s-watcher/testing`, from a copy of this file in a project that
// has the packed tarball installed).
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
import http from "node:http";
import https from "node:https";
import net from "node:net";
import { tmpdir } from "node:os";
import { pathToFileURL } from "node:url";
import { makePki, SERVER_NAME } from "../pki.mjs";
import { startBlackHoleProxy } from "../black_hole_proxy.mjs";

const runtime = typeof globalThis.Deno === "object"
  ? `Deno ${globalThis.Deno.version.deno}`
  : typeof globalThis.Bun === "object"
  ? `Bun ${globalThis.Bun.version}`
  : `Node ${process.versions.node}`;

// A URL or a package name as it is; a path as a file URL.
const moduleUrl = (spec) =>
  /^[a-z]+:/.test(spec) || !/^[./]/.test(spec)
    ? spec
    : pathToFileURL(spec).href;
const [modPath, testingPath] = process.argv.slice(2);
if (!modPath || !testingPath) {
  throw new Error("usage: smoke.mjs <mod module> <testing module>");
}
const { FetchClient, SingleWatcher, silentLogger, Watcher } = await import(
  moduleUrl(modPath)
);
const { FakeApiServer } = await import(moduleUrl(testingPath));
// Another entry point beside the root's: `health/mod.ts` beside the
// sources' `mod.ts`, `@haptic/k8s-watcher/health` in the package.
const entry = (name) =>
  moduleUrl(
    /mod\.ts$/.test(modPath)
      ? modPath.replace(/mod\.ts$/, `${name}/mod.ts`)
      : `${modPath}/${name}`,
  );
const { ProcessMetrics } = await import(entry("health"));
const { MetricsRegistry } = await import(entry("metrics"));
const { Controller, WorkQueue } = await import(entry("controller"));
const { ResourceClient } = await import(entry("client"));

const TOKEN = "smoke-token-from-plugin";
const dir = mkdtempSync(`${tmpdir()}/k8s-watcher-smoke-`);
const guard = setTimeout(() => {
  console.error(`smoke test on ${runtime} did not finish within 60 s`);
  process.exit(1);
}, 60_000);

function run(command, args) {
  return execFileSync(command, args, { cwd: dir, stdio: "pipe" }).toString();
}

const IN_CLUSTER_TOKEN = "smoke-in-cluster-token";

/**
 * Who the request authenticates as, or undefined. A client certificate
 * counts when it verified against the CA (Bun's server does not give the
 * certificate itself).
 */
function caller(req) {
  const auth = req.headers.authorization;
  if (auth === `Bearer ${TOKEN}`) return "exec plugin";
  if (auth === `Bearer ${IN_CLUSTER_TOKEN}`) return "service account";
  if (auth === undefined && req.socket.authorized === true) {
    return "client certificate";
  }
  return undefined;
}

/** An HTTP CONNECT proxy that records the authorities it tunnels to. */
async function connectProxy(tunnels) {
  const proxy = http.createServer((_req, res) => res.writeHead(405).end());
  const sockets = new Set();
  proxy.closeAllConnections = () => {
    for (const socket of sockets) socket.destroy();
  };
  proxy.on("connect", (req, socket, head) => {
    tunnels.push(req.url);
    sockets.add(socket);
    const cut = req.url.lastIndexOf(":");
    const upstream = net.connect(
      Number(req.url.slice(cut + 1)),
      req.url.slice(0, cut),
      () => {
        socket.write("HTTP/1.1 200 Connection Established\r\n\r\n");
        upstream.write(head);
        upstream.pipe(socket);
        socket.pipe(upstream);
      },
    );
    sockets.add(upstream);
    upstream.on("error", () => socket.destroy());
    socket.on("error", () => upstream.destroy());
  });
  await new Promise((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  return proxy;
}

/**
 * The fake API server behind node:https with the certificate `name`, for
 * known callers only (a client certificate is asked for, not required).
 */
async function serve(api, name) {
  const server = https.createServer({
    cert: readFileSync(`${dir}/${name}.crt`),
    key: readFileSync(`${dir}/${name}.key`),
    ca: readFileSync(`${dir}/ca.crt`),
    requestCert: true,
    rejectUnauthorized: false,
  }, (req, res) => {
    answer(api, req, res).catch((error) => {
      console.error(error);
      res.destroy();
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return server;
}

/** Answers one request from the fake API server. */
async function answer(api, req, res) {
  if (!caller(req)) {
    res.writeHead(401, { "content-type": "application/json" });
    res.end(JSON.stringify({ kind: "Status", code: 401 }));
    return;
  }
  const gone = new AbortController();
  res.on("close", () => gone.abort());
  const response = await api.handle(
    new Request(`${api.url}${req.url}`, {
      method: req.method,
      headers: req.headers,
      signal: gone.signal,
    }),
  );
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (!response.body) return void res.end();
  res.flushHeaders();
  const reader = response.body.getReader();
  gone.signal.addEventListener("abort", () => reader.cancel().catch(() => {}));
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

/**
 * Two Watchers and a SingleWatcher on one client through a proxy whose
 * connections then turn half-open (kept open, bytes swallowed both ways):
 * each must see the next change within a few idle timeouts.
 */
async function halfOpen(api, target, config, route) {
  const IDLE_MS = 400;
  const proxy = await startBlackHoleProxy(Number(new URL(target).port));
  const scheme = new URL(target).protocol;
  const client = new FetchClient({
    ...config,
    server: `${scheme}//127.0.0.1:${proxy.port}`,
  });
  const gvr = { group: "", version: "v1", resource: "configmaps" };
  const options = { idleTimeoutMs: IDLE_MS, firstByteTimeoutMs: IDLE_MS };
  const name = `half-open-${route.toLowerCase().replace(/\W+/g, "-")}`;
  const watchers = [
    new Watcher(
      {
        gvr,
        namespace: "shop",
        indexBy: ["metadata.name"],
        onChange: () => {},
      },
      client,
      options,
    ),
    new Watcher(
      {
        gvr,
        indexBy: ["metadata.namespace", "metadata.name"],
        onChange: () => {},
        shared: false,
      },
      client,
      options,
    ),
  ];
  let single;
  const singleWatcher = new SingleWatcher(
    {
      gvr,
      namespace: "shop",
      name,
      onChange: (object) => void (single = object),
    },
    client,
    options,
  );
  const all = [...watchers, singleWatcher];
  const stop = new AbortController();
  const runs = all.map((watcher) => watcher.start(stop.signal));
  try {
    await Promise.all(all.map((watcher) => watcher.waitForSync()));
    check(proxy.swallowAll() > 0, `${route}: the proxy held the connections`);
    api.create("configmaps", { metadata: { namespace: "shop", name } });
    const seen = async () =>
      single?.metadata.name === name &&
      (await watchers[0].store.get(name)).length === 1 &&
      (await watchers[1].store.get("shop", name)).length === 1;
    const deadline = Date.now() + 20 * IDLE_MS;
    while (!await seen()) {
      check(
        Date.now() < deadline,
        `${route}: every watcher recovers from half-open connections`,
      );
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  } finally {
    stop.abort();
    await Promise.allSettled(runs);
    await Promise.all(all.map((watcher) => watcher.stop()));
    client.close();
    await proxy.close();
  }
}

function check(condition, what) {
  if (!condition) throw new Error(`smoke test on ${runtime}: ${what}`);
}

async function listConfigMaps(client) {
  const list = await client.performRequest({
    method: "GET",
    path: "/api/v1/namespaces/shop/configmaps",
    expectJson: true,
  });
  return list.items.length;
}

const api = new FakeApiServer();
const servers = [];
const clients = [];
try {
  makePki(dir);
  const server = await serve(api, "server");
  const named = await serve(api, "named");
  const tunnels = [];
  const proxy = await connectProxy(tunnels);
  servers.push(server, named, proxy);
  const bin = `${dir}/bin`;
  writePlugin(bin);
  const kubeconfig = `${dir}/kubeconfig`;
  const kubectl = (...args) =>
    run("kubectl", ["config", ...args, "--kubeconfig", kubeconfig]);
  kubectl(
    "set-cluster",
    "smoke",
    `--server=https://127.0.0.1:${server.address().port}`,
    `--certificate-authority=${dir}/ca.crt`,
    "--embed-certs",
  );
  kubectl(
    "set-cluster",
    "smoke-proxied",
    `--server=https://127.0.0.1:${named.address().port}`,
    `--certificate-authority=${dir}/ca.crt`,
    "--embed-certs",
    `--tls-server-name=${SERVER_NAME}`,
    `--proxy-url=http://127.0.0.1:${proxy.address().port}`,
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
  kubectl(
    "set-context",
    "via-proxy",
    "--cluster=smoke-proxied",
    "--user=smoke-user",
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
  const env = { KUBECONFIG: kubeconfig, PATH: bin, HOME: dir };
  const inClusterDir = `${dir}/serviceaccount`;
  const client = FetchClient.fromEnv({ env, inClusterDir });
  clients.push(client);
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
  const runs = () =>
    readFileSync(`${dir}/plugin-runs`, "utf8").trim().split("\n").length;
  check(runs() === 1, `the plugin ran once, not ${runs()} times`);
  console.log(
    `smoke ok on ${runtime}: ${client.source}, exec plugin, ${synced} objects synced, 1 watched`,
  );

  const proxied = FetchClient.fromEnv({
    env,
    inClusterDir,
    context: "via-proxy",
  });
  clients.push(proxied);
  check(await listConfigMaps(proxied) === 4, "the proxied list has 4 objects");
  check(
    tunnels.length === 1 && tunnels[0] === `127.0.0.1:${named.address().port}`,
    `one CONNECT tunnel to the server, not ${JSON.stringify(tunnels)}`,
  );

  mkdirSync(inClusterDir);
  writeFileSync(`${inClusterDir}/token`, IN_CLUSTER_TOKEN);
  writeFileSync(`${inClusterDir}/ca.crt`, readFileSync(`${dir}/ca.crt`));
  writeFileSync(`${inClusterDir}/namespace`, "shop");
  const inCluster = FetchClient.inCluster({
    env: {
      KUBERNETES_SERVICE_HOST: "127.0.0.1",
      KUBERNETES_SERVICE_PORT: String(server.address().port),
    },
    inClusterDir,
  });
  clients.push(inCluster);
  check(await listConfigMaps(inCluster) === 4, "the in-cluster list works");

  const withCertificate = new FetchClient({
    server: `https://127.0.0.1:${server.address().port}`,
    caData: readFileSync(`${dir}/ca.crt`, "utf8"),
    certData: readFileSync(`${dir}/client.crt`, "utf8"),
    keyData: readFileSync(`${dir}/client.key`, "utf8"),
  });
  clients.push(withCertificate);
  check(
    await listConfigMaps(withCertificate) === 4,
    "the client certificate list works",
  );
  const anonymous = new FetchClient({
    server: `https://127.0.0.1:${server.address().port}`,
    caData: readFileSync(`${dir}/ca.crt`, "utf8"),
  });
  clients.push(anonymous);
  const refused = await listConfigMaps(anonymous).then(() => 0, (e) => e.code);
  check(refused === 401, `without credentials: 401, not ${refused}`);

  // FakeApiServer.listen() over plain HTTP, read with the global fetch: a
  // list, then a watch stream that sees a new object.
  const listener = await api.listen();
  servers.push({ close: (done) => listener.close().then(done) });
  const plain = new FetchClient({ server: listener.url });
  clients.push(plain);
  const list = await plain.performRequest({
    method: "GET",
    path: "/api/v1/namespaces/shop/configmaps",
    expectJson: true,
  });
  check(list.items.length === 4, "FakeApiServer.listen() lists 4 objects");
  const stop = new AbortController();
  const events = await plain.performRequest({
    method: "GET",
    path: "/api/v1/namespaces/shop/configmaps",
    querystring: new URLSearchParams({
      watch: "1",
      resourceVersion: list.metadata.resourceVersion,
    }),
    expectStream: true,
    expectJson: true,
    abortSignal: stop.signal,
  });
  api.create("configmaps", { metadata: { namespace: "shop", name: "e" } });
  const reader = events.getReader();
  const { value: event } = await reader.read();
  check(
    event?.type === "ADDED" && event.object.metadata.name === "e",
    "the plain HTTP watch stream delivers the new object",
  );
  stop.abort();
  await reader.cancel().catch(() => {});

  // Half-open connections, over node:https with the CA and over plain HTTP.
  const secure = await api.listen({
    tls: {
      cert: readFileSync(`${dir}/server.crt`, "utf8"),
      key: readFileSync(`${dir}/server.key`, "utf8"),
    },
  });
  servers.push({ close: (done) => secure.close().then(done) });
  await halfOpen(api, secure.url, {
    caData: readFileSync(`${dir}/ca.crt`, "utf8"),
  }, "a CA");
  await halfOpen(api, listener.url, {}, "plain HTTP");

  // The process's metrics: CPU and memory through node:process, and a
  // 200 ms block of the event loop seen as its delay.
  const registry = new MetricsRegistry();
  const processMetrics = new ProcessMetrics(registry, {
    eventLoopIntervalMs: 10,
  });
  processMetrics.start();
  const busyUntil = Date.now() + 200;
  while (Date.now() < busyUntil) {
    // The loop is blocked.
  }
  await new Promise((resolve) => setTimeout(resolve, 30));
  const text = registry.render();
  processMetrics.stop();
  const sample = (name) =>
    Number(new RegExp(`^${name} (\\S+)$`, "m").exec(text)?.[1]);
  check(
    sample("nodejs_eventloop_lag_max_seconds") >= 0.1,
    `a 200 ms block shows as the event loop's delay:\n${text}`,
  );
  check(
    sample("process_cpu_seconds_total") > 0 &&
      sample("process_resident_memory_bytes") > 0 &&
      sample("nodejs_heap_size_used_bytes") > 0,
    `CPU seconds, resident memory and heap are read:\n${text}`,
  );
  // The controller entry point: a key added during its processing comes
  // back once, after done(), on the runtime's own timers.
  const queue = new WorkQueue({ name: "smoke", meter: registry });
  queue.add("shop/a");
  const first = await queue.next();
  queue.add("shop/a");
  queue.add("shop/a");
  check(queue.length === 0, "a key being processed is not handed out twice");
  queue.done(first);
  queue.addAfter("shop/b", 5);
  const handed = [await queue.next(), await queue.next()];
  handed.forEach((key) => queue.done(key));
  await queue.shutDown({ drain: true });
  check(
    handed.join() === "shop/a,shop/b" &&
      /^workqueue_adds_total\{name="smoke"\} 3$/m.test(registry.render()),
    `the work queue hands out each key once per add:\n${registry.render()}`,
  );
  // A Controller over FakeApiServer.listen(): shop/a reconciled into a
  // copy (a server-side apply), requeued once after 20 ms (a requeue is no
  // retry: attempt 1 again), then stopped.
  const gvr = { group: "", version: "v1", resource: "configmaps" };
  const copies = new ResourceClient({ client: plain, gvr });
  const reconciles = [];
  const controller = new Controller(
    {
      name: "smoke-controller",
      for: { gvr, namespace: "shop", fieldSelector: "metadata.name=a" },
      reconcile: async (key, { get, namespace, attempt }) => {
        reconciles.push(`${key}#${attempt}`);
        const source = get();
        await copies.apply({
          apiVersion: "v1",
          kind: "ConfigMap",
          metadata: { namespace, name: "a-copy" },
          data: { ...source?.data, run: String(reconciles.length) },
        }, { fieldManager: "smoke", namespace });
        return reconciles.length === 1 ? { requeueAfter: 20 } : undefined;
      },
    },
    plain,
    { meter: registry, logger: silentLogger },
  );
  const controlling = controller.start();
  const reconciled = Date.now() + 10_000;
  while (reconciles.length < 2) {
    check(
      Date.now() < reconciled,
      `the controller reconciles shop/a, then again after its requeue: ${
        JSON.stringify(reconciles)
      }`,
    );
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  await controller.stop();
  await controlling;
  const copy = api.get("configmaps", "shop", "a-copy");
  const reconcileTotal = (result) =>
    Number(
      new RegExp(
        `^controller_runtime_reconcile_total\\{controller="smoke-controller",result="${result}"\\} (\\d+)$`,
        "m",
      ).exec(registry.render())?.[1],
    );
  check(
    reconciles.join() === "shop/a#1,shop/a#1" && copy.data.name === "a" &&
      copy.data.run === "2" && reconcileTotal("requeue_after") === 1 &&
      reconcileTotal("success") === 1 &&
      controller.health().state === "stopped",
    `the controller reconciled shop/a twice (a requeue), wrote its copy and stopped: ${
      JSON.stringify({ reconciles, data: copy.data })
    }\n${registry.render()}`,
  );
  console.log(
    `smoke ok on ${runtime}: proxy-url with tls-server-name, in-cluster, client certificate, FakeApiServer.listen(), half-open connections, process metrics, work queue, controller`,
  );
} finally {
  for (const client of clients) client.close();
  for (const server of servers) {
    server.closeAllConnections?.();
    await new Promise((resolve) => server.close(resolve));
  }
  await api.close?.();
  clearTimeout(guard);
  rmSync(dir, { recursive: true, force: true });
}
