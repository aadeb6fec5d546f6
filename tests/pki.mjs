// Test certificates, made with openssl when the tests run: shared by the
// Deno TLS tests and the runtime smoke test (plain JavaScript, so that
// Node and Bun run it too).
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";

/** The name the `named` server certificate is for (and nothing else). */
export const SERVER_NAME = "api.internal";
/** The common name of the client certificate. */
export const CLIENT_NAME = "exec-user";

/** True when openssl can be run. */
export function hasOpenssl() {
  try {
    execFileSync("openssl", ["version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

const EC = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1"];
const USAGE = "basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\n";

/**
 * Writes into `dir` a CA (ca.crt, ca.key), an unrelated CA (other-ca.crt),
 * server certificates for 127.0.0.1 (server.crt) and for SERVER_NAME only
 * (named.crt), and a client certificate for CLIENT_NAME (client.crt), all
 * with their keys, and returns them as PEM text.
 *
 * @param {string} dir
 */
export function makePki(dir) {
  const openssl = (...args) =>
    execFileSync("openssl", args, { cwd: dir, stdio: "pipe" });
  for (const name of ["ca", "other-ca"]) {
    openssl(
      "req",
      "-x509",
      ...EC,
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
  const issue = (name, subject, extensions) => {
    openssl(
      "req",
      ...EC,
      "-nodes",
      "-keyout",
      `${name}.key`,
      "-out",
      `${name}.csr`,
      "-subj",
      subject,
    );
    writeFileSync(`${dir}/${name}.ext`, extensions);
    openssl(
      "x509",
      "-req",
      "-in",
      `${name}.csr`,
      "-CA",
      "ca.crt",
      "-CAkey",
      "ca.key",
      "-CAcreateserial",
      "-out",
      `${name}.crt`,
      "-days",
      "2",
      "-extfile",
      `${name}.ext`,
    );
  };
  issue(
    "server",
    "/CN=127.0.0.1",
    `subjectAltName=IP:127.0.0.1\n${USAGE}extendedKeyUsage=serverAuth\n`,
  );
  issue(
    "named",
    `/CN=${SERVER_NAME}`,
    `subjectAltName=DNS:${SERVER_NAME}\n${USAGE}extendedKeyUsage=serverAuth\n`,
  );
  issue(
    "client",
    `/CN=${CLIENT_NAME}`,
    `${USAGE}extendedKeyUsage=clientAuth\n`,
  );
  const read = (name) => readFileSync(`${dir}/${name}`, "utf8");
  return {
    caCert: read("ca.crt"),
    otherCaCert: read("other-ca.crt"),
    serverCert: read("server.crt"),
    serverKey: read("server.key"),
    namedCert: read("named.crt"),
    namedKey: read("named.key"),
    clientCert: read("client.crt"),
    clientKey: read("client.key"),
  };
}
