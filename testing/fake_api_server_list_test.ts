import assert from "node:assert/strict";
import { FakeApiServer } from "./fake_api_server.ts";

interface ListBody {
  kind: string;
  apiVersion: string;
  metadata: {
    resourceVersion: string;
    continue?: string;
    remainingItemCount?: number;
  };
  items: {
    apiVersion?: string;
    kind?: string;
    metadata: { name: string; namespace?: string };
  }[];
}

async function get(server: FakeApiServer, path: string) {
  const res = await server.handle(new Request(`${server.url}${path}`));
  return { status: res.status, body: await res.json() };
}

async function list(server: FakeApiServer, path: string): Promise<ListBody> {
  const { status, body } = await get(server, path);
  assert.equal(status, 200, JSON.stringify(body));
  return body;
}

const names = (body: ListBody) => body.items.map((i) => i.metadata.name);

function seed(server: FakeApiServer): void {
  const pods: [string, string, Record<string, string>, string][] = [
    ["default", "web-1", { app: "web", tier: "front" }, "Running"],
    ["default", "web-2", { app: "web", tier: "front" }, "Pending"],
    ["default", "db-1", { app: "db", tier: "back" }, "Running"],
    ["other", "web-3", { app: "web" }, "Running"],
    ["other", "job-1", { app: "job", legacy: "true" }, "Succeeded"],
  ];
  for (const [namespace, name, labels, phase] of pods) {
    server.create("pods", {
      metadata: { name, namespace, labels },
      status: { phase },
    });
  }
}

Deno.test("LIST returns a typed list at the current resourceVersion", async () => {
  using server = new FakeApiServer();
  seed(server);
  const body = await list(server, "/api/v1/pods");
  assert.equal(body.kind, "PodList");
  assert.equal(body.apiVersion, "v1");
  assert.equal(body.metadata.resourceVersion, "5");
  assert.equal(body.metadata.continue, undefined);
  assert.deepEqual(names(body), ["db-1", "web-1", "web-2", "job-1", "web-3"]);
  // As kube-apiserver: the list names the kind, its items of a built-in
  // type carry neither apiVersion nor kind.
  for (const item of body.items) {
    assert.ok(!("apiVersion" in item), JSON.stringify(item));
    assert.ok(!("kind" in item), JSON.stringify(item));
  }
  assert.deepEqual(names(await list(server, "/api/v1/namespaces/other/pods")), [
    "job-1",
    "web-3",
  ]);
  assert.deepEqual(
    names(await list(server, "/api/v1/namespaces/empty/pods")),
    [],
  );
});

Deno.test("LIST items of a custom resource keep apiVersion and kind; a GET always carries them", async () => {
  using server = new FakeApiServer({
    resources: [{
      group: "example.com",
      version: "v1",
      resource: "backends",
      kind: "Backend",
      namespaced: true,
    }],
  });
  server.create("backends", { metadata: { name: "blue", namespace: "a" } });
  server.create("configmaps", { metadata: { name: "cm", namespace: "a" } });
  const custom = await list(server, "/apis/example.com/v1/backends");
  assert.equal(custom.kind, "BackendList");
  assert.deepEqual(
    custom.items.map((i) => [i.apiVersion, i.kind]),
    [["example.com/v1", "Backend"]],
  );
  const one = await get(server, "/api/v1/namespaces/a/configmaps/cm");
  assert.deepEqual([one.body.apiVersion, one.body.kind], ["v1", "ConfigMap"]);
  // The stored object keeps them: only the LIST leaves them off.
  const stored = server.get("configmaps", "a", "cm");
  assert.deepEqual([stored.apiVersion, stored.kind], ["v1", "ConfigMap"]);
});

Deno.test("LIST applies every label selector operator", async () => {
  using server = new FakeApiServer();
  seed(server);
  const cases: [string, string[]][] = [
    ["app=web", ["web-1", "web-2", "web-3"]],
    ["app==db", ["db-1"]],
    ["app!=web", ["db-1", "job-1"]],
    ["app in (db,job)", ["db-1", "job-1"]],
    ["app notin (web,db)", ["job-1"]],
    ["tier", ["db-1", "web-1", "web-2"]],
    ["!tier", ["job-1", "web-3"]],
    ["app=web,tier=front", ["web-1", "web-2"]],
    ["", ["db-1", "web-1", "web-2", "job-1", "web-3"]],
  ];
  for (const [selector, expected] of cases) {
    const body = await list(
      server,
      `/api/v1/pods?labelSelector=${encodeURIComponent(selector)}`,
    );
    assert.deepEqual(names(body), expected, selector);
  }
  const bad = await get(
    server,
    `/api/v1/pods?labelSelector=${encodeURIComponent("app in (web")}`,
  );
  assert.equal(bad.status, 400);
  assert.equal(bad.body.reason, "BadRequest");
  assert.match(bad.body.message, /app in \(web/);
});

Deno.test("LIST applies field selectors on name, namespace and selectable fields", async () => {
  using server = new FakeApiServer();
  seed(server);
  const cases: [string, string[]][] = [
    ["metadata.name=web-1", ["web-1"]],
    ["metadata.name==web-1", ["web-1"]],
    ["metadata.name!=web-1", ["db-1", "web-2", "job-1", "web-3"]],
    ["metadata.namespace=other", ["job-1", "web-3"]],
    ["metadata.namespace!=other,metadata.name!=db-1", ["web-1", "web-2"]],
    ["status.phase=Running", ["db-1", "web-1", "web-3"]],
    ["spec.nodeName=", ["db-1", "web-1", "web-2", "job-1", "web-3"]],
  ];
  for (const [selector, expected] of cases) {
    const body = await list(
      server,
      `/api/v1/pods?fieldSelector=${encodeURIComponent(selector)}`,
    );
    assert.deepEqual(names(body), expected, selector);
  }
  const both = await list(
    server,
    "/api/v1/pods?labelSelector=app%3Dweb&fieldSelector=metadata.namespace%3Ddefault",
  );
  assert.deepEqual(names(both), ["web-1", "web-2"]);

  const unsupported = await get(
    server,
    "/api/v1/pods?fieldSelector=spec.containers=x",
  );
  assert.equal(unsupported.status, 400);
  assert.match(
    unsupported.body.message,
    /field label not supported: spec\.containers/,
  );
  const malformed = await get(
    server,
    "/api/v1/pods?fieldSelector=metadata.name",
  );
  assert.equal(malformed.status, 400);
  const cmField = await get(
    server,
    "/api/v1/configmaps?fieldSelector=status.phase%3DRunning",
  );
  assert.equal(cmField.status, 400, "selectable fields are per resource");
});

Deno.test("LIST paginates with limit and continue over a consistent snapshot", async () => {
  using server = new FakeApiServer();
  for (let i = 0; i < 7; i++) {
    server.create("configmaps", {
      metadata: { name: `cm-${i}`, namespace: "default" },
    });
  }
  const page1 = await list(server, "/api/v1/configmaps?limit=3");
  assert.deepEqual(names(page1), ["cm-0", "cm-1", "cm-2"]);
  assert.equal(page1.metadata.resourceVersion, "7");
  assert.ok(page1.metadata.continue);

  // Writes between pages do not show up: the pages are a snapshot at version 7.
  server.delete("configmaps", "default", "cm-4");
  server.patch("configmaps", "default", "cm-3", { data: { changed: "yes" } });
  server.create("configmaps", {
    metadata: { name: "cm-35", namespace: "default" },
  });
  const page2 = await list(
    server,
    `/api/v1/configmaps?limit=3&continue=${
      encodeURIComponent(page1.metadata.continue!)
    }`,
  );
  assert.deepEqual(names(page2), ["cm-3", "cm-4", "cm-5"]);
  assert.equal(page2.metadata.resourceVersion, "7");
  assert.equal(
    (page2.items[0] as { data?: unknown }).data,
    undefined,
    "cm-3 as of version 7",
  );
  const page3 = await list(
    server,
    `/api/v1/configmaps?limit=3&continue=${
      encodeURIComponent(page2.metadata.continue!)
    }`,
  );
  assert.deepEqual(names(page3), ["cm-6"]);
  assert.equal(page3.metadata.continue, undefined);

  // A fresh list sees the writes.
  assert.deepEqual(names(await list(server, "/api/v1/configmaps")), [
    "cm-0",
    "cm-1",
    "cm-2",
    "cm-3",
    "cm-35",
    "cm-5",
    "cm-6",
  ]);
});

Deno.test("LIST pages count the items left in the snapshot (remainingItemCount), unless a selector is given", async () => {
  using server = new FakeApiServer();
  for (let i = 0; i < 5; i++) {
    server.create("configmaps", {
      metadata: { name: `cm-${i}`, namespace: "shop", labels: { all: "yes" } },
    });
  }
  server.create("configmaps", { metadata: { name: "x", namespace: "other" } });
  const path = "/api/v1/namespaces/shop/configmaps";
  const page1 = await list(server, `${path}?limit=2`);
  assert.deepEqual(names(page1), ["cm-0", "cm-1"]);
  assert.equal(page1.metadata.remainingItemCount, 3);
  // Counted in the snapshot the token continues: a later write does not count.
  server.delete("configmaps", "shop", "cm-4");
  const page2 = await list(
    server,
    `${path}?limit=2&continue=${encodeURIComponent(page1.metadata.continue!)}`,
  );
  assert.deepEqual(names(page2), ["cm-2", "cm-3"]);
  assert.equal(page2.metadata.remainingItemCount, 1);
  const page3 = await list(
    server,
    `${path}?limit=2&continue=${encodeURIComponent(page2.metadata.continue!)}`,
  );
  assert.deepEqual(names(page3), ["cm-4"]);
  assert.equal(page3.metadata.continue, undefined);
  assert.equal("remainingItemCount" in page3.metadata, false);
  // With a selector the server cannot know how many match: no count.
  const selected = await list(
    server,
    `${path}?limit=1&labelSelector=all%3Dyes`,
  );
  assert.ok(selected.metadata.continue);
  assert.equal("remainingItemCount" in selected.metadata, false);
  const byField = await list(
    server,
    "/api/v1/configmaps?limit=1&fieldSelector=metadata.namespace%3Dshop",
  );
  assert.equal("remainingItemCount" in byField.metadata, false);
});

Deno.test("LIST limit: zero or negative is no limit, anything but an integer is 400", async () => {
  using server = new FakeApiServer();
  for (const name of ["a", "b"]) {
    server.create("configmaps", { metadata: { name, namespace: "shop" } });
  }
  for (const limit of ["0", "-1", "-500"]) {
    const whole = await list(server, `/api/v1/configmaps?limit=${limit}`);
    assert.deepEqual(names(whole), ["a", "b"], `limit=${limit}`);
    assert.equal(whole.metadata.continue, undefined);
  }
  assert.deepEqual(
    names(await list(server, "/api/v1/configmaps?limit=%2B1")),
    ["a"],
  );
  for (const limit of ["ten", "1.5", "1e3", "99999999999999999999"]) {
    const { status, body } = await get(
      server,
      `/api/v1/configmaps?limit=${limit}`,
    );
    assert.equal(status, 400, `limit=${limit}`);
    assert.equal(body.reason, "BadRequest");
    assert.match(
      body.message,
      new RegExp(`limit.*"${limit.replace(".", "\\.")}"`),
    );
  }
});

Deno.test("LIST pagination fills pages with selector matches only", async () => {
  using server = new FakeApiServer();
  for (let i = 0; i < 6; i++) {
    server.create("configmaps", {
      metadata: { name: `cm-${i}`, labels: { even: String(i % 2 === 0) } },
    });
  }
  const page1 = await list(
    server,
    "/api/v1/namespaces/default/configmaps?limit=2&labelSelector=even%3Dtrue",
  );
  assert.deepEqual(names(page1), ["cm-0", "cm-2"]);
  const page2 = await list(
    server,
    `/api/v1/namespaces/default/configmaps?limit=2&labelSelector=even%3Dtrue&continue=${
      encodeURIComponent(page1.metadata.continue!)
    }`,
  );
  assert.deepEqual(names(page2), ["cm-4"]);
  assert.equal(page2.metadata.continue, undefined);
});

Deno.test("LIST continue token expires with the history, answering 410", async () => {
  using server = new FakeApiServer({ historyLimit: 3 });
  for (let i = 0; i < 4; i++) {
    server.create("configmaps", { metadata: { name: `cm-${i}` } });
  }
  const page1 = await list(server, "/api/v1/configmaps?limit=2");
  const next = `/api/v1/configmaps?limit=2&continue=${
    encodeURIComponent(page1.metadata.continue!)
  }`;
  // Three writes still fit in the history: the snapshot can be rebuilt.
  for (let i = 0; i < 3; i++) {
    server.create("secrets", { metadata: { name: `s-${i}` } });
  }
  assert.deepEqual(names(await list(server, next)), ["cm-2", "cm-3"]);
  // One more and the snapshot version is compacted away.
  server.create("secrets", { metadata: { name: "s-3" } });
  const expired = await get(server, next);
  assert.equal(expired.status, 410);
  assert.equal(expired.body.reason, "Expired");
  assert.match(expired.body.message, /continue parameter is too old/);
  assert.ok(
    expired.body.metadata.continue,
    "offers an inconsistent continue token",
  );
  const inconsistent = await list(
    server,
    `/api/v1/configmaps?limit=2&continue=${
      encodeURIComponent(expired.body.metadata.continue)
    }`,
  );
  assert.deepEqual(names(inconsistent), ["cm-2", "cm-3"]);
});

Deno.test("LIST continue tokens answer 410 after compactHistory or expireContinueTokens", async () => {
  using server = new FakeApiServer();
  for (let i = 0; i < 4; i++) {
    server.create("configmaps", { metadata: { name: `cm-${i}` } });
  }
  const page1 = await list(server, "/api/v1/configmaps?limit=2");
  const next = `/api/v1/configmaps?limit=2&continue=${
    encodeURIComponent(page1.metadata.continue!)
  }`;
  server.expireContinueTokens();
  assert.equal((await get(server, next)).status, 410);

  const page1b = await list(server, "/api/v1/configmaps?limit=2");
  const nextB = `/api/v1/configmaps?limit=2&continue=${
    encodeURIComponent(page1b.metadata.continue!)
  }`;
  server.create("configmaps", { metadata: { name: "later" } });
  server.compactHistory();
  const expired = await get(server, nextB);
  assert.equal(expired.status, 410);
  assert.equal(expired.body.reason, "Expired");

  const garbage = await get(
    server,
    "/api/v1/configmaps?limit=2&continue=not-a-token",
  );
  assert.equal(garbage.status, 400);
});

Deno.test("LIST resourceVersion semantics: too large, Exact and NotOlderThan", async () => {
  using server = new FakeApiServer();
  server.create("configmaps", { metadata: { name: "a" } });
  server.create("configmaps", { metadata: { name: "b" } });
  const tooLarge = await get(server, "/api/v1/configmaps?resourceVersion=99");
  assert.equal(tooLarge.status, 504);
  assert.equal(tooLarge.body.reason, "Timeout");
  assert.match(
    tooLarge.body.message,
    /Too large resource version: 99, current: 2/,
  );
  assert.deepEqual(tooLarge.body.details.causes, [
    {
      reason: "ResourceVersionTooLarge",
      message: "Too large resource version",
    },
  ]);

  const exact = await list(
    server,
    "/api/v1/configmaps?resourceVersion=1&resourceVersionMatch=Exact",
  );
  assert.deepEqual(names(exact), ["a"]);
  assert.equal(exact.metadata.resourceVersion, "1");
  const notOlder = await list(
    server,
    "/api/v1/configmaps?resourceVersion=1&resourceVersionMatch=NotOlderThan",
  );
  assert.deepEqual(names(notOlder), ["a", "b"]);
  const any = await list(server, "/api/v1/configmaps?resourceVersion=0");
  assert.equal(any.metadata.resourceVersion, "2");

  server.compactHistory();
  const old = await get(
    server,
    "/api/v1/configmaps?resourceVersion=1&resourceVersionMatch=Exact",
  );
  assert.equal(old.status, 410);
  assert.match(old.body.message, /too old resource version: 1 \(2\)/);
  const invalid = await get(
    server,
    "/api/v1/configmaps?resourceVersionMatch=Exact",
  );
  assert.equal(invalid.status, 422);
  assert.match(
    invalid.body.message,
    /resourceVersionMatch is forbidden unless resourceVersion is provided/,
  );
  assert.equal(
    (await get(server, "/api/v1/configmaps?resourceVersion=abc")).status,
    400,
  );
  assert.equal((await get(server, "/api/v1/configmaps?limit=ten")).status, 400);
});

Deno.test("LIST snapshot pages include objects deleted after the snapshot", async () => {
  using server = new FakeApiServer();
  for (const name of ["a", "b", "c", "d"]) {
    server.create("configmaps", { metadata: { name } });
  }
  const page1 = await list(server, "/api/v1/configmaps?limit=1");
  server.delete("configmaps", "default", "b");
  server.delete("configmaps", "default", "d");
  server.create("configmaps", { metadata: { name: "bb" } });
  const rest = await list(
    server,
    `/api/v1/configmaps?continue=${
      encodeURIComponent(page1.metadata.continue!)
    }`,
  );
  assert.deepEqual(names(rest), ["b", "c", "d"]);
});
