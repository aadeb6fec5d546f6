/**
 * The LIST idle timeout is reset by arriving bytes: a body that trickles in
 * for longer than the timeout still syncs, one that stops is abandoned after
 * the timeout of silence. Driven by a fake API server and a fake clock.
 */
import assert from "node:assert/strict";
import type { RestClient } from "../client/rest_client.ts";
import { FetchClient } from "../client/fetch_client.ts";
import { FakeApiServer } from "../testing/fake_api_server.ts";
import { mockFetch } from "../testing/mock_fetch.ts";
import { FakeClock, waitFor } from "../testing/fake_clock.ts";
import { RecordingLogger } from "../testing/recording_logger.ts";
import { Watcher } from "../watcher/watcher.ts";
import { ListTimeoutError } from "./list_watch_types.ts";
import {
  BY_IDENTITY,
  configMap,
  CONFIGMAPS,
} from "../watcher/_bulk_harness_test.ts";

const IDLE_MS = 10_000;
/** A slice of the LIST body arrives this often. */
const EVERY_MS = 4_000;
const SLICES = 10;

/** What happened to the one paced LIST body. */
interface Pacing {
  slicesSent: number;
  cancelled: boolean;
}

/**
 * Serves the first LIST body of `client` in `SLICES` slices, one every
 * `EVERY_MS` on `clock`, or only `stopAfter` of them and then nothing until
 * the reader gives up. Later requests pass through untouched.
 */
function pacedClient(
  client: FetchClient,
  clock: FakeClock,
  stopAfter = SLICES,
): { client: RestClient; pacing: Pacing } {
  const pacing: Pacing = { slicesSent: 0, cancelled: false };
  let paced = false;
  const performRequest = async (
    opts: Parameters<RestClient["performRequest"]>[0],
  ) => {
    const answer = await client.performRequest(opts);
    const isList = opts.querystring?.get("watch") !== "1";
    if (!isList || paced || !(answer instanceof ReadableStream)) return answer;
    paced = true;
    const body = new Uint8Array(await new Response(answer).arrayBuffer());
    const size = Math.ceil(body.length / SLICES);
    let never: (() => void) | undefined;
    return new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (pacing.slicesSent === stopAfter) {
          // The connection stays open and says nothing more.
          await new Promise<void>((resolve) => never = resolve);
          return;
        }
        await new Promise<void>((resolve) =>
          clock.setTimeout(resolve, EVERY_MS)
        );
        const start = pacing.slicesSent * size;
        controller.enqueue(body.slice(start, start + size));
        if (++pacing.slicesSent === SLICES) controller.close();
      },
      cancel() {
        pacing.cancelled = true;
        never?.();
      },
    }, { highWaterMark: 0 });
  };
  return { client: { performRequest } as RestClient, pacing };
}

function setup(stopAfter?: number) {
  const clock = new FakeClock();
  const server = new FakeApiServer({ clock });
  const fetchMock = mockFetch(server);
  for (let i = 0; i < 50; i++) {
    server.create("configmaps", configMap("shop", `cm-${i}`));
  }
  const inner = new FetchClient({ server: server.url });
  const { client, pacing } = pacedClient(inner, clock, stopAfter);
  const logger = new RecordingLogger();
  const watcher = new Watcher(
    { gvr: CONFIGMAPS, indexBy: BY_IDENTITY, onChange: () => {} },
    client,
    { clock, logger, idleTimeoutMs: IDLE_MS, random: () => 0 },
  );
  const lists = () => server.requests.filter((r) => r.verb === "list").length;
  return {
    clock,
    server,
    watcher,
    pacing,
    logger,
    lists,
    async [Symbol.asyncDispose]() {
      await watcher.stop();
      await server.close();
      fetchMock[Symbol.dispose]();
    },
  };
}

Deno.test("Watcher syncs a LIST whose body trickles in for several times the idle timeout", async () => {
  await using t = setup();
  t.watcher.start();
  await waitFor(() => t.lists() === 1, { description: "the LIST request" });
  for (let i = 1; i <= SLICES; i++) {
    await t.clock.tick(EVERY_MS);
    await waitFor(() => t.pacing.slicesSent === i, {
      description: `slice ${i}`,
    });
  }
  // 40 s of body, 4 times the idle timeout, never 10 s of silence.
  assert.ok(SLICES * EVERY_MS >= 4 * IDLE_MS);
  assert.equal(await t.watcher.waitForSync(AbortSignal.timeout(5_000)), 50);
  assert.equal(t.lists(), 1, "the list was not requested again");
  assert.equal(t.pacing.cancelled, false);
  assert.equal(t.watcher.lastError(), undefined);
  assert.equal(t.logger.at("warn").length, 0, t.logger.text());
});

Deno.test("Watcher abandons a LIST body that stops mid-way after the idle timeout of silence, and lists again", async () => {
  await using t = setup(3);
  t.watcher.start();
  await waitFor(() => t.lists() === 1, { description: "the LIST request" });
  for (let i = 1; i <= 3; i++) {
    await t.clock.tick(EVERY_MS);
    await waitFor(() => t.pacing.slicesSent === i, {
      description: `slice ${i}`,
    });
  }
  // The last bytes came now; the silence is measured from here.
  await t.clock.tick(IDLE_MS - 1);
  assert.equal(t.pacing.cancelled, false, "not before the idle timeout");
  assert.equal(t.watcher.lastError(), undefined);
  await t.clock.tick(1);
  await waitFor(() => t.pacing.cancelled, { description: "the body dropped" });
  await waitFor(() => t.watcher.lastError() !== undefined, {
    description: "the failure recorded",
  });
  const failure = t.watcher.lastError()!;
  assert.ok(failure.error instanceof ListTimeoutError, String(failure.error));
  assert.match(failure.error.message, /no bytes for 10000 ms/);
  assert.equal(failure.time, 3 * EVERY_MS + IDLE_MS);
  assert.equal(t.watcher.isSynced(), false);
  // After the backoff, a fresh LIST (not paced) syncs.
  await t.clock.tick(800);
  assert.equal(await t.watcher.waitForSync(AbortSignal.timeout(5_000)), 50);
  assert.equal(t.lists(), 2);
});
