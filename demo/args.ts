/** Command line of `deno task demo`. */
export interface DemoArgs {
  help: boolean;
  /** Seconds to run; `undefined`: 25 simulated, until Ctrl-C live. */
  duration: number | undefined;
  /** Seed of the simulated churn. */
  seed: number;
  kubeconfig: string | undefined;
  context: string | undefined;
  inCluster: boolean;
  /** `true` for the default proxy address, or a URL. */
  proxy: boolean | string;
  resource: string | undefined;
  namespace: string | undefined;
  /** Replicas electing a leader over the simulated cluster (`undefined`: the watchers demo). */
  replicas: number | undefined;
  /** A Controller of Widgets on the simulated cluster instead of the watchers. */
  controller: boolean;
  /**
   * The replicas shard the keys (a ShardRing each, a sharded Controller)
   * instead of electing a leader; alone, three replicas.
   */
  shards: boolean;
  /**
   * Serve /healthz, /readyz and /metrics at this port (0: any free one);
   * with `replicas`, replica i (from 1) at this port + i − 1.
   */
  metricsPort: number | undefined;
  /** The address the endpoints bind (`undefined`: 127.0.0.1). */
  metricsHost: string | undefined;
}

const MAX_PORT = 65_535;

/** A command line that cannot be run; the message says why. */
export class DemoArgsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "DemoArgsError";
  }
}

export const USAGE = `Usage: deno task demo [options]

Without cluster options: runs an embedded simulated cluster (a FakeApiServer
on 127.0.0.1 with churn and injected faults), watches it through FetchClient
and checks at the end that every watcher's store matches the server.

Options:
  --duration <seconds>   How long to run (simulated default 25; live: until Ctrl-C)
  --seed <n>             Seed of the simulated churn (default 1)
  --replicas <n>         Run n replicas (2-9) with leader election instead: every
                         replica keeps its watchers warm, only the leader renders,
                         the leader is killed mid-run and a survivor takes over
                         (default duration 12 s)
  --shards               With --replicas n (default 3): the replicas shard the keys
                         instead: each runs a ShardRing on a Lease of its own and a
                         Controller of ConfigMaps given the ring as its shard; shows
                         which replica owns how many keys, kills one (no release)
                         and the hand-off: its keys reconciled by the others once
                         its Lease has expired, with the time it took (default
                         duration 12 s)
  --controller           Run a Controller instead: Widgets (a custom resource)
                         created, changed and deleted, each reconciled into a
                         ConfigMap it owns with its status written back; shows
                         reconciles, a retry after a failure, requeues, and the
                         controller's and its queue's metrics (default 12 s)
  --metrics-port <n>     Serve /healthz, /readyz and /metrics on port <n> (0: a free
                         port; the URL is printed), here, with --resource,
                         --controller (its queue's and reconcile metrics), or with
                         --replicas (and --shards): replica 1 on <n>, replica 2 on
                         <n>+1, and so on (0: a free port each), each with its own
                         metrics
  --metrics-host <addr>  The address --metrics-port binds (default 127.0.0.1;
                         0.0.0.0: every IPv4 interface, :: every interface)
  -h, --help             Show this help

Watch a real cluster instead (prints batches until Ctrl-C or --duration):
  --resource <r>         What to watch: group/version/resource (networking.k8s.io/v1/ingresses,
                         v1/pods) or resource.group (ingresses.networking.k8s.io, pods)
  --namespace <ns>       Only this namespace (default: all)
  --kubeconfig <path>    Use this kubeconfig file (YAML or JSON, read directly)
  --context <name>       Kubeconfig context to use
  --in-cluster           Use the pod's service account
  --proxy [url]          Use kubectl proxy (default http://127.0.0.1:8001)
  Without one of these three, the client is picked like kubectl does
  (KUBECONFIG, in-cluster, ~/.kube/config).

Examples:
  deno task demo
  deno task demo --duration 60
  deno task demo --replicas 3
  deno task demo --replicas 3 --shards
  deno task demo --controller --metrics-port 9090
  deno task demo --metrics-port 9090   (then curl http://127.0.0.1:9090/readyz?verbose)
  deno task demo --replicas 3 --metrics-port 9090   (replicas on 9090, 9091, 9092)
  deno task demo --resource ingresses.networking.k8s.io --kubeconfig ~/.kube/config
  kubectl proxy & deno task demo --proxy --resource v1/services --namespace default`;

/**
 * Parses the demo's flags (`--flag value` or `--flag=value`).
 *
 * @throws {DemoArgsError} For an unknown flag or a bad value.
 */
export function parseDemoArgs(argv: readonly string[]): DemoArgs {
  const args: DemoArgs = {
    help: false,
    duration: undefined,
    seed: 1,
    kubeconfig: undefined,
    context: undefined,
    inCluster: false,
    proxy: false,
    resource: undefined,
    namespace: undefined,
    replicas: undefined,
    controller: false,
    shards: false,
    metricsPort: undefined,
    metricsHost: undefined,
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const eq = arg.indexOf("=");
    const flag = arg.startsWith("--") && eq > 0 ? arg.slice(0, eq) : arg;
    const inline = flag === arg ? undefined : arg.slice(eq + 1);
    const value = (): string => {
      if (inline !== undefined) return inline;
      const next = argv[i + 1];
      if (next === undefined || next.startsWith("--")) {
        throw new DemoArgsError(`${flag} needs a value`);
      }
      i++;
      return next;
    };
    switch (flag) {
      case "-h":
      case "--help":
        args.help = true;
        break;
      case "--duration":
        args.duration = positiveNumber(flag, value());
        break;
      case "--seed":
        args.seed = Math.floor(positiveNumber(flag, value()));
        break;
      case "--kubeconfig":
        args.kubeconfig = value();
        break;
      case "--context":
        args.context = value();
        break;
      case "--in-cluster":
        args.inCluster = true;
        break;
      case "--proxy": {
        const next = argv[i + 1];
        if (inline !== undefined) args.proxy = inline;
        else if (next !== undefined && !next.startsWith("-")) {
          args.proxy = next;
          i++;
        } else args.proxy = true;
        break;
      }
      case "--resource":
        args.resource = value();
        break;
      case "--replicas": {
        const n = Number(value());
        if (!Number.isInteger(n) || n < 2 || n > 9) {
          throw new DemoArgsError(
            `--replicas must be a whole number from 2 to 9, got ${
              JSON.stringify(argv[i])
            }`,
          );
        }
        args.replicas = n;
        break;
      }
      case "--controller":
        args.controller = true;
        break;
      case "--shards":
        args.shards = true;
        break;
      case "--metrics-port": {
        const text = value();
        const port = Number(text);
        if (!/^\d+$/.test(text) || port > MAX_PORT) {
          throw new DemoArgsError(
            `--metrics-port must be a port number from 0 to 65535, got ${
              JSON.stringify(text)
            }`,
          );
        }
        args.metricsPort = port;
        break;
      }
      case "--metrics-host": {
        const host = value();
        if (host === "") throw new DemoArgsError(`${flag} needs a value`);
        args.metricsHost = host;
        break;
      }
      case "--namespace":
      case "-n":
        args.namespace = value();
        break;
      default:
        throw new DemoArgsError(`Unknown option ${JSON.stringify(arg)}`);
    }
  }
  const sources = [args.kubeconfig !== undefined, args.inCluster, args.proxy]
    .filter(Boolean).length;
  if (sources > 1) {
    throw new DemoArgsError(
      "Use only one of --kubeconfig, --in-cluster and --proxy",
    );
  }
  if (sources > 0 && args.resource === undefined) {
    throw new DemoArgsError("Watching a real cluster needs --resource");
  }
  if (args.replicas !== undefined && args.resource !== undefined) {
    throw new DemoArgsError(
      "--replicas runs on the simulated cluster; it does not go with --resource",
    );
  }
  if (args.controller && args.resource !== undefined) {
    throw new DemoArgsError(
      "--controller runs on the simulated cluster; it does not go with --resource",
    );
  }
  if (args.controller && args.replicas !== undefined) {
    throw new DemoArgsError("Use only one of --controller and --replicas");
  }
  if (args.shards && args.resource !== undefined) {
    throw new DemoArgsError(
      "--shards runs on the simulated cluster; it does not go with --resource",
    );
  }
  if (args.shards && args.controller) {
    throw new DemoArgsError("Use only one of --controller and --shards");
  }
  if (args.shards) args.replicas ??= 3;
  if (args.metricsHost !== undefined && args.metricsPort === undefined) {
    throw new DemoArgsError("--metrics-host goes with --metrics-port");
  }
  // Port 0 gives each replica a free port: only a fixed one can run out.
  if (args.metricsPort && args.replicas) {
    const last = args.metricsPort + args.replicas - 1;
    if (last > MAX_PORT) {
      throw new DemoArgsError(
        `--metrics-port ${args.metricsPort} with --replicas ${args.replicas} needs ports ${args.metricsPort} to ${last}; the highest is ${MAX_PORT}`,
      );
    }
  }
  if (args.namespace !== undefined && args.resource === undefined) {
    throw new DemoArgsError("--namespace goes with --resource");
  }
  return args;
}

function positiveNumber(flag: string, text: string): number {
  const n = Number(text);
  if (!Number.isFinite(n) || n <= 0) {
    throw new DemoArgsError(
      `${flag} must be a positive number, got ${JSON.stringify(text)}`,
    );
  }
  return n;
}
