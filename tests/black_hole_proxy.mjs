/**
 * A TCP proxy on 127.0.0.1 whose connections can be turned into black holes:
 * kept open, every byte read and dropped both ways, as a wedged peer or a
 * middlebox that swallows packets does. Connections accepted afterwards pass
 * again. Plain JavaScript on `node:net`, so the same proxy runs under Deno,
 * Node and Bun (the runtime smoke test copies it).
 */
import * as net from "node:net";

/**
 * Starts a proxy to `127.0.0.1:targetPort`.
 *
 * @param {number} targetPort
 * @returns {Promise<{
 *   port: number,
 *   open: () => number,
 *   accepted: () => number,
 *   swallowAll: () => number,
 *   close: () => Promise<void>,
 * }>}
 */
export async function startBlackHoleProxy(targetPort) {
  /** @type {Set<{ client: net.Socket, upstream: net.Socket }>} */
  const pairs = new Set();
  let accepted = 0;
  const server = net.createServer((client) => {
    accepted++;
    const upstream = net.connect({ host: "127.0.0.1", port: targetPort });
    const pair = { client, upstream };
    pairs.add(pair);
    client.pipe(upstream);
    upstream.pipe(client);
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on("error", end);
    upstream.on("error", end);
    client.on("close", end);
    upstream.on("close", end);
  });
  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve(undefined));
  });
  const address = server.address();
  if (address === null || typeof address === "string") {
    throw new Error("The proxy has no TCP address");
  }
  return {
    port: address.port,
    /** The connections open now. */
    open: () => pairs.size,
    /** The connections accepted so far. */
    accepted: () => accepted,
    /**
     * Every connection open now swallows what either side sends, and stays
     * open; returns how many. New connections pass.
     */
    swallowAll() {
      for (const { client, upstream } of pairs) {
        client.unpipe(upstream);
        upstream.unpipe(client);
        client.removeAllListeners("data");
        upstream.removeAllListeners("data");
        client.on("data", () => {});
        upstream.on("data", () => {});
        client.resume();
        upstream.resume();
      }
      return pairs.size;
    },
    async close() {
      const closed = new Promise((resolve) =>
        server.close(() => resolve(undefined))
      );
      for (const { client, upstream } of pairs) {
        client.destroy();
        upstream.destroy();
      }
      pairs.clear();
      await closed;
    },
  };
}
