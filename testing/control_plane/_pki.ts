import { ControlPlaneError } from "./errors.ts";
import {
  isNotFound,
  readTextFile,
  type RunOutput,
  runToEnd,
  writeTextFile,
} from "./_runtime.ts";

/** The files of a control plane's certificates and keys. */
export interface Pki {
  /** The CA certificate, PEM. */
  caPem: string;
  caFile: string;
  /** kube-apiserver's serving certificate and key. */
  certFile: string;
  keyFile: string;
  /** The service-account token signing key and its public key. */
  serviceAccountKeyFile: string;
  serviceAccountPublicKeyFile: string;
}

const EC_KEY = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1"];

/** The names the serving certificate is valid for, as kubeadm gives them. */
const SERVING_NAMES = [
  "IP:127.0.0.1",
  "DNS:localhost",
  "DNS:kubernetes",
  "DNS:kubernetes.default",
  "DNS:kubernetes.default.svc",
  "DNS:kubernetes.default.svc.cluster.local",
];

/**
 * Makes, with openssl, a CA (valid for two days), a serving certificate
 * for 127.0.0.1 signed by it, and a service-account signing key, in `dir`.
 * Elliptic-curve keys (P-256): quick to make, and every client and Go's
 * TLS accept them.
 */
export async function makePki(dir: string, openssl: string): Promise<Pki> {
  const run = (...args: string[]) => runOpenssl(openssl, dir, args);
  await run(
    "req",
    "-x509",
    ...EC_KEY,
    "-nodes",
    "-keyout",
    "ca.key",
    "-out",
    "ca.crt",
    "-days",
    "2",
    "-subj",
    "/CN=k8s-watcher-control-plane-ca",
    "-addext",
    "basicConstraints=critical,CA:TRUE",
    "-addext",
    "keyUsage=critical,keyCertSign,cRLSign",
  );
  await run(
    "req",
    "-new",
    ...EC_KEY,
    "-nodes",
    "-keyout",
    "apiserver.key",
    "-out",
    "apiserver.csr",
    "-subj",
    "/CN=kube-apiserver",
  );
  await writeTextFile(
    `${dir}/apiserver.ext`,
    [
      "basicConstraints=CA:FALSE",
      "keyUsage=critical,digitalSignature",
      "extendedKeyUsage=serverAuth",
      `subjectAltName=${SERVING_NAMES.join(",")}`,
      "",
    ].join("\n"),
  );
  await run(
    "x509",
    "-req",
    "-in",
    "apiserver.csr",
    "-CA",
    "ca.crt",
    "-CAkey",
    "ca.key",
    "-set_serial",
    `0x${randomHex(16)}`,
    "-days",
    "2",
    "-extfile",
    "apiserver.ext",
    "-out",
    "apiserver.crt",
  );
  await run(
    "genpkey",
    "-algorithm",
    "EC",
    "-pkeyopt",
    "ec_paramgen_curve:P-256",
    "-out",
    "service-account.key",
  );
  await run(
    "pkey",
    "-in",
    "service-account.key",
    "-pubout",
    "-out",
    "service-account.pub",
  );
  return {
    caPem: await readTextFile(`${dir}/ca.crt`),
    caFile: `${dir}/ca.crt`,
    certFile: `${dir}/apiserver.crt`,
    keyFile: `${dir}/apiserver.key`,
    serviceAccountKeyFile: `${dir}/service-account.key`,
    serviceAccountPublicKeyFile: `${dir}/service-account.pub`,
  };
}

async function runOpenssl(
  openssl: string,
  cwd: string,
  args: string[],
): Promise<void> {
  let output: RunOutput;
  try {
    output = await runToEnd(openssl, { args, cwd });
  } catch (error) {
    if (isNotFound(error)) {
      throw new ControlPlaneError(
        "openssl",
        `openssl was not found (looked for "${openssl}"): the control plane makes its CA and serving certificate with it; install openssl or pass its path as the openssl option`,
        [],
      );
    }
    throw error;
  }
  if (output.code !== 0) {
    throw new ControlPlaneError(
      "openssl",
      `openssl ${args[0]} exited with code ${output.code}`,
      lastLines(output.stderr + output.stdout, 30),
    );
  }
}

/** `n` random bytes as hex digits. */
export function randomHex(n: number): string {
  return Array.from(
    crypto.getRandomValues(new Uint8Array(n)),
    (b) => b.toString(16).padStart(2, "0"),
  ).join("");
}

/** The last `n` non-empty lines of `text`. */
export function lastLines(text: string, n: number): string[] {
  const lines = text.split("\n").filter((line) => line.trim() !== "");
  return lines.slice(Math.max(0, lines.length - n));
}
