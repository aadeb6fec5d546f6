/**
 * The programs some tests need (kubectl, openssl, etcd and kube-apiserver)
 * and what a test does without them: away from CI it is ignored, with a
 * warning naming what is missing and how to get it; under `CI=true` it
 * runs and fails with that message, so CI never skips it silently.
 *
 * ```ts ignore
 * Deno.test(needs(kubectlMissing, { name: "…", async fn() { … } }));
 * ```
 */
import {
  controlPlaneCacheDir,
  locateBinaries,
} from "../testing/control_plane/binaries.ts";
import { PROVISIONING_COMMAND } from "../testing/control_plane/errors.ts";

/** Whether this is a CI run (`CI=true`), where nothing may skip. */
export const IN_CI: boolean = Deno.env.get("CI") === "true";

function isFile(path: string): boolean {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
}

function onPath(command: string): string | undefined {
  for (const dir of (Deno.env.get("PATH") ?? "").split(":")) {
    if (dir && isFile(`${dir}/${command}`)) return `${dir}/${command}`;
  }
  return undefined;
}

/**
 * kubectl's absolute path: the one on PATH, else the control plane's
 * (`TEST_ASSET_KUBECTL`, `KUBEBUILDER_ASSETS`, the provisioning cache).
 */
export const kubectlPath: string | undefined = onPath("kubectl") ??
  [
    Deno.env.get("TEST_ASSET_KUBECTL"),
    Deno.env.get("KUBEBUILDER_ASSETS") &&
    `${Deno.env.get("KUBEBUILDER_ASSETS")}/kubectl`,
    `${controlPlaneCacheDir()}/kubectl`,
  ].find((path): path is string => !!path && isFile(path));

/** Why kubectl is missing, or undefined when it is there. */
export const kubectlMissing: string | undefined = kubectlPath
  ? undefined
  : `kubectl (not on PATH nor in ${controlPlaneCacheDir()}: install it or run \`${PROVISIONING_COMMAND}\`)`;

function runs(command: string, ...args: string[]): boolean {
  try {
    return new Deno.Command(command, { args, stdout: "null", stderr: "null" })
      .outputSync().success;
  } catch {
    return false;
  }
}

/** Why openssl is missing, or undefined when it runs. */
export const opensslMissing: string | undefined = runs("openssl", "version")
  ? undefined
  : "openssl (not on PATH: install it, e.g. apt-get install openssl)";

/** Why a control plane cannot start here, or undefined when it can. */
export const controlPlaneMissing: string | undefined = await (async () => {
  const { missing, searched } = await locateBinaries({});
  const reasons: string[] = [];
  if (missing.length > 0) {
    reasons.push(
      `${missing.join(", ")} (looked in ${
        searched.join("; ")
      }: run \`${PROVISIONING_COMMAND}\` or set KUBEBUILDER_ASSETS)`,
    );
  }
  if (opensslMissing) reasons.push(opensslMissing);
  return reasons.length > 0 ? reasons.join("; ") : undefined;
})();

const warned = new Set<string>();

/**
 * `definition` as is when nothing is missing; else ignored with a warning,
 * or, under `CI=true`, failing with the reason.
 */
export function needs(
  missing: string | undefined,
  definition: Deno.TestDefinition,
): Deno.TestDefinition {
  if (missing === undefined) return definition;
  if (!IN_CI) {
    if (!warned.has(missing)) {
      warned.add(missing);
      console.warn(`Ignoring the tests that need ${missing}`);
    }
    return { ...definition, ignore: true };
  }
  return {
    ...definition,
    fn() {
      throw new Error(
        `This test needs ${missing}; under CI=true it fails instead of being skipped`,
      );
    },
  };
}

/**
 * Whether a test that needs what `missing` names is ignored: only away
 * from CI, with a warning. Its first statement is then
 * {@linkcode requireAvailable}, which fails it under CI.
 */
export function ignoredWithout(missing: string | undefined): boolean {
  return needs(missing, { name: "", fn() {} }).ignore === true;
}

/** Throws naming what is missing (under CI, where the test was not ignored). */
export function requireAvailable(missing: string | undefined): void {
  if (missing !== undefined) {
    throw new Error(
      `This test needs ${missing}; under CI=true it fails instead of being skipped`,
    );
  }
}

const PARSER_SCRIPT = new URL("../tools/prometheus_parser.sh", import.meta.url);

/** The version `tools/prometheus_parser.sh` pins. */
const prometheusClientVersion = /^PROMETHEUS_CLIENT_VERSION=(\S+)$/m.exec(
  Deno.readTextFileSync(PARSER_SCRIPT),
)?.[1];

/**
 * The python of the environment `tools/prometheus_parser.sh` provisions,
 * with the Prometheus project's text parser (prometheus_client).
 */
export const prometheusParserPython: string | undefined = (() => {
  const tools = Deno.env.get("K8S_WATCHER_TOOLS_DIR") ||
    `${
      Deno.env.get("XDG_CACHE_HOME") || `${Deno.env.get("HOME") ?? ""}/.cache`
    }/k8s-watcher-tools`;
  const python =
    `${tools}/prometheus-client-${prometheusClientVersion}/bin/python`;
  return isFile(python) ? python : undefined;
})();

/** Why the Prometheus text parser is missing, or undefined when it is there. */
export const prometheusParserMissing: string | undefined =
  prometheusParserPython
    ? undefined
    : "the Prometheus text parser (prometheus_client: run `bash tools/prometheus_parser.sh`)";
