// The example controller the real-server controller tests run: a `Widget`
// custom resource (example.com/v1, namespaced, with a status subresource)
// reconciled into a ConfigMap it owns, and its status written back.
//
// No garbage collector runs on this control plane (nor on envtest's): that
// is kube-controller-manager's job, and only etcd and kube-apiserver run
// here. An owner reference alone never deletes anything: a ConfigMap owned
// by a deleted Widget stays, its reference dangling. So this controller
// does not lean on one: the reconcile of an absent Widget deletes the
// ConfigMap it made itself (found by name, and only while it still names
// that Widget as its controller). On a cluster with a garbage collector
// both would delete it; the reconcile's delete then finds it gone (404),
// which is success. Objects owned by a Widget that the controller did not
// make stay orphaned here.
import type { RestClient } from "../../client/rest_client.ts";
import { ResourceClient } from "../../client/resource_client.ts";
import { AlreadyExistsError, NotFoundError } from "../../client/api_error.ts";
import { Controller } from "../../controller/controller.ts";
import type {
  Leadership,
  ReconcileContext,
} from "../../controller/controller_config.ts";
import {
  type Condition,
  controllerOf,
  findCondition,
  setCondition,
  setControllerReference,
} from "../../controller/object_helpers.ts";
import { silentLogger } from "../../logger.ts";
import type { Gvr, KubeObject, Logger, ReadonlyFields } from "../../types.ts";
import { CONFIGMAPS, eventually, listAll } from "./_harness.ts";

export const WIDGETS: Gvr = {
  group: "example.com",
  version: "v1",
  resource: "widgets",
};
const CRDS: Gvr = {
  group: "apiextensions.k8s.io",
  version: "v1",
  resource: "customresourcedefinitions",
};
/** The field manager of every write the controller makes. */
export const FIELD_MANAGER = "widget-controller";
/** The label on every ConfigMap the controller makes (and watches). */
export const MANAGED_BY = "app.kubernetes.io/managed-by";
const MANAGED_SELECTOR = `${MANAGED_BY}=${FIELD_MANAGER}`;

export interface Widget extends KubeObject {
  spec?: { color?: string; size?: number };
  status?: { observedGeneration?: number; conditions?: Condition[] };
}

/** The name of the ConfigMap a Widget gets. */
export function childName(widget: string): string {
  return `${widget}-config`;
}

/** What a Widget's ConfigMap holds. */
export function desiredData(
  widget: ReadonlyFields<Widget>,
): Record<string, string> {
  return {
    color: widget.spec?.color ?? "",
    size: String(widget.spec?.size ?? 0),
  };
}

const CONDITION = {
  type: "Ready",
  status: "True",
  reason: "ConfigMapApplied",
} as const;

const CRD = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "widgets.example.com" },
  spec: {
    group: "example.com",
    names: {
      plural: "widgets",
      singular: "widget",
      kind: "Widget",
      listKind: "WidgetList",
    },
    scope: "Namespaced",
    versions: [{
      name: "v1",
      served: true,
      storage: true,
      subresources: { status: {} },
      schema: {
        openAPIV3Schema: {
          type: "object",
          properties: {
            spec: {
              type: "object",
              properties: {
                color: { type: "string" },
                size: { type: "integer" },
              },
            },
            status: {
              type: "object",
              properties: {
                observedGeneration: { type: "integer", format: "int64" },
                conditions: {
                  type: "array",
                  "x-kubernetes-list-type": "map",
                  "x-kubernetes-list-map-keys": ["type"],
                  items: {
                    type: "object",
                    required: [
                      "type",
                      "status",
                      "lastTransitionTime",
                      "reason",
                      "message",
                    ],
                    properties: {
                      type: { type: "string" },
                      status: {
                        type: "string",
                        enum: ["True", "False", "Unknown"],
                      },
                      observedGeneration: { type: "integer", format: "int64" },
                      lastTransitionTime: {
                        type: "string",
                        format: "date-time",
                      },
                      reason: { type: "string" },
                      message: { type: "string" },
                    },
                  },
                },
              },
            },
          },
        },
      },
    }],
  },
};

/**
 * Creates the Widget CRD through the API (once; a second call finds it)
 * and waits until Widgets are served.
 */
export async function installWidgetCrd(client: RestClient): Promise<void> {
  const crds = new ResourceClient({ client, gvr: CRDS });
  try {
    await crds.create(CRD);
  } catch (error) {
    if (!(error instanceof AlreadyExistsError)) throw error;
  }
  await eventually(async () => {
    const crd = await crds.get(CRD.metadata.name) as KubeObject & {
      status?: { conditions?: Condition[] };
    };
    return findCondition(crd.status?.conditions, "Established")?.status ===
      "True";
  }, "the Widget CRD never became Established");
  // Established comes a moment before the handler serves it.
  await eventually(
    () => listAll(client, WIDGETS).then(() => true, () => false),
    "Widgets are not served",
  );
}

/** One reconcile, as it ran on one replica. */
export interface ReconcileRun {
  replica: string;
  key: string;
  /** The Widget's resourceVersion as the reconcile read it; undefined: absent. */
  saw: string | undefined;
  /** Its uid and generation, when present. */
  uid: string | undefined;
  generation: number | undefined;
  /** `performance.now()` at its start and its end. */
  start: number;
  end?: number;
  /** How it ended: done, cut short by its signal, or failed. */
  result?: "ok" | "aborted" | "error";
  /** The writes it made: `configmap`, `status`, `delete`. */
  wrote: string[];
}

/** What {@linkcode widgetController} needs. */
export interface WidgetControllerOptions {
  /** Names the replica in the runs. */
  replica: string;
  client: RestClient;
  namespace: string;
  /** Every reconcile is appended here when it starts. */
  runs: ReconcileRun[];
  leader?: Leadership;
  /** Called at the start of each reconcile, after the Widget was read. */
  onReconcile?: (run: ReconcileRun) => void;
  /** The controller's `drainOnStop` [true]. */
  drainOnStop?: boolean;
  logger?: Logger;
}

/**
 * The Widget controller: each Widget gets a ConfigMap (`<name>-config`) it
 * controls, applied server-side, and a status with `observedGeneration`
 * and a `Ready` condition; an absent Widget's ConfigMap is deleted. Each
 * write is handed to `context.wrote()`, so the key's next reconcile reads
 * a cache that holds it.
 */
export function widgetController(
  options: WidgetControllerOptions,
): Controller<Widget> {
  const { client, namespace, runs } = options;
  const configMaps = new ResourceClient({ client, gvr: CONFIGMAPS, namespace });
  const widgets = new ResourceClient<Widget>({
    client,
    gvr: WIDGETS,
    namespace,
  });

  async function reconcile(
    run: ReconcileRun,
    context: ReconcileContext<Widget>,
  ): Promise<void> {
    const { name, signal } = context;
    const widget = context.get();
    run.saw = widget?.metadata.resourceVersion;
    run.uid = widget?.metadata.uid;
    run.generation = widget?.metadata.generation;
    options.onReconcile?.(run);
    const [child] = context.store("configmaps").get(
      namespace,
      childName(name),
    );
    if (widget === undefined) {
      // No garbage collector here: the child goes with its Widget.
      const owner = child && controllerOf(child);
      if (owner?.kind !== "Widget" || owner.name !== name) return;
      try {
        await configMaps.delete(childName(name), {
          preconditions: { uid: child.metadata.uid },
          signal,
        });
        run.wrote.push("delete");
      } catch (error) {
        if (!(error instanceof NotFoundError)) throw error;
      }
      return;
    }
    const owner = {
      apiVersion: "example.com/v1",
      kind: "Widget",
      metadata: widget.metadata,
    };
    const data = desiredData(widget);
    if (
      child === undefined || controllerOf(child)?.uid !== widget.metadata.uid ||
      JSON.stringify(child.data) !== JSON.stringify(data)
    ) {
      const applied = await configMaps.apply(
        setControllerReference(owner, {
          apiVersion: "v1",
          kind: "ConfigMap",
          metadata: {
            name: childName(name),
            namespace,
            labels: { [MANAGED_BY]: FIELD_MANAGER },
          },
          data,
        }),
        { fieldManager: FIELD_MANAGER, force: true, signal },
      );
      run.wrote.push("configmap");
      // The key's next reconcile sees this ConfigMap in its cache: if the
      // Widget went while this apply ran, that (absent) reconcile deletes
      // it instead of missing it and leaving it orphaned.
      context.wrote(applied, "configmaps");
    }
    const generation = widget.metadata.generation;
    const ready = findCondition(widget.status?.conditions, CONDITION.type);
    if (
      widget.status?.observedGeneration === generation &&
      ready?.status === CONDITION.status &&
      ready.observedGeneration === generation
    ) return;
    try {
      const written = await widgets.applyStatus({
        apiVersion: "example.com/v1",
        kind: "Widget",
        metadata: { name, namespace },
        status: {
          observedGeneration: generation,
          conditions: setCondition(widget.status?.conditions, {
            ...CONDITION,
            message: `ConfigMap ${
              childName(name)
            } holds generation ${generation}`,
            observedGeneration: generation,
          }, Date.now()),
        },
      }, { fieldManager: FIELD_MANAGER, force: true, signal });
      run.wrote.push("status");
      context.wrote(written);
    } catch (error) {
      // Deleted meanwhile: its reconcile, absent, follows.
      if (!(error instanceof NotFoundError)) throw error;
    }
  }

  return new Controller<Widget>(
    {
      name: "widgets",
      for: { gvr: WIDGETS, kind: "Widget", namespace },
      owns: [{ gvr: CONFIGMAPS, namespace, labelSelector: MANAGED_SELECTOR }],
      leader: options.leader,
      drainOnStop: options.drainOnStop,
      // Retries of writes refused while kube-apiserver restarts: 50 ms
      // doubling, at most 2 s apart, so the test does not wait out a long
      // backoff once the server is back.
      queue: { backoff: { baseMs: 50, maxMs: 2_000 } },
      reconcile: async (key, context) => {
        const run: ReconcileRun = {
          replica: options.replica,
          key,
          saw: undefined,
          uid: undefined,
          generation: undefined,
          start: performance.now(),
          wrote: [],
        };
        runs.push(run);
        try {
          await reconcile(run, context);
          run.result = "ok";
        } catch (error) {
          run.result = context.signal.aborted ? "aborted" : "error";
          throw error;
        } finally {
          run.end = performance.now();
        }
      },
    },
    client,
    { logger: options.logger ?? silentLogger },
  );
}

/**
 * What differs between the Widgets of `namespace` and what the controller
 * should have made of them, read from the API server now (empty: none).
 * With `runs`, each Widget's last reconcile must also have read its
 * current version, and each absent one's last reconcile must have seen it
 * absent: the controller looked after the last change.
 */
export async function divergence(
  admin: RestClient,
  namespace: string,
  runs?: readonly ReconcileRun[],
  absent: readonly string[] = [],
): Promise<string[]> {
  const problems: string[] = [];
  const widgets = await listAll(admin, WIDGETS, { namespace }) as Widget[];
  const children = new Map(
    (await listAll(admin, CONFIGMAPS, {
      namespace,
      labelSelector: MANAGED_SELECTOR,
    })).map((c) => [c.metadata.name!, c]),
  );
  const last = (key: string) =>
    runs?.filter((r) => r.key === key && r.end !== undefined).sort((a, b) =>
      a.start - b.start
    ).at(-1);
  for (const widget of widgets) {
    const name = widget.metadata.name!;
    const generation = widget.metadata.generation;
    const child = children.get(childName(name));
    children.delete(childName(name));
    if (child === undefined) problems.push(`${name}: no ConfigMap`);
    else {
      if (controllerOf(child)?.uid !== widget.metadata.uid) {
        problems.push(`${name}: its ConfigMap is not controlled by it`);
      }
      if (JSON.stringify(child.data) !== JSON.stringify(desiredData(widget))) {
        problems.push(
          `${name}: ConfigMap data ${JSON.stringify(child.data)} for spec ${
            JSON.stringify(widget.spec)
          }`,
        );
      }
    }
    if (widget.status?.observedGeneration !== generation) {
      problems.push(
        `${name}: observedGeneration ${widget.status?.observedGeneration} of ${generation}`,
      );
    }
    const ready = findCondition(widget.status?.conditions, "Ready");
    if (ready?.status !== "True" || ready.observedGeneration !== generation) {
      problems.push(`${name}: Ready ${JSON.stringify(ready)}`);
    }
    const seen = runs && last(`${namespace}/${name}`);
    if (runs && seen?.saw !== widget.metadata.resourceVersion) {
      problems.push(
        `${name}: last reconciled at ${seen?.saw}, stored at ${widget.metadata.resourceVersion}`,
      );
    }
  }
  for (const name of children.keys()) {
    problems.push(`${name}: a ConfigMap without its Widget`);
  }
  for (const name of absent) {
    const seen = last(`${namespace}/${name}`);
    if (widgets.some((w) => w.metadata.name === name)) {
      problems.push(`${name}: still there`);
    } else if (runs && (seen === undefined || seen.saw !== undefined)) {
      problems.push(`${name}: never reconciled absent`);
    }
  }
  return problems;
}

/** Waits until {@linkcode divergence} finds nothing. */
export async function assertWidgetsConverged(
  admin: RestClient,
  namespace: string,
  options: {
    runs?: readonly ReconcileRun[];
    absent?: readonly string[];
    timeoutMs?: number;
  } = {},
): Promise<void> {
  let problems: string[] = [];
  await eventually(
    async () => {
      problems = await divergence(
        admin,
        namespace,
        options.runs,
        options.absent,
      );
      return problems.length === 0;
    },
    () =>
      `the Widgets of ${namespace} did not converge: ${problems.join("; ")}`,
    options.timeoutMs,
  );
}

/**
 * Writes of `kind` made more than once for one generation of one Widget:
 * none when each reconcile read the cache after the previous one's writes
 * (`context.wrote()`), unless a write's answer was lost.
 */
export function repeatedWrites(
  runs: readonly ReconcileRun[],
  kind: "configmap" | "status",
): string[] {
  const counts = new Map<string, number>();
  for (const run of runs) {
    if (!run.wrote.includes(kind)) continue;
    const at = `${run.key} ${run.uid} generation ${run.generation}`;
    counts.set(at, (counts.get(at) ?? 0) + 1);
  }
  return [...counts].filter(([, n]) => n > 1).map(([at, n]) => `${at}: ${n}`);
}

/**
 * Runs of one key that overlapped in time, on one replica or two (there
 * must be none: the queue hands a key to one worker at a time, and a
 * replica reconciles only while it leads).
 */
export function overlappingRuns(runs: readonly ReconcileRun[]): string[] {
  const found: string[] = [];
  for (const [key, list] of Map.groupBy(runs, (r) => r.key)) {
    const sorted = [...list].sort((a, b) => a.start - b.start);
    for (let i = 0; i < sorted.length; i++) {
      for (let j = i + 1; j < sorted.length; j++) {
        const [a, b] = [sorted[i], sorted[j]];
        if (a.end !== undefined && a.end <= b.start) break;
        found.push(
          `${key}: ${a.replica} ${a.start.toFixed(0)}–${
            a.end?.toFixed(0) ?? "…"
          } and ${b.replica} from ${b.start.toFixed(0)}`,
        );
      }
    }
  }
  return found;
}
