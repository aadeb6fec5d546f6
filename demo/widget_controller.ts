import { FetchClient, type Logger } from "../mod.ts";
import { NotFoundError, ResourceClient } from "../client/mod.ts";
import {
  Controller,
  controllerOf,
  type ReconcileContext,
  type ReconcileResult,
  setControllerReference,
} from "../controller/mod.ts";
import { MetricsRegistry } from "../metrics/mod.ts";
import { FakeApiServer } from "../testing/mod.ts";
import type { DemoArgs } from "./args.ts";
import { Rng } from "./cluster.ts";
import { serveEndpoints } from "./endpoints.ts";
import type { Printer } from "./output.ts";
import { sleep, waitUntil } from "./wait.ts";
import {
  CLOCK,
  configMapData,
  configMapName,
  CONFIGMAPS,
  FIELD_MANAGER,
  MANAGED_BY,
  otherSize,
  registerWidgets,
  resize,
  seedWidgets,
  type Widget,
  widgetProblems,
  WIDGETS,
  widgetStep,
  type WidgetWrite,
} from "./widgets.ts";

const DEFAULT_SECONDS = 12;
/** The Widget whose first reconcile throws, so its retry shows. */
const FLAKY = "lab/flaky";
const NAME = "widgets";

/**
 * `--controller`: a `Controller` of Widgets (a custom resource) on the
 * embedded cluster. Each Widget is reconciled into a ConfigMap it owns
 * (server-side apply, a controller reference) and a status written back.
 * The churn creates, changes and deletes Widgets; `lab/flaky`'s first
 * reconcile throws; later the API server answers one ConfigMap write with a
 * 500 and a ConfigMap is deleted by hand; `shop/clock` asks to be looked at
 * again every 2 s. Returns 0 when the cluster converged: every Widget has
 * its ConfigMap, in step and owned by it, and no ConfigMap lacks its Widget.
 */
export async function runController(
  args: DemoArgs,
  printer: Printer,
  signal: AbortSignal,
  metrics: MetricsRegistry = new MetricsRegistry(),
): Promise<number> {
  const durationMs = (args.duration ?? DEFAULT_SECONDS) * 1000;
  const rng = new Rng(args.seed);
  const server = new FakeApiServer({ initialResourceVersion: 1000 });
  registerWidgets(server);
  const seeded = seedWidgets(server, rng);
  const listener = await server.listen();
  const client = new FetchClient({ server: listener.url }, {
    source: "embedded simulated cluster",
    meter: metrics,
  });
  const widgets = new ResourceClient<Widget>({ client, gvr: WIDGETS });
  const configMaps = new ResourceClient({ client, gvr: CONFIGMAPS });
  const counts = { reconciles: 0, failures: 0, requeues: 0 };
  let failedOnce = false;
  let startedAt = 0;

  const reconcile = async (
    key: string,
    context: ReconcileContext<Widget>,
  ): Promise<void | ReconcileResult> => {
    counts.reconciles++;
    const { namespace, name } = context;
    const attempt = context.attempt > 1
      ? printer.style("yellow", ` · attempt ${context.attempt}`)
      : "";
    const childName = configMapName(name);
    const [child] = context.store("configmaps").get(namespace!, childName);
    const widget = context.get();
    if (widget === undefined) {
      // The fake API server, like envtest, runs no garbage collector: the
      // reconcile of a deleted Widget deletes its ConfigMap itself.
      if (child === undefined || controllerOf(child)?.kind !== "Widget") {
        printer.line("reconcile", `${key} gone; no ConfigMap left${attempt}`);
        return;
      }
      try {
        await configMaps.delete(childName, {
          namespace,
          preconditions: { uid: child.metadata.uid },
          signal: context.signal,
        });
      } catch (error) {
        if (!(error instanceof NotFoundError)) throw error;
      }
      printer.line(
        "reconcile",
        `${key} gone → ConfigMap ${namespace}/${childName} deleted${attempt}`,
      );
      return;
    }
    if (key === FLAKY && !failedOnce) {
      failedOnce = true;
      throw new Error("simulated failure in the reconcile (once)");
    }
    const data = configMapData(widget.spec);
    const desired = setControllerReference(
      {
        apiVersion: "example.com/v1",
        kind: "Widget",
        metadata: widget.metadata,
      },
      {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: {
          namespace,
          name: childName,
          labels: { [MANAGED_BY]: FIELD_MANAGER },
        },
        data,
      },
    );
    const written = await configMaps.apply(desired, {
      fieldManager: FIELD_MANAGER,
      force: true,
      namespace,
      signal: context.signal,
    });
    context.wrote(written, "configmaps");
    const change = child === undefined
      ? "created"
      : child.metadata.resourceVersion === written.metadata.resourceVersion
      ? "unchanged"
      : "updated";
    const generation = widget.metadata.generation;
    let status = "";
    if (
      widget.status?.observedGeneration !== generation ||
      widget.status?.configMap !== childName
    ) {
      const updated = await widgets.applyStatus({
        apiVersion: "example.com/v1",
        kind: "Widget",
        metadata: { namespace, name },
        status: { configMap: childName, observedGeneration: generation },
      }, {
        fieldManager: FIELD_MANAGER,
        force: true,
        namespace,
        signal: context.signal,
      });
      context.wrote(updated);
      status = `, status.observedGeneration ${generation}`;
    }
    const refresh = widget.spec?.refreshSeconds;
    const requeue = refresh === undefined
      ? ""
      : printer.style("cyan", ` · requeueAfter ${refresh * 1000} ms`);
    // Its own write, seen by the owns watch, brings the key back once:
    // level-triggered, that look finds nothing to do.
    const result = `ConfigMap ${namespace}/${childName} ${change}`;
    printer.line(
      "reconcile",
      `${key} → ${
        change === "unchanged" ? printer.style("dim", result) : result
      } (size ${data.size}, ${data.color})${status}${attempt}${requeue}`,
    );
    if (refresh === undefined) return;
    counts.requeues++;
    return { requeueAfter: refresh * 1000 };
  };

  const controller = new Controller<Widget>(
    {
      name: NAME,
      for: { gvr: WIDGETS, kind: "Widget" },
      owns: [{
        gvr: CONFIGMAPS,
        name: "configmaps",
        labelSelector: `${MANAGED_BY}=${FIELD_MANAGER}`,
      }],
      // Status writes bump no generation: they need no reconcile.
      generationChangedOnly: true,
      reconcile,
    },
    client,
    {
      logger: controllerLogger(printer, {
        failed: () => counts.failures++,
        synced: (keys) =>
          printer.line(
            "ready",
            `controller synced in ${
              Math.round(printer.elapsedMs - startedAt)
            } ms: ${keys} widgets queued, ${controller.health().workers.max} workers`,
          ),
      }),
      meter: metrics,
    },
  );

  let churn: ReturnType<typeof setInterval> | undefined;
  let running: Promise<void> | undefined;
  try {
    printer.plain(printer.style(
      "bold",
      `k8s-watcher demo · controller · simulated cluster at ${listener.url} · ${
        durationMs / 1000
      } s · seed ${args.seed}`,
    ));
    printer.plain(
      `Controller "${NAME}": for widgets.example.com (seeded ${seeded}), owns ConfigMaps (label ${MANAGED_BY}=${FIELD_MANAGER}) · each Widget → a ConfigMap it controls (server-side apply) and its status · ${CLOCK.namespace}/${CLOCK.name} requeues itself every 2 s · ${FLAKY}'s first reconcile throws`,
    );
    printer.plain();
    await using _endpoints = serveEndpoints(
      {
        host: args.metricsHost,
        port: args.metricsPort,
      },
      { controllers: { [NAME]: controller }, metrics },
      printer,
    );

    startedAt = printer.elapsedMs;
    running = controller.start();
    const synced = await waitUntil(
      () => controller.health().synced,
      15_000,
      signal,
    );
    if (!synced) {
      printer.line(
        "error",
        signal.aborted
          ? "interrupted before the initial sync"
          : "the controller did not sync within 15 s; giving up",
      );
      return 1;
    }

    const show = (write: WidgetWrite) =>
      printer.line(
        "widget",
        `${
          printer.style(
            write.sign === "+"
              ? "green"
              : write.sign === "-"
              ? "red"
              : "yellow",
            write.sign,
          )
        } ${write.key} ${printer.style("dim", write.what)}`,
      );
    let step = 0;
    churn = setInterval(() => show(widgetStep(server, rng, step++)), 600);

    const at = (fraction: number) =>
      sleep(startedAt + durationMs * fraction - printer.elapsedMs, signal);
    await at(0.35);
    if (!signal.aborted) {
      // The next ConfigMap write fails with a 500; a Widget change makes one.
      const all = server.list(WIDGETS) as Widget[];
      const target = all.find((w) => w.metadata.name !== CLOCK.name) ??
        all[0];
      server.addReactor({
        verb: "patch",
        resource: CONFIGMAPS,
        times: 1,
        react: () =>
          new Response(
            JSON.stringify({
              kind: "Status",
              apiVersion: "v1",
              status: "Failure",
              reason: "InternalError",
              message: "injected by the demo",
              code: 500,
            }),
            { status: 500, headers: { "content-type": "application/json" } },
          ),
      });
      printer.line(
        "fault",
        "the API server answers the next ConfigMap write with a 500",
      );
      if (target !== undefined) {
        show(resize(server, target, otherSize(target, 1)));
      }
    }
    await at(0.6);
    if (!signal.aborted) {
      const victim = server.list(CONFIGMAPS, "lab")
        .find((c) => c.metadata.labels?.[MANAGED_BY] === FIELD_MANAGER);
      if (victim !== undefined) {
        server.delete(CONFIGMAPS, "lab", victim.metadata.name!);
        printer.line(
          "fault",
          `ConfigMap lab/${victim.metadata.name} deleted by hand: its Widget is reconciled again`,
        );
      }
    }
    await at(1);
    clearInterval(churn);
    printer.line(
      "stop",
      `${
        signal.aborted ? "interrupted; " : ""
      }churn stopped; waiting for the controller to converge`,
    );
    const converged = await waitUntil(
      () => widgetProblems(server).length === 0 && idle(controller),
      10_000,
      new AbortController().signal,
    );
    await controller.stop();
    await running;
    return report(server, metrics, counts, {
      converged,
      interrupted: signal.aborted,
    }, printer);
  } finally {
    if (churn !== undefined) clearInterval(churn);
    await controller.stop();
    await running;
    client.close();
    await listener.close();
    await server.close();
  }
}

/** Nothing queued, nothing running, nothing held for a write. */
function idle(controller: Controller<Widget>): boolean {
  const { workers, queue } = controller.health();
  return workers.active === 0 && queue.processing === 0 &&
    queue.heldForWrites === 0;
}

/**
 * The controller's logger: its sync and each failed reconcile (a `retry`
 * line) told to `on`; other warnings and errors printed as the watchers'
 * are.
 */
function controllerLogger(
  printer: Printer,
  on: { failed(): void; synced(keys: number): void },
): Logger {
  const base = printer.logger();
  return {
    ...base,
    info: (message, fields) => {
      if (message.startsWith("Controller synced")) {
        on.synced(Number(fields?.keys));
      }
    },
    error: (message, fields) => {
      if (message.startsWith("Reconcile failed")) {
        on.failed();
        const error = fields?.error;
        printer.line(
          "retry",
          `${fields?.key} attempt ${fields?.attempt} failed: ${
            error instanceof Error ? error.message : String(error)
          }; retried after its backoff`,
        );
        return;
      }
      base.error(message, fields);
    },
  };
}

/** The final check and the metrics; returns the exit code. */
function report(
  server: FakeApiServer,
  metrics: MetricsRegistry,
  counts: { reconciles: number; failures: number; requeues: number },
  end: { converged: boolean; interrupted: boolean },
  printer: Printer,
): number {
  const text = metrics.render();
  const sample = (name: string, labels: string) =>
    Number(
      new RegExp(`^${name}\\{${labels}\\} (\\S+)$`, "m").exec(text)?.[1] ?? 0,
    );
  printer.plain();
  printer.table(
    ["metric", "value"],
    [
      ...["success", "error", "requeue_after"].map((result) => [
        `controller_runtime_reconcile_total{result="${result}"}`,
        sample(
          "controller_runtime_reconcile_total",
          `controller="${NAME}",result="${result}"`,
        ),
      ]),
      [
        "controller_runtime_reconcile_errors_total",
        sample(
          "controller_runtime_reconcile_errors_total",
          `controller="${NAME}"`,
        ),
      ],
      [
        "workqueue_adds_total",
        sample("workqueue_adds_total", `name="${NAME}"`),
      ],
      [
        "workqueue_retries_total",
        sample("workqueue_retries_total", `name="${NAME}"`),
      ],
    ],
  );
  const widgets = server.list(WIDGETS).length;
  const children = server.list(CONFIGMAPS)
    .filter((c) => c.metadata.labels?.[MANAGED_BY] === FIELD_MANAGER).length;
  const problems = widgetProblems(server);
  // An interrupted run may end before the faults: it checks the cluster only.
  if (!end.interrupted && counts.failures === 0) {
    problems.push("no reconcile failed and was retried");
  }
  if (!end.interrupted && counts.requeues === 0) {
    problems.push("no reconcile asked for a requeue");
  }
  if (!end.converged && problems.length === 0) {
    problems.push("the controller was still busy");
  }
  printer.plain();
  if (problems.length > 0) {
    for (const p of problems) printer.line("error", p);
    return 1;
  }
  printer.line(
    "verify",
    `converged: ${widgets} widgets, ${children} ConfigMaps; every widget has its ConfigMap (owned, in step, status observed its generation), no ConfigMap without a widget · ${counts.reconciles} reconciles, ${counts.failures} retried after a failure, ${counts.requeues} requeues`,
  );
  printer.plain(printer.style("green", "all good"));
  return 0;
}
