import { KubeConfigError } from "./errors.ts";
import {
  configFromKubeconfig,
  emptyKubeconfig,
  mergeKubeconfig,
  parseJsonKubeconfig,
  type ResolvedConfig,
} from "./_kubeconfig.ts";
import { allEnv, CommandNotFoundError, runSync } from "./_runtime.ts";

/** How to run kubectl. */
export interface KubectlRunner {
  /** The command (default `kubectl`, looked up on PATH). */
  command: string;
  /** The complete environment to give it; inherited when absent. */
  env?: Record<string, string | undefined>;
}

/**
 * The current context of the kubeconfig kubectl sees, via
 * `kubectl config view --raw --minify --flatten -o json`. `--flatten`
 * embeds certificate files; other relative paths (a `tokenFile`, an exec
 * command) resolve against `baseDir`.
 */
export function kubectlConfigView(
  runner: KubectlRunner,
  options: { baseDir: string; context?: string },
): ResolvedConfig {
  const args = [
    "config",
    "view",
    "--raw",
    "--minify",
    "--flatten",
    "-o",
    "json",
  ];
  if (options.context) args.push("--context", options.context);
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(runner.env ?? allEnv())) {
    if (value !== undefined) env[name] = value;
  }
  let output;
  try {
    output = runSync(runner.command, { args, env });
  } catch (error) {
    if (error instanceof CommandNotFoundError) {
      throw new KubeConfigError(`${runner.command} was not found on PATH`);
    }
    throw new KubeConfigError(
      `Cannot run ${runner.command}: ${
        error instanceof Error ? error.message : String(error)
      }`,
    );
  }
  const origin = `from \`${runner.command} config view\``;
  if (output.code !== 0) {
    const stderr = new TextDecoder().decode(output.stderr).trim();
    const firstLine = stderr.split("\n", 1)[0].slice(0, 300);
    throw new KubeConfigError(
      `${runner.command} config view failed with exit code ${output.code}${
        firstLine ? `: ${firstLine}` : ""
      }`,
    );
  }
  const text = new TextDecoder().decode(output.stdout);
  const doc = parseJsonKubeconfig(text, origin);
  if (doc === undefined) {
    throw new KubeConfigError(`Kubeconfig ${origin} is not JSON`);
  }
  const kubeconfig = emptyKubeconfig(origin);
  mergeKubeconfig(kubeconfig, doc, { origin, baseDir: options.baseDir });
  return configFromKubeconfig(kubeconfig, options.context);
}
