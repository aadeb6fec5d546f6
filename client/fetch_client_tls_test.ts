import assert from "node:assert/strict";
import { ApiConnectionError } from "./errors.ts";
import { FetchClient } from "./fetch_client.ts";

interface Pki {
  caCert: string;
  serverCert: string;
  serverKey: string;
  otherCaCert: string;
}

function hasOpenssl(): boolean {
  try {
    return new Deno.Command("openssl", {
      args: ["version"],
      stdout: "null",
      stderr: "null",
    }).outputSync().success;
  } catch {
    return false;
  }
}

async function openssl(dir: string, ...args: string[]): Promise<void> {
  const out = await new Deno.Command("openssl", {
    args,
    cwd: dir,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) {
    throw new Error(
      `openssl ${args[0]} failed: ${new TextDecoder().decode(out.stderr)}`,
    );
  }
}

/** A CA, a server certificate for 127.0.0.1 signed by it, and an unrelated CA. */
async function makePki(dir: string): Promise<Pki> {
  const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1"];
  for (const name of ["ca", "other-ca"]) {
    await openssl(
      dir,
      "req",
      "-x509",
      ...ec,
      "-nodes",
      "-keyout",
      `${name}.key`,
      "-out",
      `${name}.crt`,
      "-days",
      "2",
      "-subj",
      `/CN=${name}`,
      "-addext",
      "basicConstraints=critical,CA:TRUE",
      "-addext",
      "keyUsage=critical,keyCertSign,cRLSign",
    );
  }
  await openssl(
    dir,
    "req",
    ...ec,
    "-nodes",
    "-keyout",
    "server.key",
    "-out",
    "server.csr",
    "-subj",
    "/CN=127.0.0.1",
  );
  await Deno.writeTextFile(
    `${dir}/server.ext`,
    "subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\n" +
      "keyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n",
  );
  await openssl(
    dir,
    "x509",
    "-req",
    "-in",
    "server.csr",
    "-CA",
    "ca.crt",
    "-CAkey",
    "ca.key",
    "-CAcreateserial",
    "-out",
    "server.crt",
    "-days",
    "2",
    "-extfile",
    "server.ext",
  );
  const read = (name: string) => Deno.readTextFile(`${dir}/${name}`);
  return {
    caCert: await read("ca.crt"),
    serverCert: await read("server.crt"),
    serverKey: await read("server.key"),
    otherCaCert: await read("other-ca.crt"),
  };
}

const opensslAvailable = hasOpenssl();
if (!opensslAvailable) {
  console.warn(
    "Skipping the FetchClient TLS test: openssl is not on PATH to make certificates",
  );
}

Deno.test({
  name: "FetchClient verifies the server against the configured CA",
  ignore: !opensslAvailable,
  async fn(t) {
    const dir = await Deno.makeTempDir({ prefix: "k8s-watcher-tls-" });
    try {
      const pki = await makePki(dir);
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
