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

Deno.test("demo: --metrics-host binds the endpoints to that address", async () => {
  const lines: string[] = [];
  const url = Promise.withResolvers<string>();
  const ready = Promise.withResolvers<void>();
  const running = main([
    "--duration",
    "1",
    "--metrics-host",
    "127.0.0.2",
    "--metrics-port",
    "0",
  ], {
    write: (line) => {
      lines.push(line);
      const served = line.match(/health and metrics at (http:\/\/\S+):/);
      if (served) url.resolve(served[1]);
      if (/all 4 indexes synchronized/.test(line)) ready.resolve();
    },
  });
  const base = await Promise.race([url.promise, endedEarly(running, lines)]);
  await ready.promise;
  const port = new URL(base).port;
  assert.equal(base, `http://127.0.0.2:${port}`);
  const health = await fetch(`${base}/healthz`);
  assert.deepEqual([health.status, await health.text()], [200, "ok\n"]);
  // Bound to that address alone: not on 127.0.0.1.
  await assert.rejects(fetch(`http://127.0.0.1:${port}/healthz`));
  assert.equal(await running, 0, lines.join("\n"));
});

Deno.test("demo: --metrics-port with --replicas serves each replica on its own port, port + 0, 1, 2", async () => {
  const base = consecutiveFreePorts(3);
  const lines: string[] = [];
  const urls = new Map<string, string>();
  const served = Promise.withResolvers<void>();
  const synced = Promise.withResolvers<void>();
  const leads = Promise.withResolvers<string>();
  const killed = Promise.withResolvers<string>();
  const takenOver = Promise.withResolvers<string>();
  const running = main([
    "--replicas",
    "3",
    "--duration",
    "6",
    "--seed",
    "2",
    "--metrics-port",
    String(base),
  ], {
    write: (line) => {
      lines.push(line);
      const serve = line.match(
        /serve +(replica-\d) health and metrics at (http:\/\/\S+):/,
      );
      if (serve) urls.set(serve[1], serve[2]);
      if (urls.size === 3) served.resolve();
      if (/3 replicas synced/.test(line)) synced.resolve();
      const lead = line.match(/lease +(replica-\d) leads/);
      if (lead) leads.resolve(lead[1]);
      const kill = line.match(/kill +(replica-\d) /);
      if (kill) killed.resolve(kill[1]);
      const takeover = line.match(/lease +(replica-\d) takes over/);
      if (takeover) takenOver.resolve(takeover[1]);
    },
  });
  const text = async (url: string) => {
    const response = await fetch(url);
    return [response.status, await response.text()] as const;
  };
  /** `leader_election_master_status` on a replica's own /metrics. */
  const leading = async (replica: string) => {
    const [, metrics] = await text(`${urls.get(replica)}/metrics`);
    const value = metrics.match(
      /^leader_election_master_status\{name="haptic-demo-leader",namespace="haptic"\} (\d)$/m,
    );
    assert.ok(value, metrics);
    return Number(value[1]);
  };
  try {
    await Promise.race([served.promise, endedEarly(running, lines)]);
    assert.deepEqual(Object.fromEntries(urls), {
      "replica-1": `http://127.0.0.1:${base}`,
      "replica-2": `http://127.0.0.1:${base + 1}`,
      "replica-3": `http://127.0.0.1:${base + 2}`,
    });
    await synced.promise;
    const first = await leads.promise;
    for (const [replica, url] of urls) {
      assert.deepEqual(await text(`${url}/healthz`), [200, "ok\n"], replica);
      const [status, body] = await text(`${url}/readyz?verbose`);
      assert.equal(status, 200, body);
      assert.match(body, /\[\+\]watcher\/ingresses ok\n/);
      assert.match(body, /\[\+\]leader ok\n/);
      // Each replica's own registry: its client, its watchers, its elector.
      const [, metrics] = await text(`${url}/metrics`);
      assert.match(
        metrics,
        /^rest_client_requests_total\{code="200",host="[^"]*",method="GET"\} [1-9]/m,
      );
      assert.equal(await leading(replica), replica === first ? 1 : 0);
    }
    // A killed replica serves nothing more; the one taking over says so.
    const victim = await killed.promise;
    assert.equal(victim, first);
    await assert.rejects(fetch(`${urls.get(victim)}/healthz`));
    const successor = await takenOver.promise;
    assert.equal(await leading(successor), 1);
  } finally {
    assert.equal(await running, 0, lines.join("\n"));
  }
  assert.match(lines.join("\n"), /all good$/);
  // Closed with the run.
  for (const url of urls.values()) {
    await assert.rejects(fetch(`${url}/healthz`));
  }
});

Deno.test("demo: --controller reconciles Widgets into owned ConfigMaps, retries a failure, requeues, serves its metrics and converges", async () => {
  const lines: string[] = [];
  const url = Promise.withResolvers<string>();
  const ready = Promise.withResolvers<void>();
  const running = main([
    "--controller",
    "--duration",
    "4",
    "--seed",
    "2",
    "--metrics-port",
    "0",
  ], {
    write: (line) => {
      lines.push(line);
      const served = line.match(/health and metrics at (http:\/\/\S+):/);
      if (served) url.resolve(served[1]);
      if (/ready +controller synced/.test(line)) ready.resolve();
    },
  });
  try {
    const base = await Promise.race([url.promise, endedEarly(running, lines)]);
    await Promise.race([ready.promise, endedEarly(running, lines)]);
    const readyz = await fetch(`${base}/readyz?verbose`);
    const body = await readyz.text();
    assert.equal(readyz.status, 200, body);
    assert.match(body, /\[\+\]controller\/widgets ok\n/);
    // The controller's series and its queue's, by its name.
    const metrics = await (await fetch(`${base}/metrics`)).text();
    assert.match(
      metrics,
      /^controller_runtime_max_concurrent_reconciles\{controller="widgets"\} 4$/m,
    );
    assert.match(metrics, /^workqueue_adds_total\{name="widgets"\} [1-9]/m);
    assert.match(metrics, /^workqueue_depth\{name="widgets"\} \d+$/m);
  } finally {
    assert.equal(await running, 0, lines.join("\n"));
  }
  const out = lines.join("\n");
  const reconciles = lines.filter((l) => /reconcile +\S+\/\S+ /.test(l));
  // Each seeded Widget got its ConfigMap, with its status written back.
  for (const key of ["shop/clock", "shop/gear", "lab/lever", "lab/flaky"]) {
    const name = key.split("/")[1];
    assert.ok(
      reconciles.some((l) =>
        new RegExp(
          `reconcile +${key} → ConfigMap ${key}-config created .*status\\.observedGeneration 1`,
        ).test(l)
      ),
      `${name}'s ConfigMap created:\n${out}`,
    );
  }
  // The churn's writes were reconciled: a create, a change, a delete.
  assert.match(out, /widget +\+ \S+/);
  assert.match(out, /reconcile +\S+ gone → ConfigMap \S+ deleted/);
  // lab/flaky's first reconcile threw: retried after its backoff, attempt 2.
  const failed = lines.findIndex((l) =>
    /retry +lab\/flaky attempt 1 failed: simulated failure/.test(l)
  );
  const retried = lines.findIndex((l) =>
    /reconcile +lab\/flaky → .* · attempt 2/.test(l)
  );
  assert.ok(failed >= 0 && retried > failed, out);
  // The 500 the API server was told to give one ConfigMap write: retried.
  const fault = lines.findIndex((l) => /fault +.*with a 500/.test(l));
  const error500 = lines.findIndex((l) =>
    /retry +\S+ attempt 1 failed: .*500 InternalError/.test(l)
  );
  assert.ok(fault >= 0 && error500 > fault, out);
  const key500 = lines[error500].match(/retry +(\S+) /)![1];
  assert.ok(
    lines.slice(error500).some((l) =>
      l.includes(`reconcile  ${key500} → `) && l.includes("attempt 2")
    ),
    out,
  );
  // shop/clock asks for requeueAfter 2000 ms; nothing else writes it, so
  // a reconcile of it 2 s or more after the start is a requeue.
  const clock = reconciles.filter((l) => /reconcile +shop\/clock /.test(l));
  assert.ok(clock.every((l) => l.includes("requeueAfter 2000 ms")), out);
  assert.ok(
    clock.some((l) => Number(l.trim().split("s ")[0]) >= 2),
    `no requeued reconcile of shop/clock:\n${out}`,
  );
  assert.match(
    out,
    /controller_runtime_reconcile_total\{result="requeue_after"\} +[1-9]/,
  );
  assert.match(
    out,
    /controller_runtime_reconcile_total\{result="error"\} +[2-9]/,
  );
  // A ConfigMap deleted by hand came back.
  const deleted = out.match(/fault +ConfigMap (\S+) deleted by hand/)?.[1];
  assert.ok(deleted, out);
  assert.ok(
    lines.some((l) => l.includes(`ConfigMap ${deleted} created`)) &&
      lines.findLastIndex((l) => l.includes(`ConfigMap ${deleted} created`)) >
        lines.findIndex((l) => l.includes("deleted by hand")),
    out,
  );
  // The final check, on the server: every widget has its ConfigMap, and no
  // ConfigMap is without a widget.
  assert.match(
    out,
    /verify +converged: (\d+) widgets, \1 ConfigMaps; every widget has its ConfigMap \(owned, in step, status observed its generation\), no ConfigMap without a widget/,
  );
  assert.match(out, /all good$/);
});

/** Fails with the demo's output when it ends before what a test awaits. */
async function endedEarly(
  running: Promise<number>,
  lines: string[],
): Promise<never> {
  const code = await running;
  assert.fail(`the demo ended (exit code ${code}) first:\n${lines.join("\n")}`);
}

/** The first of `n` consecutive ports free on 127.0.0.1 just now. */
function consecutiveFreePorts(n: number): number {
  for (;;) {
    const held = [Deno.listen({ hostname: "127.0.0.1", port: 0 })];
    const base = held[0].addr.port;
    try {
      for (let i = 1; i < n; i++) {
        held.push(Deno.listen({ hostname: "127.0.0.1", port: base + i }));
      }
      return base;
    } catch {
      // Taken (or past 65535): try another.
    } finally {
      for (const listener of held) listener.close();
    }
  }
}

Deno.test("demo: a metrics port in use is an error that names it, and the run cleans up", async () => {
  using taken = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const lines: string[] = [];
  const code = await main([
    "--duration",
    "1",
    "--metrics-port",
    String(taken.addr.port),
  ], { write: (line) => lines.push(line) });
  assert.equal(code, 1, lines.join("\n"));
  assert.match(
    lines.join("\n"),
    new RegExp(
      `error +Cannot serve health and metrics on 127\\.0\\.0\\.1:${taken.addr.port}: the address is in use`,
    ),
  );
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

Deno.test("demo: --replicas 3 --shards splits the keys, kills one replica and shows its keys reconciled by the others", async () => {
  const lines: string[] = [];
  const code = await main(
    ["--replicas", "3", "--shards", "--duration", "6", "--seed", "2"],
    { write: (line) => lines.push(line) },
  );
  const out = lines.join("\n");
  assert.equal(code, 0, out);
  assert.match(
    out,
    /3 replicas synced; 900 reconciles, each key once: 900 keys/,
  );
  // Who owns how many keys: three shares of the 900, server-side.
  const owned = new Map(
    lines.flatMap((l) => {
      const m = l.match(
        /ring +(replica-\d) owns (\d+) keys · range .* its watch: server-side, (\d+) objects held/,
      );
      return m ? [[m[1], { keys: Number(m[2]), held: Number(m[3]) }]] : [];
    }),
  );
  assert.deepEqual([...owned.keys()].sort(), [
    "replica-1",
    "replica-2",
    "replica-3",
  ]);
  let sum = 0;
  for (const { keys, held } of owned.values()) {
    assert.ok(keys > 0 && keys < 900, out);
    assert.equal(held, keys);
    sum += keys;
  }
  assert.equal(sum, 900);
  const kill = lines.findIndex((l) =>
    / kill +replica-\d \(owner of \d+ keys\)/.test(l)
  );
  assert.ok(kill > 0, out);
  const [, victim, victimKeys] = lines[kill].match(
    /(replica-\d) \(owner of (\d+) keys\)/,
  )!;
  assert.equal(Number(victimKeys), owned.get(victim)!.keys);
  assert.match(
    out,
    new RegExp(`lease +${victim}'s Lease stays until it expires`),
  );
  // The hand-off: the survivors reconcile all its keys, after its Lease
  // (3 s) expired.
  const handoff = lines.findIndex((l) => / handoff +/.test(l));
  assert.ok(handoff > kill, out);
  const m = lines[handoff].match(
    /(replica-\d)'s (\d+) keys reconciled by (replica-\d) \((\d+)\) and (replica-\d) \((\d+)\) (\d+\.\d{3})–(\d+\.\d{3}) s after the kill/,
  );
  assert.ok(m, lines[handoff]);
  assert.equal(m[1], victim);
  assert.equal(Number(m[2]), owned.get(victim)!.keys);
  assert.equal(Number(m[4]) + Number(m[6]), Number(m[2]));
  assert.ok(![m[3], m[5]].includes(victim));
  assert.ok(
    Number(m[7]) >= 2,
    `taken over before the Lease expired: ${lines[handoff]}`,
  );
  // Both survivors see the ring without it, after the kill.
  for (const survivor of [m[3], m[5]]) {
    const seen = lines.findIndex((l) =>
      new RegExp(`ring +${survivor} sees 2 members`).test(l)
    );
    assert.ok(seen > kill, out);
  }
  // The killed replica says nothing more.
  for (const line of lines.slice(kill + 1)) {
    assert.doesNotMatch(line, new RegExp(`reconcile +${victim} `));
  }
  assert.match(
    out,
    /verify +\d+ reconciles, none of a key on two replicas at once; every key of replica-\d reconciled by a survivor; each of the 900 keys has one live owner/,
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

Deno.test("demo: live mode measures its client too, whichever source it picks", async () => {
  await using server = new FakeApiServer({ initialResourceVersion: 100 });
  server.create(INGRESSES, {
    metadata: { name: "a", namespace: "web" },
    spec: { ingressClassName: "haproxy" },
  });
  await using listener = await server.listen();
  const registry = new MetricsRegistry();
  const lines: string[] = [];
  const code = await main([
    "--proxy",
    listener.url,
    "--resource",
    "networking.k8s.io/v1/ingresses",
    "--duration",
    "1",
  ], { write: (line) => lines.push(line), metrics: registry });
  assert.equal(code, 0, lines.join("\n"));
  // What /metrics serves with --metrics-port: the client's requests beside
  // the watcher's.
  const text = registry.render();
  assert.match(
    text,
    /^rest_client_requests_total\{code="200",host="[^"]*",method="GET"\} [1-9]/m,
  );
  assert.match(text, /^k8s_watcher_watches_total\{[^}]*resource="ingresses"/m);
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
  assert.match(out.join("\n"), /\n {2}--controller +Run a Controller instead/);
  assert.match(
    out.join("\n"),
    /\n {2}--shards +With --replicas n \(default 3\)/,
  );
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
      controller: false,
      shards: false,
      metricsPort: undefined,
      metricsHost: undefined,
    },
  );
  assert.equal(
    parseDemoArgs(["--metrics-host=0.0.0.0", "--metrics-port", "0"])
      .metricsHost,
    "0.0.0.0",
  );
  assert.deepEqual(
    pick(parseDemoArgs(["--replicas", "3", "--metrics-port", "9090"])),
    { replicas: 3, metricsPort: 9090 },
  );
  assert.deepEqual(
    pick(parseDemoArgs(["--replicas", "9", "--metrics-port", "65527"])),
    { replicas: 9, metricsPort: 65527 },
  );
  assert.equal(parseDemoArgs(["--metrics-port", "0"]).metricsPort, 0);
  assert.equal(parseDemoArgs(["--metrics-port=9090"]).metricsPort, 9090);
  assert.equal(parseDemoArgs(["--replicas", "3"]).replicas, 3);
  assert.equal(parseDemoArgs(["--controller"]).controller, true);
  assert.deepEqual(
    pick(parseDemoArgs(["--replicas", "5", "--shards"])),
    { replicas: 5, metricsPort: undefined },
  );
  // Alone, three replicas.
  assert.equal(parseDemoArgs(["--shards"]).replicas, 3);
  assert.equal(parseDemoArgs(["--shards"]).shards, true);
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
        ["--metrics-port", "65534", "--replicas", "3"],
        /^--metrics-port 65534 with --replicas 3 needs ports 65534 to 65536; the highest is 65535$/,
      ],
      [
        ["--metrics-host", "0.0.0.0"],
        /--metrics-host goes with --metrics-port/,
      ],
      [
        ["--metrics-host", "", "--metrics-port", "0"],
        /--metrics-host needs a value/,
      ],
      [
        ["--replicas", "3", "--resource", "pods"],
        /does not go with --resource/,
      ],
      [
        ["--controller", "--resource", "pods"],
        /--controller runs on the simulated cluster; it does not go with --resource/,
      ],
      [
        ["--controller", "--replicas", "3"],
        /Use only one of --controller and --replicas/,
      ],
      [
        ["--controller", "--shards"],
        /Use only one of --controller and --shards/,
      ],
      [
        ["--shards", "--resource", "pods"],
        /--shards runs on the simulated cluster; it does not go with --resource/,
      ],
    ] as const
  ) {
    assert.throws(
      () => parseDemoArgs(argv),
      (e: unknown) => e instanceof DemoArgsError && message.test(e.message),
    );
  }
});

function pick(args: { replicas?: number; metricsPort?: number }) {
  return { replicas: args.replicas, metricsPort: args.metricsPort };
}
