import assert from "node:assert/strict";
import { main } from "../demo.ts";
import { FakeApiServer } from "../testing/mod.ts";
import { MetricsRegistry } from "../metrics/mod.ts";
import { DemoArgsError, parseDemoArgs } from "./args.ts";
import { INGRESSES } from "./cluster.ts";

// These run the demo for real (timers, HTTP on 127.0.0.1), a few seconds.

Deno.test("demo: a short simulated run ends cleanly with every store matching the server", async () => {
  const lines: string[] = [];
  const code = await main(["--duration", "3", "--seed", "7"], {
    write: (line) => lines.push(line),
  });
  const out = lines.join("\n");
  assert.equal(code, 0, out);
  // The three bulk watchers and the Secret's SingleWatcher (1: it exists).
  assert.match(out, /all 4 indexes synchronized .* secret 1\n/);
  // One render line per burst across the watchers of the debounce group,
  // naming the objects that changed.
  assert.match(out, /render +(ingresses|services|endpointslices) \+\d/);
  assert.match(out, /render .* [+~-][a-z]+\/[a-z]/);
  assert.match(out, /haptic\/haproxy-config synced/);
  assert.match(out, /fault +etcd compaction/);
  assert.match(out, /recover +in \d+ ms: ingresses relisted/);
  assert.match(out, /fault +API server overloaded/);
  assert.match(out, /recover +in [\d.]+ s: \d+ × 503 answered/);
  assert.match(out, /verify +every store matches the server/);
  for (
    const watcher of ["ingresses \\(haproxy\\)", "services", "endpointslices"]
  ) {
    // watcher  store  server  ✔ same  initial … ledger ✔  relists ≥ 1
    const row = lines.find((l) => new RegExp(`^  ${watcher} +\\d`).test(l));
    assert.ok(row, `summary row for ${watcher}`);
    const [store, server] = row.replace(/^ +\S+( \(haproxy\))?/, "").trim()
      .split(/ +/);
    assert.equal(store, server, row);
    assert.match(row, /✔ same .* ✔ +[1-9]\d* +[1-9]/);
  }
  assert.match(
    out,
    /Secret haptic\/haproxy-config: rv (\d+) in the watcher, rv \1 on the server ✔/,
  );
  assert.match(out, /all good$/);
});

Deno.test("demo: --metrics-port 0 serves /healthz, /readyz and /metrics while it runs", async () => {
  const lines: string[] = [];
  const url = Promise.withResolvers<string>();
  const ready = Promise.withResolvers<void>();
  const registry = new MetricsRegistry();
  const running = main(["--duration", "2", "--metrics-port", "0"], {
    write: (line) => {
      lines.push(line);
      const served = line.match(
        /health and metrics at (http:\/\/127\.0\.0\.1:\d+)/,
      );
      if (served) url.resolve(served[1]);
      if (/all 4 indexes synchronized/.test(line)) ready.resolve();
    },
    metrics: registry,
  });
  const base = await url.promise;
  await ready.promise;
  const get = async (path: string) => {
    const response = await fetch(base + path);
    return [response.status, await response.text()];
  };
  assert.deepEqual(await get("/healthz"), [200, "ok\n"]);
  const [status, body] = await get("/readyz?verbose");
  assert.equal(status, 200, String(body));
  assert.match(String(body), /\[\+\]watcher\/ingresses ok\n/);
  assert.match(String(body), /\[\+\]watcher\/secret ok\n/);
  assert.match(String(body), /\[\+\]tracker\/endpointslices ok\n/);
  const metrics = await fetch(`${base}/metrics`);
  assert.equal(
    metrics.headers.get("content-type"),
    "text/plain; version=0.0.4; charset=utf-8",
  );
  // What the registry renders, the demo's watchers in it by name.
  const text = await metrics.text();
  assert.match(
    text,
    /^k8s_watcher_synced\{group="networking\.k8s\.io",namespace="",resource="ingresses",version="v1",watcher="ingresses"\} 1$/m,
  );
  assert.match(text, /^k8s_watcher_tracker_resources\{state="synced"\} 4$/m);
  assert.match(
    text,
    /^rest_client_requests_total\{code="200",host="[^"]+",method="GET"\} [1-9]/m,
  );
  assert.match(
    text,
    /^k8s_watcher_watches_total\{[^}]*resource="services"[^}]*\} [1-9]/m,
  );
  assert.equal(await running, 0, lines.join("\n"));
  assert.match(lines.join("\n"), /all good$/);
  // Closed with the run.
  await assert.rejects(fetch(`${base}/healthz`));
});

Deno.test("demo: --replicas 3 elects one leader, kills it mid-run and shows the takeover", async () => {
  const lines: string[] = [];
  const code = await main(
    ["--replicas", "3", "--duration", "6", "--seed", "2"],
    {
      write: (line) => lines.push(line),
    },
  );
  const out = lines.join("\n");
  assert.equal(code, 0, out);
  assert.match(out, /3 replicas synced/);
  const first = out.match(/lease +(replica-\d) leads/)?.[1];
  assert.ok(first, out);
  const kill = lines.findIndex((l) => / kill +replica-\d \(the leader/.test(l));
  assert.match(lines[kill], new RegExp(`kill +${first} `));
  const takeover = lines.findIndex((l) =>
    /lease +replica-\d takes over \d+\.\d{3} s after the kill/.test(l)
  );
  assert.ok(kill > 0 && takeover > kill, out);
  const successor = lines[takeover].match(/(replica-\d) takes over/)![1];
  assert.notEqual(successor, first);
  // Only the leader of the moment renders: the first before the kill, the
  // successor after the takeover, nobody in between.
  const renders = lines.map((l, i) => ({
    i,
    who: l.match(/render +(replica-\d) #/)?.[1],
  }))
    .filter((r) => r.who !== undefined);
  assert.ok(
    renders.some((r) => r.i < kill) && renders.some((r) => r.i > takeover),
  );
  for (const r of renders) {
    assert.equal(r.who, r.i < kill ? first : successor, lines[r.i]);
    assert.ok(r.i < kill || r.i > takeover, lines[r.i]);
  }
  assert.match(
    out,
    /verify +one leader at a time; replica-\d took over in \d+\.\d{3} s; leaseTransitions 1/,
  );
  assert.match(out, /all good$/);
});

Deno.test("demo: live mode watches a resource through kubectl proxy and prints batches", async () => {
  await using server = new FakeApiServer({ initialResourceVersion: 100 });
  for (const name of ["a", "b"]) {
    server.create(INGRESSES, {
      metadata: { name, namespace: "web" },
      spec: { ingressClassName: "haproxy" },
    });
  }
  await using listener = await server.listen();
  const lines: string[] = [];
  const code = await main([
    "--proxy",
    listener.url,
    "--resource",
    "ingresses.networking.k8s.io",
    "--namespace",
    "web",
    "--duration",
    "1",
  ], {
    write: (line) => {
      lines.push(line);
      // A change as soon as the watcher has synced: its batch must show.
      if (line.includes("synced: 2 objects")) {
        server.create(INGRESSES, { metadata: { name: "c", namespace: "web" } });
      }
    },
  });
  const out = lines.join("\n");
  assert.equal(code, 0, out);
  assert.match(
    out,
    /ingresses\.networking\.k8s\.io \(networking\.k8s\.io\/v1\) in namespace web/,
  );
  assert.match(out, /kubectl proxy at http:\/\/127\.0\.0\.1:\d+/);
  assert.match(out, /batch +ingresses\.networking\.k8s\.io +\+1 /);
  const row = lines.find((l) =>
    /^ {2}ingresses\.networking\.k8s\.io +\d/.test(l)
  );
  // store 3, initial 2, one batch that created one
  assert.match(row ?? "", /^ +\S+ +3 +2 +1 +1 +0 +0 /, out);
  const watch = server.requests.find((r) => r.verb === "watch");
  assert.equal(
    watch?.path,
    "/apis/networking.k8s.io/v1/namespaces/web/ingresses",
  );
});

Deno.test("demo: live mode fails clearly for an unknown API group", async () => {
  await using server = new FakeApiServer();
  await using listener = await server.listen();
  const lines: string[] = [];
  const code = await main([
    "--proxy",
    listener.url,
    "--resource",
    "widgets.example.com",
  ], { write: (line) => lines.push(line) });
  assert.equal(code, 1);
  assert.match(lines.join("\n"), /example\.com\/<version>\/widgets/);
});

Deno.test("demo: --help prints usage, a bad command line exits with 2", async () => {
  const out: string[] = [];
  assert.equal(await main(["--help"], { write: (l) => out.push(l) }), 0);
  assert.match(out.join("\n"), /^Usage: deno task demo/);
  // A kubeconfig is read as FetchClient reads it: YAML or JSON, no kubectl.
  assert.match(
    out.join("\n"),
    /--kubeconfig <path> +Use this kubeconfig file \(YAML or JSON, read directly\)/,
  );
  assert.doesNotMatch(out.join("\n"), /via kubectl/);
  out.length = 0;
  assert.equal(
    await main(["--duration", "soon"], { write: (l) => out.push(l) }),
    2,
  );
  assert.match(out.join("\n"), /--duration must be a positive number/);
});

Deno.test("demo: command line parsing", () => {
  assert.deepEqual(
    parseDemoArgs(["--duration=60", "--seed", "3"]),
    {
      help: false,
      duration: 60,
      seed: 3,
      kubeconfig: undefined,
      context: undefined,
      inCluster: false,
      proxy: false,
      resource: undefined,
      namespace: undefined,
      replicas: undefined,
      metricsPort: undefined,
    },
  );
  assert.equal(parseDemoArgs(["--metrics-port", "0"]).metricsPort, 0);
  assert.equal(parseDemoArgs(["--metrics-port=9090"]).metricsPort, 9090);
  assert.equal(parseDemoArgs(["--replicas", "3"]).replicas, 3);
  assert.equal(parseDemoArgs(["--proxy", "--resource", "pods"]).proxy, true);
  assert.equal(
    parseDemoArgs(["--proxy", "http://127.0.0.1:9999", "--resource", "pods"])
      .proxy,
    "http://127.0.0.1:9999",
  );
  for (
    const [argv, message] of [
      [["--bogus"], /Unknown option "--bogus"/],
      [["--kubeconfig"], /--kubeconfig needs a value/],
      [["--in-cluster"], /needs --resource/],
      [["--in-cluster", "--proxy", "--resource", "pods"], /only one of/],
      [["--namespace", "x"], /--namespace goes with --resource/],
      [["--replicas", "1"], /--replicas must be a whole number from 2 to 9/],
      [["--replicas", "2.5"], /--replicas must be a whole number/],
      [["--metrics-port", "-1"], /port number from 0 to 65535, got "-1"/],
      [["--metrics-port", "70000"], /port number from 0 to 65535, got "70000"/],
      [["--metrics-port", "1.5"], /port number from 0 to 65535/],
      [
        ["--metrics-port", "0", "--replicas", "3"],
        /does not go with --replicas/,
      ],
      [
        ["--replicas", "3", "--resource", "pods"],
        /does not go with --resource/,
      ],
    ] as const
  ) {
    assert.throws(
      () => parseDemoArgs(argv),
      (e: unknown) => e instanceof DemoArgsError && message.test(e.message),
    );
  }
});
