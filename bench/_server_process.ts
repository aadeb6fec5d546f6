/**
 * Starts the bench server (`_server.ts`) in its own process and waits for
 * it to be ready; closing its stdin stops it.
 *
 * @module
 */

/** What the server says once ready. */
export interface BenchServerInfo {
  port: number;
  buildMs: number;
  listBytes: number;
  floodBytes: number;
  metadataBytesPerObject?: number;
}

/** A running bench server. */
export interface BenchServer {
  /** `http://127.0.0.1:PORT`. */
  base: string;
  info: BenchServerInfo;
  /** Stops the server and waits for it to exit. */
  stop(): Promise<void>;
}

/**
 * Starts `_server.ts <maxObjects> <floodObjects> <floodEvents>
 * [maxMetadataObjects]`.
 */
export async function startBenchServer(
  maxObjects: number,
  floodObjects: number,
  floodEvents: number,
  maxMetadataObjects = 0,
): Promise<BenchServer> {
  const server = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--no-lock",
      "--allow-net",
      "--allow-read",
      "--v8-flags=--max-old-space-size=4096",
      new URL("_server.ts", import.meta.url).pathname,
      String(maxObjects),
      String(floodObjects),
      String(floodEvents),
      String(maxMetadataObjects),
    ],
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = server.stdout.pipeThrough(new TextDecoderStream())
    .getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error("The bench server exited before it was ready");
    text += value;
  }
  reader.releaseLock();
  void server.stdout.cancel().catch(() => {});
  const info = JSON.parse(text.slice(0, text.indexOf("\n"))) as BenchServerInfo;
  return {
    base: `http://127.0.0.1:${info.port}`,
    info,
    stop: async () => {
      await server.stdin.close();
      await server.status;
    },
  };
}
