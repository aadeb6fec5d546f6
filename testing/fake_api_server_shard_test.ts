import assert from "node:assert/strict";
import { FakeApiServer } from "./fake_api_server.ts";
import { summary, WatchReader } from "./_watch_reader_test.ts";
import { fnv1a64 } from "../_internal/_objects.ts";

const LOWER =
  "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')";
const UPPER =
  "shardRange(object.metadata.uid, '0x8000000000000000', '0x10000000000000000')";

/** Whether `uid`'s FNV-1a 64 hash is in the lower half of the space. */
const lower = (uid: string) => fnv1a64(uid).hi < 0x8000_0000;

async function get(server: FakeApiServer, path: string) {
  const res = await server.handle(new Request(`${server.url}${path}`));
  return { status: res.status, body: await res.json() };
}

interface ListBody {
  metadata: { shardInfo?: { selector: string } };
  items: { metadata: { name: string; uid: string } }[];
}

function seed(server: FakeApiServer, count: number): string[] {
  const uids: string[] = [];
  for (let i = 0; i < count; i++) {
    const made = server.create("configmaps", {
      metadata: { name: `cm-${i}`, namespace: "default" },
    });
    uids.push(made.metadata.uid!);
  }
  return uids;
}

const q = (selector: string) =>
  `/api/v1/configmaps?shardSelector=${encodeURIComponent(selector)}`;

Deno.test("FakeApiServer with shardedListAndWatch lists only the shard's objects and says so in shardInfo", async () => {
  using server = new FakeApiServer({ shardedListAndWatch: true });
  const uids = seed(server, 40);
  const halves = [LOWER, UPPER, `${LOWER} || ${UPPER}`].map(async (s) => {
    const { status, body } = await get(server, q(s));
    assert.equal(status, 200, JSON.stringify(body));
    return body as ListBody;
  });
  const [low, high, both] = await Promise.all(halves);
  assert.equal(low.metadata.shardInfo?.selector, LOWER);
  assert.deepEqual(
    low.items.map((i) => i.metadata.uid).sort(),
    uids.filter(lower).sort(),
  );
  assert.deepEqual(
    high.items.map((i) => i.metadata.uid).sort(),
    uids.filter((u) => !lower(u)).sort(),
  );
  // Both halves are a real split of 40 uids, and together all of them.
  assert.ok(low.items.length > 0 && high.items.length > 0);
  assert.equal(both.items.length, 40);
});

Deno.test("FakeApiServer without the gate ignores shardSelector, as a server without ShardedListAndWatch", async () => {
  using server = new FakeApiServer();
  seed(server, 10);
  const { status, body } = await get(server, q(LOWER));
  assert.equal(status, 200);
  assert.equal((body as ListBody).items.length, 10);
  assert.equal((body as ListBody).metadata.shardInfo, undefined);
});

Deno.test("FakeApiServer refuses a selector it cannot read with a 500, in kube-apiserver 1.37.2's words", async () => {
  using server = new FakeApiServer({ shardedListAndWatch: true });
  const cases: [string, string][] = [
    [
      "shardRange(object.metadata.uid, '0x0000000000000000', '0x1')",
      'invalid shard selector: hexEnd must be a 0x-prefixed 16-digit hex value, got "0x1" (did you mean "0x0000000000000001"?)',
    ],
    [
      "shardRange(object.metadata.uid, '0x0000000000000000', '0x0000000000000000')",
      "invalid shard selector: shard range start 0x0000000000000000 must be less than end 0x0000000000000000",
    ],
    [
      "shardRange(object.metadata.name, '0x0000000000000000', '0x8000000000000000')",
      'invalid shard selector: unsupported field path "object.metadata.name"; supported: object.metadata.uid, object.metadata.namespace',
    ],
  ];
  for (const [selector, message] of cases) {
    const { status, body } = await get(server, q(selector));
    assert.equal(status, 500, selector);
    assert.equal(body.message, message);
  }
  const other = await get(server, q("uid in (a, b)"));
  assert.equal(other.status, 500);
  assert.match(other.body.message, /^invalid shard selector: /);
});

Deno.test("FakeApiServer's sharded WATCH sends only the shard's events", async () => {
  using server = new FakeApiServer({ shardedListAndWatch: true });
  const rv = server.resourceVersion;
  const uids = seed(server, 30);
  const res = await server.handle(
    new Request(
      `${server.url}${q(LOWER)}&watch=1&resourceVersion=${rv}`,
    ),
  );
  assert.equal(res.status, 200);
  const w = new WatchReader(res);
  const expected = uids.filter(lower).length;
  const events = await w.take(expected);
  assert.ok(events.every((e) => lower(e.object.metadata.uid!)));
  assert.equal(summary(events).length, expected);
  assert.deepEqual(await w.available(), []);
  await w.cancel();
});
