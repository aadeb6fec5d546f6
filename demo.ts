/**
 * `deno task demo`: the watchers at work on an embedded simulated cluster
 * (default), or on a real one with `--resource` and a client source;
 * `--replicas N` shows leader election instead (`--shards`: sharding across
 * the replicas), `--controller` a Controller reconciling a custom resource.
 * See `deno task demo --help`.
 *
 * @module
 */
import { MetricsRegistry } from "./metrics/mod.ts";
import { DemoArgsError, parseDemoArgs, USAGE } from "./demo/args.ts";
import { EndpointsError } from "./demo/endpoints.ts";
import { Printer } from "./demo/output.ts";
import { runLive } from "./demo/live.ts";
import { runReplicas } from "./demo/replicas.ts";
import { runShards } from "./demo/shards.ts";
import { runSimulated } from "./demo/simulated.ts";
import { runController } from "./demo/widget_controller.ts";

/** Where the demo writes, and what stops it. */
export interface DemoIo {
  /** Receives each output line (default: `console.log`). */
  write?: (line: string) => void;
  /** Colours (default: when writing to a terminal and `NO_COLOR` is unset). */
  color?: boolean;
  /** Ends the run early, as Ctrl-C does (default: SIGINT). */
  signal?: AbortSignal;
  /**
   * The registry the demo's watchers and client report to and `/metrics`
   * serves with `--metrics-port` (default: a fresh one). With `--replicas`
   * each replica has a registry of its own, as separate processes would.
   */
  metrics?: MetricsRegistry;
}

/**
 * Runs the demo with command line `argv`.
 *
 * @returns The exit code: 0 when all went well, 1 when the stores did not
 * match the server (or a live watch never synced, the controller did not
 * converge, or the endpoints could not be served), 2 for a bad command
 * line.
 */
export async function main(argv: string[], io: DemoIo = {}): Promise<number> {
  const write = io.write ?? ((line: string) => console.log(line));
  let args;
  try {
    args = parseDemoArgs(argv);
  } catch (error) {
    if (!(error instanceof DemoArgsError)) throw error;
    write(`error: ${error.message}\n\n${USAGE}`);
    return 2;
  }
  if (args.help) {
    write(USAGE);
    return 0;
  }
  const color = io.color ??
    (io.write === undefined && Deno.stdout.isTerminal() &&
      !Deno.env.get("NO_COLOR"));
  const printer = new Printer({ write, color });
  // The one source of the metrics the demo serves.
  const metrics = io.metrics ?? new MetricsRegistry();

  let signal = io.signal;
  let removeSigint = () => {};
  if (!signal) {
    const controller = new AbortController();
    signal = controller.signal;
    const onSigint = () => {
      // A second Ctrl-C does not wait for the clean shutdown.
      if (controller.signal.aborted) Deno.exit(130);
      controller.abort();
    };
    Deno.addSignalListener("SIGINT", onSigint);
    removeSigint = () => Deno.removeSignalListener("SIGINT", onSigint);
  }
  try {
    if (args.resource !== undefined) {
      return await runLive(args, printer, signal, metrics);
    }
    if (args.shards) return await runShards(args, printer, signal);
    if (args.replicas !== undefined) {
      return await runReplicas(args, printer, signal);
    }
    return args.controller
      ? await runController(args, printer, signal, metrics)
      : await runSimulated(args, printer, signal, metrics);
  } catch (error) {
    // The run has cleaned up after itself: only the reason is left to say.
    if (!(error instanceof EndpointsError)) throw error;
    printer.line("error", error.message);
    return 1;
  } finally {
    removeSigint();
  }
}

if (import.meta.main) {
  Deno.exitCode = await main(Deno.args);
}
