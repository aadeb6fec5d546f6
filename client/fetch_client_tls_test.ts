import assert from "node:assert/strict";
import { ApiConnectionError } from "./errors.ts";
import { FetchClient } from "./fetch_client.ts";
import type { FetchClientConfig } from "./fetch_client_config.ts";
import { CLIENT_NAME, makePki, SERVER_NAME } from "../tests/pki.mjs";

type Pki = ReturnType<typeof makePki>;

import {
  ignoredWithout,
  opensslMissing,
  requireAvailable,
} from "../tests/requirements.ts";

Deno.test({
  name: "FetchClient verifies the server against the configured CA",
  ignore: ignoredWithout(opensslMissing),
  async fn(t) {
    requireAvailable(opensslMissing);
    const dir = await Deno.makeTempDir({ prefix: "k8s-watcher-tls-" });
    try {
      const pki = makePki(dir);
      await using server = Deno.serve({
        hostname: "127.0.0.1",
        port: 0,
        cert: pki.serverCert,
        key: pki.serverKey,
        onListen() {},
      }, (req) =>
        Response.json({
          kind: "APIVersions",
          auth: req.headers.get("authorization"),
        }));
      const url = `https://127.0.0.1:${server.addr.port}`;
      const get = (client: FetchClient) =>
        client.performRequest({
          method: "GET",
          path: "/api",
          expectJson: true,
        });

      await t.step("with the CA as PEM", async () => {
        using client = new FetchClient({
          server: url,
          caData: pki.caCert,
          token: "t0k",
        });
        assert.deepEqual(await get(client), {
          kind: "APIVersions",
          auth: "Bearer t0k",
        });
      });
      await t.step("with the CA as base64 PEM", async () => {
        using client = new FetchClient({
          server: url,
          caData: btoa(pki.caCert),
        });
        assert.deepEqual(await get(client), {
          kind: "APIVersions",
          auth: null,
        });
      });
      await t.step("fails without the CA", async () => {
        using client = new FetchClient({ server: url, token: "t0k" });
        const error = await get(client).then(() => undefined, (e) => e);
        assert.ok(error instanceof ApiConnectionError, String(error));
        assert.match(error.message, /system roots \(set caData\)/);
        assert.ok(!error.message.includes("t0k"));
      });
      await t.step("fails with another CA", async () => {
        using client = new FetchClient({
          server: url,
          caData: pki.otherCaCert,
        });
        const error = await get(client).then(() => undefined, (e) => e);
        assert.ok(error instanceof ApiConnectionError, String(error));
        assert.match(
          error.message,
          /does not verify against the configured CA/,
        );
      });
      await t.step(
        "insecure-skip-tls-verify accepts the certificate for this client only",
        async () => {
          using client = new FetchClient({
            server: url,
            caData: pki.otherCaCert,
            insecureSkipTlsVerify: true,
            token: "t0k",
          });
          assert.deepEqual(await get(client), {
            kind: "APIVersions",
            auth: "Bearer t0k",
          });
          using strict = new FetchClient({ server: url });
          await assert.rejects(get(strict), ApiConnectionError);
        },
      );
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

/** Makes the PKI in a temporary directory for `fn`, then removes it. */
async function withPki(fn: (pki: Pki, dir: string) => Promise<void>) {
  const dir = await Deno.makeTempDir({ prefix: "k8s-watcher-tls-" });
  try {
    await fn(makePki(dir), dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** An HTTPS server with `cert` answering the Authorization header it got. */
function httpsServer(cert: string, key: string) {
  return Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    cert,
    key,
    onListen() {},
  }, (req) => Response.json({ auth: req.headers.get("authorization") }));
}

/**
 * An HTTP CONNECT proxy on 127.0.0.1 that records each request line and
 * then relays bytes both ways.
 */
function connectProxy() {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const requests: string[] = [];
  const conns = new Set<Deno.Conn>();
  const tunnels: Promise<unknown>[] = [];
  const tunnel = async (client: Deno.Conn) => {
    conns.add(client);
    const decoder = new TextDecoder();
    const buffer = new Uint8Array(4096);
    let head = "";
    while (!head.includes("\r\n\r\n")) {
      const n = await client.read(buffer);
      if (n === null) return;
      head += decoder.decode(buffer.subarray(0, n));
    }
    const requestLine = head.split("\r\n")[0];
    requests.push(requestLine);
    const [, authority] = requestLine.split(" ");
    const cut = authority.lastIndexOf(":");
    const upstream = await Deno.connect({
      hostname: authority.slice(0, cut),
      port: Number(authority.slice(cut + 1)),
    });
    conns.add(upstream);
    await client.write(
      new TextEncoder().encode("HTTP/1.1 200 Connection Established\r\n\r\n"),
    );
    await Promise.allSettled([
      client.readable.pipeTo(upstream.writable),
      upstream.readable.pipeTo(client.writable),
    ]);
  };
  const accepting = (async () => {
    for await (const conn of listener) tunnels.push(tunnel(conn));
  })();
  return {
    url: `http://127.0.0.1:${listener.addr.port}`,
    requests,
    async [Symbol.asyncDispose]() {
      listener.close();
      await accepting.catch(() => {});
      for (const conn of conns) {
        try {
          conn.close();
        } catch {
          // Already closed by its pipe.
        }
      }
      await Promise.allSettled(tunnels);
    },
  };
}

function getApi(client: FetchClient): Promise<unknown> {
  return client.performRequest({
    method: "GET",
    path: "/api",
    expectJson: true,
  });
}

Deno.test({
  name: "FetchClient verifies the server against tls-server-name",
  ignore: ignoredWithout(opensslMissing),
  async fn() {
    requireAvailable(opensslMissing);
    await withPki(async (pki) => {
      await using server = httpsServer(pki.namedCert, pki.namedKey);
      const url = `https://127.0.0.1:${server.addr.port}`;
      using named = new FetchClient({
        server: url,
        caData: pki.caCert,
        tlsServerName: SERVER_NAME,
        token: "t0k",
      });
      assert.deepEqual(await getApi(named), { auth: "Bearer t0k" });
      using unnamed = new FetchClient({ server: url, caData: pki.caCert });
      const error = await getApi(unnamed).then(() => undefined, (e) => e);
      assert.ok(error instanceof ApiConnectionError, String(error));
      assert.match(error.message, /does not verify against the configured CA/);
      using wrongName = new FetchClient({
        server: url,
        caData: pki.caCert,
        tlsServerName: "other.internal",
      });
      const wrong = await getApi(wrongName).then(() => undefined, (e) => e);
      assert.ok(wrong instanceof ApiConnectionError, String(wrong));
      assert.match(wrong.message, /configured CA for other\.internal/);
    });
  },
});

Deno.test({
  name: "FetchClient tunnels through an HTTP CONNECT proxy-url",
  ignore: ignoredWithout(opensslMissing),
  async fn(t) {
    requireAvailable(opensslMissing);
    await withPki(async (pki) => {
      await using server = httpsServer(pki.serverCert, pki.serverKey);
      await using named = httpsServer(pki.namedCert, pki.namedKey);
      const cases: [string, FetchClientConfig][] = [
        ["with the CA (Deno's own client)", {
          server: `https://127.0.0.1:${server.addr.port}`,
          caData: pki.caCert,
        }],
        ["with a TLS server name (node:https)", {
          server: `https://127.0.0.1:${named.addr.port}`,
          caData: pki.caCert,
          tlsServerName: SERVER_NAME,
        }],
      ];
      for (const [name, config] of cases) {
        await t.step(name, async () => {
          await using proxy = connectProxy();
          using client = new FetchClient({
            ...config,
            proxyUrl: proxy.url,
            token: "via-proxy",
          });
          assert.deepEqual(await getApi(client), { auth: "Bearer via-proxy" });
          assert.deepEqual(proxy.requests, [
            `CONNECT ${new URL(config.server).host} HTTP/1.1`,
          ]);
        });
      }
      await t.step("refuses a proxy scheme it cannot use", () => {
        assert.throws(
          () =>
            new FetchClient({
              server: `https://127.0.0.1:${named.addr.port}`,
              tlsServerName: SERVER_NAME,
              proxyUrl: "socks5://127.0.0.1:1080",
            }),
          /proxy URL scheme socks5: is not supported here; use http:\/\//,
        );
      });
    });
  },
});

/** A server that requires a client certificate signed by `ca` and names it. */
async function mutualTlsServer(pki: Pki) {
  const https = await import("node:https");
  const server = https.createServer({
    cert: pki.serverCert,
    key: pki.serverKey,
    ca: pki.caCert,
    requestCert: true,
    rejectUnauthorized: true,
  }, (req, res) => {
    const peer = (req.socket as import("node:tls").TLSSocket)
      .getPeerCertificate();
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify({ cn: peer?.subject?.CN ?? null }));
  });
  await new Promise<void>((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve())
  );
  const { port } = server.address() as { port: number };
  return {
    url: `https://127.0.0.1:${port}`,
    async [Symbol.asyncDispose]() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

Deno.test({
  name:
    "FetchClient presents a client certificate, static or from an exec plugin",
  ignore: ignoredWithout(opensslMissing),
  async fn() {
    requireAvailable(opensslMissing);
    await withPki(async (pki, dir) => {
      await using server = await mutualTlsServer(pki);
      using fixed = new FetchClient({
        server: server.url,
        caData: pki.caCert,
        certData: pki.clientCert,
        keyData: pki.clientKey,
      });
      assert.deepEqual(await getApi(fixed), { cn: CLIENT_NAME });

      const credential = {
        apiVersion: "client.authentication.k8s.io/v1",
        kind: "ExecCredential",
        status: {
          clientCertificateData: pki.clientCert,
          clientKeyData: pki.clientKey,
        },
      };
      await Deno.writeTextFile(
        `${dir}/credential.json`,
        JSON.stringify(credential),
      );
      await Deno.writeTextFile(
        `${dir}/plugin`,
        `#!/bin/sh\nexec cat "${dir}/credential.json"\n`,
      );
      await Deno.chmod(`${dir}/plugin`, 0o755);
      using exec = new FetchClient({
        server: server.url,
        caData: pki.caCert,
        exec: {
          apiVersion: "client.authentication.k8s.io/v1",
          command: `${dir}/plugin`,
        },
      }, { env: { PATH: "/usr/bin:/bin" } });
      assert.deepEqual(await getApi(exec), { cn: CLIENT_NAME });
      using none = new FetchClient({ server: server.url, caData: pki.caCert });
      await assert.rejects(getApi(none), ApiConnectionError);
    });
  },
});
