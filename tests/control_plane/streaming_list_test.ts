// The streamed initial list (`initialList: "stream"`) against a real
// kube-apiserver: sendInitialEvents on the first list and on a relist
// after 410 only, never on a resume (a watch re-opened after the server's
// timeout, a bookmark or a cut connection). kube-rs once re-sent every
// object at each reconnect because its resumes kept the parameter
// (kube-rs#1844); here every watch, the initial stream included, is cut
// short to two seconds so that a few seconds hold many resumes. The same against the FakeApiServer:
// watcher/initial_stream_test.ts.
import assert from "node:assert/strict";
import { FetchClient } from "../../client/fetch_client.ts";
import type { RestClient } from "../../client/rest_client.ts";
import { Watcher } from "../../watcher/watcher.ts";
import { RecordingLogger } from "../../testing/recording_logger.ts";
import {
  assertConverged,
  CONFIGMAPS,
  create,
  createNamespace,
  eventually,
  inParallel,
  LoopbackProxy,
  planeTest,
  remove,
  sharedControlPlane,
  TapClient,
} from "./_harness.ts";

const plane = sharedControlPlane();
const OBJECTS = 40;

async function seed(namespace: string): Promise<void> {
  const p = await plane();
  using admin = p.client();
  await createNamespace(admin, namespace);
  await inParallel(
    Array.from({ length: OBJECTS }, (_, i) => i),
    8,
    (i) =>
      create(admin, CONFIGMAPS, namespace, { metadata: { name: `cm-${i}` } }),
  );
}

function streamingRequests(tap: TapClient): number {
  return tap.watches().filter((w) => w.query.get("sendInitialEvents") !== null)
    .length;
}

planeTest(
  "a streamed initial list is not streamed again by resumes: past many watch timeouts, bookmarks and a cut connection, one sendInitialEvents and one ADDED per object",
  async () => {
    const namespace = "stream-resume";
    await seed(namespace);
    const p = await plane();
    using admin = p.client();
    await using proxy = new LoopbackProxy(p.url);
    using viaProxy = new FetchClient({
      server: proxy.url,
      token: p.token(),
      caData: p.caPem,
    });
    const tap = new TapClient(viaProxy);
    // Watches end after 2 s on the server's side, as a 290 s one would.
    tap.before = (opts) => {
      const query = opts.querystring as URLSearchParams;
      if (query.get("watch") === "1") query.set("timeoutSeconds", "2");
    };
    const logger = new RecordingLogger();
    const watcher = new Watcher(
      {
        gvr: CONFIGMAPS,
        namespace,
        indexBy: ["metadata.namespace", "metadata.name"],
        initialList: "stream",
        onChange: () => {},
      },
      tap,
      { logger, random: () => 0 },
    );
    watcher.start();
    try {
      assert.equal(await watcher.waitForSync(), OBJECTS);
      await eventually(
        () => tap.watches().length >= 5,
        () => `${tap.watches().length} watches`,
      );
      proxy.cut();
      await eventually(
        () => tap.requests.some((r) => r.status === undefined),
        "a watch that failed while cut",
      );
      proxy.restore();
      const beforeChange = tap.watches().length;
      await create(admin, CONFIGMAPS, namespace, {
        metadata: { name: "late" },
      });
      await remove(admin, CONFIGMAPS, namespace, "cm-0");
      await eventually(
        () => tap.watches().length >= beforeChange + 2,
        () => `${tap.watches().length} watches`,
      );
      await assertConverged(watcher.store, admin, CONFIGMAPS, {
        namespaces: [namespace],
      });

      assert.equal(streamingRequests(tap), 1);
      const [first, ...resumes] = tap.watches();
      assert.equal(first.query.get("sendInitialEvents"), "true");
      for (const r of resumes) {
        assert.equal(r.query.get("sendInitialEvents"), null);
        assert.equal(r.query.get("resourceVersionMatch"), null);
        assert.ok(r.query.get("resourceVersion"));
      }
      assert.deepEqual(tap.lists(), []);
      // Every seeded object once, and the late one: nothing re-sent.
      assert.equal(
        tap.events.filter((e) => e.type === "ADDED").length,
        OBJECTS + 1,
      );
      assert.equal(
        tap.events.filter((e) =>
          e.annotations?.["k8s.io/initial-events-end"] === "true"
        ).length,
        1,
      );
      assert.equal(watcher.health().relists, 0);
    } finally {
      await watcher.stop();
    }
  },
);

/**
 * Passes a watch's lines on, holding back the initial-events-end bookmark
 * until `release()`; counts the lines passed before it.
 */
class BookmarkHold implements RestClient {
  passed = 0;
  held = false;
  readonly #inner: RestClient;
  readonly #released = Promise.withResolvers<void>();

  constructor(inner: RestClient) {
    this.#inner = inner;
  }

  get defaultNamespace(): string | undefined {
    return this.#inner.defaultNamespace;
  }

  release(): void {
    this.#released.resolve();
  }

  // deno-lint-ignore no-explicit-any
  async performRequest(opts: any): Promise<any> {
    const answer = await this.#inner.performRequest(opts);
    if (
      !(answer instanceof ReadableStream) || !opts.querystring?.has("watch")
    ) {
      return answer;
    }
    const decoder = new TextDecoder();
    const encoder = new TextEncoder();
    let partial = "";
    return (answer as ReadableStream<Uint8Array>).pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform: async (chunk, out) => {
          const lines = (partial + decoder.decode(chunk, { stream: true }))
            .split("\n");
          partial = lines.pop()!;
          for (const line of lines) {
            if (line.includes("k8s.io/initial-events-end")) {
              this.held = true;
              await this.#released.promise;
            } else {
              this.passed++;
            }
            out.enqueue(encoder.encode(line + "\n"));
          }
        },
      }),
    );
  }
}

planeTest(
  "a streamed initial list is synced at the initial-events-end bookmark, not before, and not by a LIST",
  async () => {
    const namespace = "stream-bookmark";
    await seed(namespace);
    const p = await plane();
    using admin = p.client();
    const tap = new TapClient(admin);
    const hold = new BookmarkHold(tap);
    const watcher = new Watcher(
      {
        gvr: CONFIGMAPS,
        namespace,
        indexBy: ["metadata.namespace", "metadata.name"],
        initialList: "stream",
        onChange: () => {},
      },
      hold,
      { logger: new RecordingLogger(), random: () => 0 },
    );
    let synced = false;
    watcher.start();
    const sync = watcher.waitForSync().then((n) => {
      synced = true;
      return n;
    });
    try {
      await eventually(() => hold.held, "the end bookmark");
      // Every object has been read; a moment more, and still not synced.
      assert.equal(hold.passed, OBJECTS);
      await new Promise((resolve) => setTimeout(resolve, 500));
      assert.equal(synced, false);
      assert.equal(watcher.health().synced, false);
      hold.release();
      assert.equal(await sync, OBJECTS);
      assert.deepEqual(tap.lists(), []);
      assert.equal(tap.watches().length, 1);
      await assertConverged(watcher.store, admin, CONFIGMAPS, {
        namespaces: [namespace],
      });
    } finally {
      hold.release();
      await watcher.stop();
    }
  },
);
