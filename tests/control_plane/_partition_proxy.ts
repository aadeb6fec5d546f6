// A TCP proxy on 127.0.0.1 whose traffic can be swallowed for good: after
// `partition()`, every connection through it, open or new, stays open while
// its bytes are read and dropped, so nothing reaches the server and nothing
// comes back. A process behind it is cut off as by a network partition: its
// requests hang until their own deadlines (unlike `LoopbackProxy.cut()`,
// which makes them fail at once, and unlike the black hole proxy, whose new
// connections pass again).

/** One client connection and the server connection it was given. */
interface Pair {
  client: Deno.Conn;
  upstream: Deno.Conn | undefined;
  /** Its bytes are dropped both ways from now on. */
  swallowed: boolean;
}

/** A proxy in front of a port; see the file's comment. */
export class PartitionProxy implements AsyncDisposable {
  readonly #listener: Deno.Listener;
  readonly #target: number;
  readonly #pairs = new Set<Pair>();
  readonly #tasks = new Set<Promise<void>>();
  readonly #accepting: Promise<void>;
  #partitioned = false;
  #closed = false;

  constructor(targetUrl: string) {
    this.#target = Number(new URL(targetUrl).port);
    this.#listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    this.#accepting = this.#accept();
  }

  /** The proxy's URL (https, as the target's certificate is for 127.0.0.1). */
  get url(): string {
    return `https://127.0.0.1:${(this.#listener.addr as Deno.NetAddr).port}`;
  }

  /**
   * Swallows every connection open now and every later one; returns how
   * many were open. The server's side of each is closed.
   */
  partition(): number {
    this.#partitioned = true;
    for (const pair of this.#pairs) {
      pair.swallowed = true;
      if (pair.upstream) closeQuietly(pair.upstream);
    }
    return this.#pairs.size;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    this.#closed = true;
    closeQuietly(this.#listener);
    await this.#accepting;
    for (const pair of this.#pairs) {
      closeQuietly(pair.client);
      if (pair.upstream) closeQuietly(pair.upstream);
    }
    while (this.#tasks.size > 0) await Promise.allSettled([...this.#tasks]);
  }

  async #accept(): Promise<void> {
    try {
      for await (const client of this.#listener) {
        if (this.#closed) {
          closeQuietly(client);
          continue;
        }
        const task = this.#serve(client);
        this.#tasks.add(task);
        void task.finally(() => this.#tasks.delete(task));
      }
    } catch {
      // The listener was closed.
    }
  }

  async #serve(client: Deno.Conn): Promise<void> {
    const pair: Pair = {
      client,
      upstream: undefined,
      swallowed: this.#partitioned,
    };
    this.#pairs.add(pair);
    if (!pair.swallowed) {
      try {
        pair.upstream = await Deno.connect({
          hostname: "127.0.0.1",
          port: this.#target,
        });
      } catch {
        this.#pairs.delete(pair);
        closeQuietly(client);
        return;
      }
      // Partitioned (or disposed) while connecting.
      if (pair.swallowed || this.#closed) closeQuietly(pair.upstream);
      if (this.#closed) closeQuietly(client);
    }
    await Promise.all([this.#toServer(pair), this.#toClient(pair)]);
    this.#pairs.delete(pair);
    closeQuietly(client);
    if (pair.upstream) closeQuietly(pair.upstream);
  }

  /**
   * Client to server, until either closes (dropped once swallowed, until
   * the client closes); then both are closed.
   */
  async #toServer(pair: Pair): Promise<void> {
    const buffer = new Uint8Array(64 * 1024);
    for (;;) {
      const n = await pair.client.read(buffer).catch(() => null);
      if (n === null) break;
      if (pair.swallowed || pair.upstream === undefined) continue;
      if (
        !await writeAll(pair.upstream, buffer.subarray(0, n)) &&
        !pair.swallowed
      ) break;
    }
    closeQuietly(pair.client);
    if (pair.upstream) closeQuietly(pair.upstream);
  }

  /**
   * Server to client, until the server closes; that closes the client too,
   * unless the pair is swallowed (the client then hears nothing more).
   */
  async #toClient(pair: Pair): Promise<void> {
    const upstream = pair.upstream;
    if (upstream === undefined) return;
    const buffer = new Uint8Array(64 * 1024);
    for (;;) {
      const n = await upstream.read(buffer).catch(() => null);
      if (n === null || pair.swallowed) break;
      if (!await writeAll(pair.client, buffer.subarray(0, n))) break;
    }
    if (!pair.swallowed) closeQuietly(pair.client);
  }
}

async function writeAll(conn: Deno.Conn, bytes: Uint8Array): Promise<boolean> {
  try {
    let written = 0;
    while (written < bytes.length) {
      written += await conn.write(bytes.subarray(written));
    }
    return true;
  } catch {
    return false;
  }
}

function closeQuietly(resource: { close(): void }): void {
  try {
    resource.close();
  } catch {
    // Closed already.
  }
}
