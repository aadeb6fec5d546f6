/**
 * What reading a LIST body costs, by how it is read: one control plane
 * (`testing/control_plane/`) holding `--objects` ConfigMaps, listed in pages
 * of `--limit` over TLS by a fresh process per run, each page read one of
 * these ways and then `JSON.parse`d (nothing kept):
 *
 * - `text`: `response.text()`, the runtime's own read (no progress seen, so
 *   no idle timeout could be kept; the bound).
 * - `default`: a default reader, each chunk copied into a `ByteBuffer` (the
 *   library before `chunkReader`).
 * - `chunk`: `chunkReader`, each chunk copied into a `ByteBuffer` (the
 *   library now).
 *
 * Run: `deno run -A bench/body_read_ab.ts [--rounds 6] [--objects 10000]
 * [--limit 500]`. The ways run interleaved, the order reversed every other
 * round; prints each run, then the medians.
 *
 * @module
 */

import { median } from "./_format.ts";
import { REAL_SERVER_NAMESPACE, startRealServer } from "./_real_server.ts";
import { ByteBuffer, chunkReader } from "../_internal/_json.ts";
import { takeOption } from "./_args.ts";

const WAYS = ["text", "default", "chunk"] as const;
type Way = typeof WAYS[number];

const args = [...Deno.args];

if (args[0] === "--worker") {
  const [, server, caFile, token, way, limit] = args;
  console.log(
    JSON.stringify(await listOnce(server, caFile, token, way as Way, limit)),
  );
  Deno.exit(0);
}

/** Lists every page, read `way`; the time and the items seen. */
async function listOnce(
  server: string,
  caFile: string,
  token: string,
  way: Way,
  limit: string,
): Promise<{ ms: number; items: number }> {
  const client = Deno.createHttpClient({
    caCerts: [await Deno.readTextFile(caFile)],
  });
  const headers = {
    authorization: `Bearer ${token}`,
    accept: "application/json",
  };
  const path =
    `${server}/api/v1/namespaces/${REAL_SERVER_NAMESPACE}/configmaps`;
  let items = 0;
  let next: string | undefined;
  const started = performance.now();
  do {
    const query = new URLSearchParams({ limit });
    if (next) query.set("continue", next);
    const response = await fetch(`${path}?${query}`, { headers, client });
    if (!response.ok) throw new Error(`list: ${response.status}`);
    const page = JSON.parse(await read(response, way)) as {
      items: unknown[];
      metadata: { continue?: string };
    };
    items += page.items.length;
    next = page.metadata.continue || undefined;
  } while (next);
  const ms = performance.now() - started;
  client.close();
  return { ms, items };
}

async function read(response: Response, way: Way): Promise<string> {
  if (way === "text") return await response.text();
  const reader = way === "chunk"
    ? chunkReader(response.body!)
    : response.body!.getReader();
  const received = new ByteBuffer();
  while (true) {
    const { done, value } = await reader.read();
    if (done) break;
    received.push(value);
  }
  return new TextDecoder().decode(received.bytes());
}

const rounds = Number(takeOption(args, "--rounds", "6"));
const objects = Number(takeOption(args, "--objects", "10000"));
const limit = takeOption(args, "--limit", "500");
const server = await startRealServer(objects, (l) => console.error(l));
if ("notRun" in server) throw new Error(server.notRun);
const { plane } = server;
const times = new Map<Way, number[]>(WAYS.map((w) => [w, []]));
try {
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 === 0 ? [...WAYS] : [...WAYS].reverse();
    for (const way of order) {
      const { stdout, code, stderr } = await new Deno.Command(
        Deno.execPath(),
        {
          args: [
            "run",
            "-A",
            new URL(import.meta.url).pathname,
            "--worker",
            plane.url,
            plane.caFile,
            plane.token(),
            way,
            limit,
          ],
          stdout: "piped",
          stderr: "piped",
        },
      ).output();
      if (code !== 0) throw new Error(new TextDecoder().decode(stderr));
      const run = JSON.parse(new TextDecoder().decode(stdout)) as {
        ms: number;
        items: number;
      };
      if (run.items !== objects) {
        throw new Error(`${way}: listed ${run.items} of ${objects}`);
      }
      times.get(way)!.push(run.ms);
      console.error(`round ${r + 1} ${way}: ${run.ms.toFixed(0)} ms`);
    }
  }
} finally {
  await plane.stop();
}
console.log(
  `\n${
    objects.toLocaleString("en")
  } ConfigMaps in pages of ${limit}, ${rounds} interleaved rounds (load ${
    Deno.loadavg().map((l) => l.toFixed(1)).join(" ")
  }):`,
);
console.log("| read | median ms | min–max |");
console.log("| --- | ---: | ---: |");
for (const [way, ms] of times) {
  console.log(
    `| ${way} | ${median(ms)!.toFixed(0)} | ${Math.min(...ms).toFixed(0)}–${
      Math.max(...ms).toFixed(0)
    } |`,
  );
}
