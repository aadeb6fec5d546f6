// kube-apiserver 1.37 (WatchListCompression) gzips a watch with
// sendInitialEvents when the client accepts gzip, as one gzip member per
// flush; Deno's fetch ends the body at the end of the first member, so the
// watch looked closed by the server right after its first flush.
import assert from "node:assert/strict";
import { FetchClient } from "./fetch_client.ts";

async function gzip(text: string): Promise<Uint8Array> {
  return new Uint8Array(
    await new Response(
      new Blob([text]).stream().pipeThrough(new CompressionStream("gzip")),
    ).arrayBuffer(),
  );
}

Deno.test("a watch stream is asked for uncompressed, so a server's gzip member per flush cannot cut it short", async () => {
  const lines = [1, 2, 3].map((n) =>
    JSON.stringify({
      type: "ADDED",
      object: { metadata: { name: `cm-${n}` } },
    }) + "\n"
  );
  const members = await Promise.all(lines.map(gzip));
  const accepted: (string | null)[] = [];
  await using server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    (request) => {
      const encoding = request.headers.get("accept-encoding");
      accepted.push(encoding);
      const compressed = /gzip/.test(encoding ?? "");
      const chunks = compressed
        ? members
        : lines.map((l) => new TextEncoder().encode(l));
      let i = 0;
      return new Response(
        new ReadableStream<Uint8Array>({
          async pull(controller) {
            if (i === chunks.length) return controller.close();
            // One flush (and, gzipped, one member) per event.
            await new Promise((resolve) => setTimeout(resolve, 5));
            controller.enqueue(chunks[i++]);
          },
        }),
        {
          headers: {
            "content-type": "application/json",
            ...(compressed && { "content-encoding": "gzip" }),
          },
        },
      );
    },
  );
  using client = new FetchClient({
    server: `http://127.0.0.1:${server.addr.port}`,
  });
  const stream = await client.performRequest({
    method: "GET",
    path: "/api/v1/configmaps",
    querystring: new URLSearchParams({ watch: "1", sendInitialEvents: "true" }),
    expectStream: true,
  });
  assert.equal(await new Response(stream).text(), lines.join(""));
  assert.deepEqual(accepted, ["identity"]);
});
