import {
  type ChangeBatch,
  DebounceGroup,
  type FetchClient,
  type Gvr,
  type KubeObject,
  mergeChangeBatches,
  SingleWatcher,
  Watcher,
} from "../mod.ts";
import {
  CONFIG_SECRET,
  ENDPOINTSLICES,
  INGRESSES,
  OUR_CLASS,
  SECRETS,
  SERVICE_NAME_LABEL,
  SERVICES,
} from "./cluster.ts";
import type { Meter } from "../metrics/mod.ts";
import type { Printer } from "./output.ts";
import { SecretReporter } from "./secret_reporter.ts";
import { names, Tally } from "./tally.ts";

/** One bulk watcher of the demo and how to check it against the server. */
export interface Watched {
  name: string;
  label: string;
  gvr: Gvr;
  watcher: Watcher;
  tally: Tally;
  /** The objects on the server the watcher's store must hold. */
  selects(obj: KubeObject): boolean;
}

/** Everything the simulated run watches. */
export interface WatchSet {
  watched: Watched[];
  /** The one debounced callback the bulk watchers feed. */
  group: DebounceGroup<ChangeBatch>;
  secret: SingleWatcher;
  reporter: SecretReporter;
}

/**
 * Creates (without starting) the three bulk watchers (ingresses of our
 * class without managedFields, services, endpointslices indexed by
 * service), feeding one debounce group as a controller that renders one
 * configuration from all three would, and the SingleWatcher on the config
 * Secret.
 */
export function createWatchers(
  client: FetchClient,
  printer: Printer,
  meter?: Meter,
): WatchSet {
  const watched: Watched[] = [];
  // One call per burst across the three watchers, each batch under its
  // watcher's name: a "render" of everything that changed.
  const renders = new DebounceGroup<ChangeBatch>({
    interval: 1_000,
    merge: mergeChangeBatches,
    ...(meter === undefined ? {} : { meter }),
    onChange: (batches) => {
      const parts: string[] = [];
      for (const [name, batch] of batches) {
        const w = watched.find((w) => w.name === name)!;
        if (!w.tally.count(batch)) continue;
        parts.push(
          `${name} ${printer.stats(batch).trim()} ${
            printer.style("dim", names(batch, 2))
          }`,
        );
      }
      if (parts.length > 0) printer.line("render", parts.join(" · "));
    },
  });
  // Paging progress of the initial sync only: relists page too, but would
  // be noise.
  const progress = new Map<string, string>();
  const logger = printer.logger((resource, listed) => {
    const label = progress.get(resource);
    if (label) printer.line("sync", `${label.padEnd(22)} listing… ${listed}`);
  });
  const specs = [
    {
      name: "ingresses",
      label: `ingresses (${OUR_CLASS})`,
      gvr: INGRESSES,
      indexBy: ["metadata.namespace", "metadata.name"],
      ignoreFields: ["metadata.managedFields"],
      fieldSelector: `spec.ingressClassName=${OUR_CLASS}`,
      selects: (o: KubeObject) =>
        (o.spec as { ingressClassName?: string }).ingressClassName ===
          OUR_CLASS,
    },
    {
      name: "services",
      label: "services",
      gvr: SERVICES,
      indexBy: ["metadata.namespace", "metadata.name"],
    },
    {
      name: "endpointslices",
      label: "endpointslices",
      gvr: ENDPOINTSLICES,
      indexBy: [
        "metadata.namespace",
        `metadata.labels['${SERVICE_NAME_LABEL}']`,
      ],
    },
  ];
  for (const spec of specs) {
    const { resource, group } = spec.gvr;
    const logName = group ? `${resource}.${group}` : resource;
    progress.set(logName, spec.label);
    const tally = new Tally(spec.label, printer);
    const watcher = new Watcher(
      {
        name: spec.name,
        gvr: spec.gvr,
        indexBy: spec.indexBy,
        ignoreFields: spec.ignoreFields,
        fieldSelector: spec.fieldSelector,
        // Small pages, so that paging shows in the sync progress.
        pageSize: 10,
        group: renders.member(spec.name),
        onSyncComplete: (_store, count) => {
          progress.delete(logName);
          printer.line("sync", `${spec.label.padEnd(22)} synced: ${count}`);
        },
      },
      client,
      { logger, meter },
    );
    watched.push({
      name: spec.name,
      label: spec.label,
      gvr: spec.gvr,
      watcher,
      tally,
      selects: spec.selects ?? (() => true),
    });
  }
  const reporter = new SecretReporter(printer);
  const secret = new SingleWatcher(
    {
      gvr: SECRETS,
      ...CONFIG_SECRET,
      onSyncComplete: reporter.onSyncComplete,
      onChange: reporter.onChange,
    },
    client,
    { logger, meter },
  );

  return { watched, group: renders, secret, reporter };
}

/** Stops every watcher (each delivers what it has pending), then the group. */
export async function stopAll(
  watched: Watched[],
  secret: SingleWatcher | undefined,
  group: DebounceGroup<ChangeBatch> | undefined,
): Promise<void> {
  await Promise.all([
    ...watched.map((w) => w.watcher.stop()),
    secret?.stop(),
  ]);
  await group?.stop();
}
