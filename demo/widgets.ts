import type { KubeObject } from "../mod.ts";
import { controllerOf } from "../controller/mod.ts";
import type { FakeApiServer } from "../testing/mod.ts";
import type { Rng } from "./cluster.ts";

/** The Widget custom resource of `--controller`. */
export const WIDGETS = {
  group: "example.com",
  version: "v1",
  resource: "widgets",
} as const;
export const CONFIGMAPS = {
  group: "",
  version: "v1",
  resource: "configmaps",
} as const;
/** The label on every ConfigMap the demo's controller makes. */
export const MANAGED_BY = "app.kubernetes.io/managed-by";
export const FIELD_MANAGER = "widget-demo";

/** What a Widget asks for. */
export interface WidgetSpec {
  size: number;
  color: string;
  /** Look again this often (a requeue), in seconds. */
  refreshSeconds?: number;
}

/** What the controller writes back. */
export interface WidgetStatus {
  configMap?: string;
  observedGeneration?: number;
}

export interface Widget extends KubeObject {
  spec?: WidgetSpec;
  status?: WidgetStatus;
}

const NAMESPACES = ["shop", "lab"] as const;
const COLORS = ["red", "green", "blue", "amber"] as const;

/** The Widget a seeded run starts with that the churn never deletes. */
export const CLOCK = { namespace: "shop", name: "clock" } as const;

/** The name of a Widget's ConfigMap. */
export function configMapName(widget: string): string {
  return `${widget}-config`;
}

/** The data a Widget's ConfigMap must hold. */
export function configMapData(spec: WidgetSpec | undefined) {
  return { size: String(spec?.size ?? 0), color: spec?.color ?? "none" };
}

/** Registers the Widget resource (with a status subresource). */
export function registerWidgets(server: FakeApiServer): void {
  server.registerResource({
    ...WIDGETS,
    kind: "Widget",
    namespaced: true,
    statusSubresource: true,
  });
}

function widget(namespace: string, name: string, spec: WidgetSpec): Widget {
  return {
    apiVersion: "example.com/v1",
    kind: "Widget",
    metadata: { namespace, name },
    spec,
  };
}

/**
 * Seeds six Widgets, `shop/clock` among them, which asks to be looked at
 * again every `refreshSeconds`. Returns how many.
 */
export function seedWidgets(server: FakeApiServer, rng: Rng): number {
  const seeds: [string, string, WidgetSpec][] = [
    [CLOCK.namespace, CLOCK.name, {
      size: 1,
      color: "amber",
      refreshSeconds: 2,
    }],
    ["shop", "gear", { size: rng.int(1, 9), color: rng.pick(COLORS) }],
    ["shop", "sprocket", { size: rng.int(1, 9), color: rng.pick(COLORS) }],
    ["lab", "lever", { size: rng.int(1, 9), color: rng.pick(COLORS) }],
    ["lab", "spring", { size: rng.int(1, 9), color: rng.pick(COLORS) }],
    ["lab", "flaky", { size: rng.int(1, 9), color: rng.pick(COLORS) }],
  ];
  for (const [namespace, name, spec] of seeds) {
    server.create(WIDGETS, widget(namespace, name, spec));
  }
  return seeds.length;
}

/** One write of the churn, described for the output. */
export interface WidgetWrite {
  sign: "+" | "~" | "-";
  key: string;
  what: string;
}

/** The churn's writes in turn, so that a short run sees each kind. */
const PATTERN = ["+", "~", "-", "~"] as const;

/**
 * One churn step on the Widgets, the `step`th: a create, a spec change (a
 * new generation) or a delete in turn, of random Widgets, keeping between 4
 * and 12 of them; `shop/clock` is never written.
 */
export function widgetStep(
  server: FakeApiServer,
  rng: Rng,
  step: number,
): WidgetWrite {
  const widgets = server.list(WIDGETS) as Widget[];
  // The clock is left alone: each of its reconciles after the first is a
  // requeue.
  const others = widgets.filter((w) =>
    !(w.metadata.namespace === CLOCK.namespace &&
      w.metadata.name === CLOCK.name)
  );
  const kind = PATTERN[step % PATTERN.length];
  // At least 4, so that 3 others (the clock aside) are there to pick from.
  if (widgets.length < 4 || (kind === "+" && widgets.length < 12)) {
    const namespace = rng.pick(NAMESPACES);
    const name = `w-${rng.suffix()}`;
    const spec = { size: rng.int(1, 9), color: rng.pick(COLORS) };
    server.create(WIDGETS, widget(namespace, name, spec));
    return {
      sign: "+",
      key: `${namespace}/${name}`,
      what: `size ${spec.size}, ${spec.color}`,
    };
  }
  if (kind === "-") {
    const gone = rng.pick(others);
    const { namespace, name } = gone.metadata;
    server.delete(WIDGETS, namespace!, name!);
    return { sign: "-", key: `${namespace}/${name}`, what: "deleted" };
  }
  const target = rng.pick(others);
  return resize(server, target, otherSize(target, rng.int(1, 8)));
}

/** A size from 1 to 9 other than `target`'s: `step` (1-8) sizes on. */
export function otherSize(target: Widget, step: number): number {
  return ((target.spec?.size ?? 0) + step - 1) % 9 + 1;
}

/** Changes a Widget's size (a spec change: a new generation). */
export function resize(
  server: FakeApiServer,
  target: Widget,
  size: number,
): WidgetWrite {
  const { namespace, name } = target.metadata;
  const before = target.spec?.size;
  server.patch(WIDGETS, namespace!, name!, { spec: { size } });
  return {
    sign: "~",
    key: `${namespace}/${name}`,
    what: `size ${before} → ${size}`,
  };
}

/**
 * What is not as the controller should have left it, on the server: every
 * Widget has its ConfigMap, owned by it and holding its spec, and a status
 * that observed its generation; no managed ConfigMap lacks its Widget.
 */
export function widgetProblems(server: FakeApiServer): string[] {
  const problems: string[] = [];
  const widgets = server.list(WIDGETS) as Widget[];
  const configMaps = server.list(CONFIGMAPS)
    .filter((c) => c.metadata.labels?.[MANAGED_BY] === FIELD_MANAGER);
  const byKey = new Map(
    configMaps.map((c) => [`${c.metadata.namespace}/${c.metadata.name}`, c]),
  );
  for (const w of widgets) {
    const { namespace, name, uid, generation } = w.metadata;
    const key = `${namespace}/${name}`;
    const child = byKey.get(`${namespace}/${configMapName(name!)}`);
    if (child === undefined) {
      problems.push(`widget ${key} has no ConfigMap`);
      continue;
    }
    if (controllerOf(child)?.uid !== uid) {
      problems.push(`the ConfigMap of widget ${key} is not controlled by it`);
    }
    const want = configMapData(w.spec);
    const data = child.data as Record<string, string> | undefined;
    if (data?.size !== want.size || data?.color !== want.color) {
      problems.push(
        `the ConfigMap of widget ${key} holds ${JSON.stringify(data)}, not ${
          JSON.stringify(want)
        }`,
      );
    }
    if (w.status?.observedGeneration !== generation) {
      problems.push(
        `widget ${key} status observed generation ${w.status?.observedGeneration}, not ${generation}`,
      );
    }
  }
  const uids = new Set(widgets.map((w) => w.metadata.uid));
  for (const c of configMaps) {
    const owner = controllerOf(c);
    if (owner === undefined || !uids.has(owner.uid)) {
      problems.push(
        `ConfigMap ${c.metadata.namespace}/${c.metadata.name} has no widget`,
      );
    }
  }
  return problems;
}
