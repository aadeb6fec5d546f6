import { KubeConfigError } from "./errors.ts";
import {
  configFromKubeconfig,
  parseJsonKubeconfig,
  type ResolvedConfig,
} from "./_kubeconfig.ts";

/** How to run kubectl. */
export interface KubectlRunner {
  /** The command (default `kubectl`, looked up on PATH). */
  command: string;
  /** The complete environment to give it; inherited when absent. */
  env?: Record<string, string>;
}

/**
 * The current context of the kubeconfig kubectl sees (or of `kubeconfig`),
 * via `kubectl config view --raw --minify --flatten -o json`. `--flatten`
 * embeds certificate files; other relative paths (a `tokenFile`) resolve
 * against `baseDir`.
 */
export function kubectlConfigView(
  runner: KubectlRunner,
  options: { baseDir: string; kubeconfig?: string; context?: string },
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
  if (options.kubeconfig) args.push("--kubeconfig", options.kubeconfig);
  if (options.context) args.push("--context", options.context);
  let output: Deno.CommandOutput;
  try {
    output = new Deno.Command(runner.command, {
      args,
      env: runner.env,
      clearEnv: runner.env !== undefined,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).outputSync();
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      throw new KubeConfigError(`${runner.command} was not found on PATH`);
    }
    throw new KubeConfigError(
      `Cannot run ${runner.command}: ${
        error instanceof Error ? error.message : String(error)
      }`,
    );
  }
  const origin = `from \`${runner.command} config view\`${
    options.kubeconfig ? ` of ${options.kubeconfig}` : ""
  }`;
  if (!output.success) {
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
  return configFromKubeconfig(doc, {
    origin,
    baseDir: options.baseDir,
    context: options.context,
  });
}
