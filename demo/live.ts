import { FetchClient, type Gvr, Watcher } from "../mod.ts";
import { MetricsRegistry } from "../metrics/mod.ts";
import type { DemoArgs } from "./args.ts";
import { serveEndpoints } from "./endpoints.ts";
import type { Printer } from "./output.ts";
import { Tally } from "./tally.ts";
import { sleep } from "./wait.ts";

/**
 * Watches one resource of a real cluster and prints its batches until
 * Ctrl-C (or `--duration`). Returns the exit code: 1 when it never synced.
 */
export async function runLive(
  args: DemoArgs,
  printer: Printer,
  signal: AbortSignal,
  metrics: MetricsRegistry = new MetricsRegistry(),
): Promise<number> {
  let client: FetchClient;
  try {
    client = clientFor(args, metrics);
  } catch (error) {
    printer.plain(`error: ${messageOf(error)}`);
    return 1;
  }
  try {
    let gvr: Gvr;
    try {
      gvr = await resolveResource(client, args.resource!, signal);
    } catch (error) {
      printer.plain(`error: ${messageOf(error)}`);
      return 1;
    }
    const label = gvr.group ? `${gvr.resource}.${gvr.group}` : gvr.resource;
    printer.plain(printer.style(
      "bold",
      `k8s-watcher demo · ${label} (${
        gvr.group ? gvr.group + "/" : ""
      }${gvr.version}) in ${
        args.namespace ? `namespace ${args.namespace}` : "all namespaces"
      } · ${client.server} (${client.source})`,
    ));
    printer.plain(
      args.duration ? `running for ${args.duration} s` : "press Ctrl-C to stop",
    );
    printer.plain();

    const tally = new Tally(label, printer);
    const watcher = new Watcher(
      {
        gvr,
        namespace: args.namespace,
        indexBy: ["metadata.namespace", "metadata.name"],
        ignoreFields: ["metadata.managedFields"],
        debounceInterval: 1_000,
        onChange: tally.onChange,
        onSyncComplete: (_store, count) =>
          printer.line("sync", `${label} synced: ${count} objects`),
      },
      client,
      {
        logger: printer.logger((_r, listed) =>
          printer.line("sync", `${label} listing… ${listed} so far`)
        ),
        meter: metrics,
      },
    );
    await using _endpoints = serveEndpoints({
      host: args.metricsHost,
      port: args.metricsPort,
    }, {
      watchers: { [label]: watcher },
      metrics,
    }, printer);
    const done = watcher.start(signal);
    // A stopped watcher reports synced: false; remember whether it ever was.
    let synced = false;
    watcher.waitForSync().then(() => synced = true, () => {});

    const stop = new AbortController();
    const onAbort = () => stop.abort();
    signal.addEventListener("abort", onAbort, { once: true });
    const timer = args.duration
      ? setTimeout(onAbort, args.duration * 1000)
      : undefined;
    try {
      // Say so while the first list does not come, e.g. on a 403.
      while (!stop.signal.aborted && !watcher.isSynced()) {
        await sleep(5_000, stop.signal);
        if (!stop.signal.aborted && !watcher.isSynced()) {
          const last = watcher.lastError();
          printer.line(
            "warn",
            `still waiting for the initial list${
              last ? `; last error: ${messageOf(last.error)}` : ""
            }`,
          );
        }
      }
      await sleep(Infinity, stop.signal);
    } finally {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
    }
    await watcher.stop();
    await done;

    const h = watcher.health();
    printer.plain();
    printer.table(
      [
        "watcher",
        "store",
        "initial",
        "batches",
        "created",
        "modified",
        "deleted",
        "events",
        "relists",
        "reconnects",
      ],
      [[
        label,
        h.objects,
        tally.initial,
        tally.batches,
        tally.created,
        tally.modified,
        tally.deleted,
        h.events,
        h.relists,
        h.reconnects,
      ]],
    );
    if (!synced) {
      printer.plain(
        `\nnever synced${
          h.lastError ? `: ${messageOf(h.lastError.error)}` : ""
        }`,
      );
      return 1;
    }
    return 0;
  } finally {
    client.close();
  }
}

/** The client of the source the command line names, measured on `meter`. */
function clientFor(args: DemoArgs, meter: MetricsRegistry): FetchClient {
  if (args.kubeconfig !== undefined) {
    return FetchClient.fromKubeconfig(args.kubeconfig, {
      context: args.context,
      meter,
    });
  }
  if (args.inCluster) return FetchClient.inCluster({ meter });
  if (args.proxy !== false) {
    return FetchClient.kubectlProxy(
      args.proxy === true ? undefined : args.proxy,
      { meter },
    );
  }
  return FetchClient.fromEnv({ context: args.context, meter });
}

/**
 * `group/version/resource`, `version/resource` (core), `resource.group`
 * (preferred version from discovery) or `resource` (core v1).
 */
export async function resolveResource(
  client: FetchClient,
  text: string,
  signal: AbortSignal,
): Promise<Gvr> {
  const parts = text.split("/");
  if (parts.some((p) => p === "") || parts.length > 3) {
    throw new Error(
      `--resource ${
        JSON.stringify(text)
      } is not group/version/resource or resource.group`,
    );
  }
  if (parts.length === 3) {
    const group = parts[0] === "core" ? "" : parts[0];
    return { group, version: parts[1], resource: parts[2] };
  }
  if (parts.length === 2) {
    return { group: "", version: parts[0], resource: parts[1] };
  }
  const dot = text.indexOf(".");
  if (dot < 0) return { group: "", version: "v1", resource: text };
  const resource = text.slice(0, dot), group = text.slice(dot + 1);
  let discovery: unknown;
  try {
    discovery = await client.performRequest({
      method: "GET",
      path: `/apis/${group}`,
      expectJson: true,
      abortSignal: signal,
    });
  } catch (error) {
    throw new Error(
      `Could not look up the version of API group ${group} (${
        messageOf(error)
      }); give the resource as ${group}/<version>/${resource}`,
    );
  }
  const version = (discovery as { preferredVersion?: { version?: string } })
    ?.preferredVersion?.version;
  if (!version) {
    throw new Error(
      `API group ${group} reports no preferred version; give the resource as ${group}/<version>/${resource}`,
    );
  }
  return { group, version, resource };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
