/**
 * The machinery of the seeded, differential property test of the shared
 * source (`bulk_shared_property_test.ts`): random consumers, a random
 * script of steps, worlds that run the script, and the comparison of what
 * each consumer observed shared and alone. Named `_test.ts` so that it is
 * never published; it holds no tests itself.
 *
 * A *world* is one fake API server, one client and one clock. The shared
 * world runs every consumer of the seed on one client (they share what
 * they can); each alone world runs one of them with `shared: false`. Every
 * world runs the same script. What keeps the worlds comparable, and why:
 *
 * - **Time** moves only by the script ({@linkcode StepClock}), and between
 *   any two things that happen (an action, a mutation, a timer) the world
 *   runs until nothing moves any more ({@linkcode World.quiesce}), so no
 *   event is in flight when the next thing happens, in any world.
 * - **Jitter is constant** (`random: () => 0.5`): a loop's backoff and
 *   watch timeout depend only on its own history, not on how many loops
 *   draw from one generator.
 * - **Faults hit every stream alike**: they are either actions on every
 *   stream at once (close every watch; compact the history after a write
 *   to another resource, so that every watch resumes into 410 and relists;
 *   expire every continue token) or windows of fake time (503, 429, drops,
 *   truncations, stalls, a namespace answering 403) that fail whichever
 *   request comes. A fault injected for "the next request" would hit a
 *   different stream in the shared world than alone.
 * - **Steps are long** (`STEP_MS`, longer than the largest backoff plus
 *   the slowest callback): when a step ends every loop has recovered and
 *   every callback has returned, so the next step starts from rest in
 *   every world, whatever the order faults were retried in.
 *
 * Constraints of the schedule (each keeps a difference out that sharing
 * makes legitimately, and that no bug is hiding in):
 *
 * - No mutation while a loop is down in one world and not in another:
 *   mutations come only in steps that start from rest, except mutations
 *   while namespace `b` is forbidden (every loop of `b` is down, in every
 *   world) and one mutation right after a consumer started. That one
 *   reaches the consumer after its onSyncComplete, shared and alone: alone
 *   its loop waits for onSyncComplete and then replays the event; shared,
 *   its batch is held and its store reads as synced until then. One, not
 *   more: alone the replayed events come one by one (the first fires at
 *   once, the rest after the interval), shared the held batch goes at once
 *   whole. (With several namespaces, the loops but the last one to list
 *   wait for onSyncComplete too, holding what they read.)
 * - No consumer starts while namespace `b` is forbidden: one joining a
 *   running source syncs at once with what the source holds, one alone
 *   cannot list `b`; both are right.
 * - In a step that holds continued LISTs, no mutation before the
 *   consumers joined (a joiner alone would list after it, the source
 *   before it), and none at all when a relist is held (a loop whose watch
 *   saw nothing since its last list backs off before it relists, so its
 *   relist comes after the writes, unheld, and warns about objects the
 *   joiner listing alone got as events). After the joins, writes come only
 *   when every consumer started in the step joins a source that was not
 *   running (it syncs when the held list ends, shared and alone), or reads
 *   one namespace, gets one write and no expired continue token: a
 *   consumer joining a running source syncs at once with what the source
 *   holds while alone its list waits, so the writes reach it after its
 *   list in both only so (with `namespaces`, a namespace listed alone
 *   counts them into its initial batch; after an expired token, its list
 *   starts again and holds them).
 * - A consumer that starts inside another's callback does so in a step of
 *   one mutation, so that the source has applied the whole step when it
 *   joins, as its own list alone sees it.
 *
 * One part of the oracle is narrowed (see {@linkcode compare}): warnings
 * that a field-selector path is absent are not compared for consumers
 * whose source keeps only what their selector chose (a `transform`, or
 * `ignoreFields` meeting the selector's path). Such a source keeps no
 * unselected object, by design, so a consumer joining it late cannot be
 * told what a list of every object would say.
 *
 * @module
 */
import { setImmediate } from "node:timers";
import type { KubeObject, ReadableStore } from "../types.ts";
import type { Clock, TimerHandle } from "../clock.ts";
import type { ChangeBatch } from "./change_batch.ts";
import { ApiError } from "../client/api_error.ts";
import { FetchClient } from "../client/fetch_client.ts";
import type { RequestOptions, RestClient } from "../client/rest_client.ts";
import { FakeApiServer } from "../testing/fake_api_server.ts";
import type { FakeApiFault } from "../testing/faults.ts";
import { mockFetch } from "../testing/mock_fetch.ts";
import { RecordingLogger } from "../testing/recording_logger.ts";
import { Watcher } from "./watcher.ts";
import type { WatcherConfig } from "./watcher_config.ts";
import { CONFIGMAPS } from "./_bulk_harness_test.ts";
import { seeded } from "../testing/_seeded_random.ts";

/**
 * Whether a callback that stops its own watcher awaits `stop()`. Always on
 * here; `false` only to run this test against code where that deadlocks
 * (0.2.0), to see which other bugs it finds.
 */
export const AWAIT_STOP_INSIDE = true;

const NAMESPACES = ["a", "b", "c"] as const;
const NAMES = 7;
const PAGE_SIZE = 3;
/** Fake time per step: above the 30 s backoff cap plus the slowest callback. */
const STEP_MS = 60_000;
/** Above any fault window, so that a stalled watch ends within its step. */
const IDLE_TIMEOUT_MS = 40_000;
const MAX_QUIESCE_TURNS = 5_000;
/** Jitter without randomness: see the module doc. */
const HALF = () => 0.5;

// --- The options a consumer is drawn from, each with its model ------------

type Obj = KubeObject & {
  data?: Record<string, string>;
};

interface IndexOption {
  name: string;
  paths: string[];
  keys(stored: Obj): string[] | undefined;
}

function allKeys(...values: unknown[]): string[] | undefined {
  return values.every((v) => typeof v === "string")
    ? values as string[]
    : undefined;
}

const INDEXES: IndexOption[] = [
  {
    name: "identity",
    paths: ["metadata.namespace", "metadata.name"],
    keys: (o) => allKeys(o.metadata.namespace, o.metadata.name),
  },
  {
    name: "name",
    paths: ["metadata.name"],
    keys: (o) => allKeys(o.metadata.name),
  },
  {
    name: "team label",
    paths: ["metadata.labels.team"],
    keys: (o) => allKeys(o.metadata.labels?.team),
  },
  {
    name: "tier",
    paths: ["data.tier"],
    keys: (o) => allKeys(o.data?.tier),
  },
  {
    name: "namespace+tier",
    paths: ["metadata.namespace", "data.tier"],
    keys: (o) => allKeys(o.metadata.namespace, o.data?.tier),
  },
];

interface SelectorOption {
  expr: string;
  /** The paths it reads (to know whether `ignoreFields` meets them). */
  paths: string[];
  /** On the object as sent (metadata-only form with `metadataOnly`). */
  match(sent: Obj): boolean;
}

const SELECTORS: SelectorOption[] = [
  {
    expr: "metadata.namespace=a",
    paths: ["metadata.namespace"],
    match: (o) => o.metadata.namespace === "a",
  },
  {
    expr: "metadata.namespace!=b",
    paths: ["metadata.namespace"],
    match: (o) => o.metadata.namespace !== "b",
  },
  {
    expr: "metadata.labels.team=red",
    paths: ["metadata.labels.team"],
    match: (o) => o.metadata.labels?.team === "red",
  },
  {
    expr: "metadata.labels.team!=blue",
    paths: ["metadata.labels.team"],
    match: (o) => o.metadata.labels?.team !== "blue",
  },
  {
    expr: "data.tier=web",
    paths: ["data.tier"],
    match: (o) => o.data?.tier === "web",
  },
  {
    expr: "data.tier!=db",
    paths: ["data.tier"],
    match: (o) => o.data?.tier !== "db",
  },
  {
    expr: "data.tier=web,metadata.labels.team!=blue",
    paths: ["data.tier", "metadata.labels.team"],
    match: (o) => o.data?.tier === "web" && o.metadata.labels?.team !== "blue",
  },
  // Paths no ConfigMap has: warned about, and matching by absence only.
  { expr: "spec.owner=me", paths: ["spec.owner"], match: () => false },
  {
    expr: "metadata.annotations.note!=x",
    paths: ["metadata.annotations.note"],
    match: () => true,
  },
];

interface IgnoreOption {
  fields: string[];
  apply(obj: Obj): Obj;
}

function without(obj: Obj, path: string): Obj {
  const copy = structuredClone(obj) as Record<string, unknown>;
  const parts = path.split(".");
  let at: Record<string, unknown> | undefined = copy;
  for (const part of parts.slice(0, -1)) {
    const next: unknown = at?.[part];
    at = typeof next === "object" && next !== null
      ? next as Record<string, unknown>
      : undefined;
  }
  if (at) delete at[parts.at(-1)!];
  return copy as Obj;
}

const IGNORES: IgnoreOption[] = [
  "data",
  "data.tier",
  "data.v",
  "metadata.labels",
  "metadata.labels.team",
  "metadata.annotations",
].map((field) => ({ fields: [field], apply: (o) => without(o, field) }));

/**
 * Transforms are module-level functions: sharing needs the same function
 * object, so consumers of one form pick the same one.
 */
const KEEP_METADATA = (o: KubeObject): KubeObject => ({ metadata: o.metadata });
const UPPER_TIER = (o: KubeObject): KubeObject => {
  const data = (o as Obj).data;
  if (typeof data?.tier !== "string") return o;
  return { ...o, data: { ...data, tier: data.tier.toUpperCase() } } as Obj;
};
const DROP_BLUE = (o: KubeObject): KubeObject | undefined =>
  o.metadata.labels?.team === "blue" ? undefined : o;
const REFUSE_FIVE = (o: KubeObject): KubeObject => {
  // By name, which never changes: such an object is never stored.
  if (o.metadata.name?.endsWith("5")) throw new Error("no fives");
  return o;
};

interface TransformOption {
  name: string;
  fn: (o: KubeObject) => KubeObject | undefined;
}

const TRANSFORMS: TransformOption[] = [
  { name: "keep metadata", fn: KEEP_METADATA },
  { name: "upper tier", fn: UPPER_TIER },
  { name: "drop blue", fn: DROP_BLUE },
  { name: "refuse fives", fn: REFUSE_FIVE },
];

interface ScopeOption {
  name: string;
  config: Partial<WatcherConfig>;
  namespaces: readonly string[];
}

const SCOPES: ScopeOption[] = [
  { name: "all", config: {}, namespaces: NAMESPACES },
  { name: "a", config: { namespace: "a" }, namespaces: ["a"] },
  { name: "b", config: { namespace: "b" }, namespaces: ["b"] },
  {
    name: "a+b",
    config: { namespaces: ["a", "b"] },
    namespaces: ["a", "b"],
  },
];

/** What a callback does once called. */
export type Behaviour =
  | { kind: "fast" }
  | { kind: "slow"; ms: number }
  | { kind: "turns"; n: number }
  | { kind: "throw" }
  | { kind: "reject" };

/** How a stream's objects are fetched and stored: what sharing needs alike. */
export interface Form {
  scope: ScopeOption;
  metadataOnly: boolean;
  ignore: IgnoreOption | undefined;
  transform: TransformOption | undefined;
}

/** One consumer: a `Watcher`'s configuration and callbacks' behaviour. */
export interface ConsumerSpec {
  id: string;
  form: Form;
  index: IndexOption;
  selector: SelectorOption | undefined;
  debounceInterval: number;
  /** The behaviour of the n-th onChange call is `onChange[n % length]`. */
  onChange: Behaviour[];
  onSyncComplete: Behaviour;
  /** Stops its own watcher from inside a callback (the n-th onChange). */
  selfStop:
    | { in: "onChange"; call: number }
    | { in: "onSyncComplete" }
    | undefined;
}

/** A readable summary of a consumer, for failure messages. */
export function describeSpec(spec: ConsumerSpec): string {
  const parts = [
    `indexBy ${spec.index.name}`,
    spec.selector ? `fieldSelector ${spec.selector.expr}` : undefined,
    `scope ${spec.form.scope.name}`,
    spec.form.metadataOnly ? "metadataOnly" : undefined,
    spec.form.ignore ? `ignoreFields ${spec.form.ignore.fields}` : undefined,
    spec.form.transform ? `transform ${spec.form.transform.name}` : undefined,
    `debounce ${spec.debounceInterval}`,
    `onChange ${spec.onChange.map(behaviourName).join("/")}`,
    `onSyncComplete ${behaviourName(spec.onSyncComplete)}`,
    spec.selfStop
      ? `stops itself in ${spec.selfStop.in}${
        spec.selfStop.in === "onChange" ? ` #${spec.selfStop.call}` : ""
      }`
      : undefined,
  ];
  return parts.filter((p) => p !== undefined).join(", ");
}

function behaviourName(b: Behaviour): string {
  return b.kind === "slow"
    ? `slow ${b.ms}`
    : b.kind === "turns"
    ? `turns ${b.n}`
    : b.kind;
}

/** Whether a consumer's selector reads a field its stored copy may lack. */
export function selectsOnlyAsSentModel(spec: ConsumerSpec): boolean {
  const { selector, form } = spec;
  if (!selector) return false;
  if (form.transform) return true;
  const removed = form.ignore?.fields ?? [];
  return selector.paths.some((p) =>
    removed.some((r) =>
      p === r || p.startsWith(`${r}.`) || r.startsWith(`${p}.`)
    )
  );
}

/** What the consumer's store holds for the server's objects (the model). */
export function expectedStore(
  spec: ConsumerSpec,
  objects: readonly KubeObject[],
): string[] {
  const out: string[] = [];
  for (const obj of objects as Obj[]) {
    if (!spec.form.scope.namespaces.includes(obj.metadata.namespace!)) continue;
    const sent: Obj = spec.form.metadataOnly
      ? {
        kind: "PartialObjectMetadata",
        apiVersion: "meta.k8s.io/v1",
        metadata: obj.metadata,
      }
      : obj;
    if (spec.selector && !spec.selector.match(sent)) continue;
    let stored: Obj | undefined = spec.form.ignore
      ? spec.form.ignore.apply(sent)
      : sent;
    if (spec.form.transform) {
      try {
        stored = spec.form.transform.fn(stored) as Obj | undefined;
      } catch {
        stored = undefined;
      }
    }
    if (stored === undefined || spec.index.keys(stored) === undefined) {
      continue;
    }
    out.push(identity(obj));
  }
  return out.sort();
}

function identity(o: KubeObject): string {
  return `${o.metadata.namespace}/${o.metadata.name}@${o.metadata.resourceVersion}`;
}

// --- The script -----------------------------------------------------------

/** One write to the server, decided when the script is made. */
export type Mutation =
  | {
    op: "create" | "update";
    namespace: string;
    name: string;
    team: string | undefined;
    tier: string | undefined;
    v: number;
  }
  | { op: "delete"; namespace: string; name: string };

/** One thing a step does; a world ignores what names a consumer it lacks. */
export type Action =
  | { kind: "start"; ids: string[] }
  | { kind: "startDuring"; id: string; host: string; mutation: Mutation }
  | { kind: "stop"; id: string }
  | { kind: "mutate"; mutations: Mutation[] }
  | { kind: "wait"; ms: number }
  | { kind: "closeWatches" }
  | { kind: "relist" }
  | { kind: "window"; fault: FakeApiFault; then: "close" | "relist" }
  | { kind: "forbid"; namespace: string; on: boolean }
  | { kind: "hold" }
  | { kind: "release"; expire: boolean };

/** A step: its actions in order, then the clock moves to the step's end. */
export interface Step {
  actions: Action[];
}

/** A seed's consumers and script. */
export interface Plan {
  seed: number;
  specs: ConsumerSpec[];
  steps: Step[];
}

/** Probabilities of the generator, in one place for tuning. */
const P = {
  /** A seed has a pair selecting on a field its stored copy lacks (bug 1). */
  strippedPair: 0.5,
  /** A consumer copies the view of one made before (same kind: bug 6). */
  sameView: 0.3,
  /** A consumer takes the form of one made before (shares its stream). */
  sameForm: 0.6,
  slowSync: 0.55,
  selfStop: 0.2,
};

/** Makes the consumers and the script of one seed. */
export function makePlan(seed: number, steps = 26): Plan {
  const rnd = seeded(seed);
  const int = (n: number) => Math.floor(rnd() * n);
  const chance = (p: number) => rnd() < p;
  const oneOf = <T>(items: readonly T[]): T => items[int(items.length)];

  // Consumers.
  const specs: ConsumerSpec[] = [];
  const behaviour = (): Behaviour => {
    const r = rnd();
    if (r < 0.4) return { kind: "fast" };
    if (r < 0.62) return { kind: "slow", ms: oneOf([300, 1_300, 2_700]) };
    if (r < 0.8) return { kind: "turns", n: 1 + int(3) };
    if (r < 0.9) return { kind: "throw" };
    return { kind: "reject" };
  };
  const randomForm = (): Form => ({
    scope: oneOf(SCOPES),
    metadataOnly: chance(0.2),
    ignore: chance(0.4) ? oneOf(IGNORES) : undefined,
    transform: chance(0.3) ? oneOf(TRANSFORMS) : undefined,
  });
  const add = (
    form: Form,
    index: IndexOption,
    selector: SelectorOption | undefined,
  ): ConsumerSpec => {
    // ignoreFields may not remove an index path (the Indexer refuses it).
    const removed = form.ignore?.fields[0];
    if (
      removed &&
      index.paths.some((p) => p === removed || p.startsWith(`${removed}.`))
    ) index = INDEXES[0];
    // metadataOnly refuses paths a metadata-only object never has
    // (the selection rule, `_source_form.ts`): an index a transform may fill is kept.
    if (form.metadataOnly) {
      const outside = (p: string) => !/^(metadata|apiVersion|kind)\b/.test(p);
      if (selector?.paths.some(outside)) selector = undefined;
      if (!form.transform && index.paths.some(outside)) index = INDEXES[0];
    }
    const syncBehaviour: Behaviour = chance(P.slowSync)
      ? { kind: "slow", ms: oneOf([700, 1_900]) }
      : behaviour();
    const spec: ConsumerSpec = {
      id: `c${specs.length}`,
      form,
      index,
      selector,
      debounceInterval: oneOf([500, 1_000, 2_500]),
      onChange: Array.from({ length: 1 + int(4) }, behaviour),
      onSyncComplete: syncBehaviour,
      selfStop: !chance(P.selfStop)
        ? undefined
        : chance(0.35)
        ? { in: "onSyncComplete" }
        : { in: "onChange", call: 2 + int(4) },
    };
    specs.push(spec);
    return spec;
  };
  // Selecting on a field that ignoreFields or transform takes out of the
  // stored copy, with two indexes: the second, joining while the first
  // runs, makes a view of its own.
  let pair: string[] = [];
  if (chance(P.strippedPair)) {
    const form: Form = {
      scope: oneOf(SCOPES),
      metadataOnly: false,
      ...(chance(0.5)
        ? {
          ignore: oneOf(
            IGNORES.filter((i) => ["data", "data.tier"].includes(i.fields[0])),
          ),
          transform: undefined,
        }
        : { ignore: undefined, transform: oneOf(TRANSFORMS.slice(0, 2)) }),
    };
    const selector = oneOf(SELECTORS.filter((s) => s.paths[0] === "data.tier"));
    const [first, second] = chance(0.5)
      ? [INDEXES[0], INDEXES[1]]
      : [INDEXES[1], INDEXES[0]];
    const runs = add(form, first, selector);
    runs.selfStop = undefined;
    pair = [runs.id, add(form, second, selector).id];
  }
  const count = 4 + int(3);
  while (specs.length < count) {
    const earlier = specs.length > 0 ? oneOf(specs) : undefined;
    if (earlier && chance(P.sameView)) {
      add(earlier.form, earlier.index, earlier.selector);
    } else {
      add(
        earlier && chance(P.sameForm) ? earlier.form : randomForm(),
        oneOf(INDEXES),
        chance(0.65) ? oneOf(SELECTORS) : undefined,
      );
    }
  }
  // Shuffled; the pair's first among the first to start, its second later.
  const order = specs.map((s) => s.id).filter((id) => !pair.includes(id));
  for (let i = order.length - 1; i > 0; i--) {
    const j = int(i + 1);
    [order[i], order[j]] = [order[j], order[i]];
  }
  if (pair.length > 0) {
    order.unshift(pair[0]);
    order.splice(2 + int(order.length - 1), 0, pair[1]);
  }
  /** Not stopped by the script before the pair's second started. */
  const keep = new Set(pair.slice(0, 1));

  // The server's objects, mirrored to make mutations.
  const live = new Map<
    string,
    { team: string | undefined; tier: string | undefined }
  >();
  let version = 0;
  const fields = () => ({
    team: oneOf(["red", "blue", undefined]),
    tier: oneOf(["web", "db", "web", undefined]),
  });
  /** A write, not yet made: `commit` makes it in the mirror. */
  const pick = (
    createOnly: boolean,
    namespaces: readonly string[],
  ): Mutation => {
    const namespace = oneOf(namespaces);
    let name = `cm-${int(NAMES)}`;
    for (let i = 0; createOnly && live.has(`${namespace}/${name}`); i++) {
      name = `cm-${(Number(name.slice(3)) + 1) % NAMES}`;
      if (i > NAMES) break;
    }
    const now = live.get(`${namespace}/${name}`);
    if (now === undefined) {
      return { op: "create", namespace, name, ...fields(), v: version + 1 };
    }
    if (chance(0.25)) return { op: "delete", namespace, name };
    const next = chance(0.5) ? fields() : now;
    return { op: "update", namespace, name, ...next, v: version + 1 };
  };
  const commit = (m: Mutation): Mutation => {
    const key = `${m.namespace}/${m.name}`;
    if (m.op === "delete") live.delete(key);
    else {
      live.set(key, { team: m.team, tier: m.tier });
      version++;
    }
    return m;
  };
  const mutation = (
    createOnly = false,
    namespaces: readonly string[] = NAMESPACES,
  ): Mutation => commit(pick(createOnly, namespaces));
  /** A write that `spec`'s store sees (most likely), in its namespaces. */
  const mutationFor = (spec: ConsumerSpec): Mutation => {
    const namespaces = spec.form.scope.namespaces;
    for (let i = 0; i < 8; i++) {
      const m = pick(false, namespaces);
      const before = live.get(`${m.namespace}/${m.name}`);
      const sees = (f: typeof before) =>
        f !== undefined && expectedStore(spec, [{
            metadata: {
              namespace: m.namespace,
              name: m.name,
              ...(f.team ? { labels: { team: f.team } } : {}),
            },
            data: f.tier ? { tier: f.tier, v: "0" } : { v: "0" },
          } as KubeObject]).length > 0;
      if (sees(before) || (m.op !== "delete" && sees(m))) return commit(m);
    }
    return mutation(false, namespaces);
  };
  const mutations = (n: number) => Array.from({ length: n }, () => mutation());

  const script: Step[] = [];
  const pending = [...order];
  const running: string[] = [];
  let forbidden = false;
  let forbiddenUntil = 0;
  const take = (): string => {
    const id = pending.shift()!;
    running.push(id);
    if (id === pair[1]) keep.clear();
    return id;
  };
  /** A pending consumer of the form of a running one, if there is one. */
  const takeSharing = (): string => {
    const forms = new Set(running.map((id) => formKey(byId(id).form)));
    const i = pending.findIndex((id) => forms.has(formKey(byId(id).form)));
    if (i > 0) pending.unshift(...pending.splice(i, 1));
    return take();
  };
  // Step 0: objects, then the first consumers, together before any list.
  script.push({
    actions: [
      {
        kind: "mutate",
        mutations: Array.from({ length: 15 }, () => mutation(true)),
      },
      { kind: "start", ids: Array.from({ length: 1 + int(2) }, take) },
    ],
  });
  const faults: (() => Action)[] = [
    () => ({ kind: "closeWatches" }),
    () => ({ kind: "relist" }),
    () => ({
      kind: "window",
      fault: {
        verb: chance(0.5) ? "watch" : "list",
        kind: "status",
        code: oneOf([500, 503]),
        forMs: 2_000 + int(8_000),
      },
      then: "relist",
    }),
    () => ({
      kind: "window",
      fault: {
        verb: "any",
        kind: "status",
        code: 429,
        retryAfterSeconds: 1 + int(3),
        forMs: 1_000 + int(4_000),
      },
      then: chance(0.5) ? "relist" : "close",
    }),
    () => ({
      kind: "window",
      fault: {
        verb: "watch",
        kind: chance(0.5) ? "drop" : "truncate",
        afterEvents: 0,
        forMs: 1_000 + int(5_000),
      },
      then: "close",
    }),
    () => ({
      kind: "window",
      fault: { verb: "watch", kind: "stall", forMs: 1_000 + int(3_000) },
      then: "close",
    }),
  ];
  for (let s = 1; s < steps; s++) {
    const left = steps - s;
    const mustStart = pending.length > 0 && pending.length >= left - 1;
    const r = rnd();
    if (!forbidden && pending.length > 0 && (mustStart || r < 0.4)) {
      script.push(startStep());
    } else if (r < 0.62 || running.length === 0) {
      script.push({
        actions: [{ kind: "mutate", mutations: mutations(1 + int(4)) }],
      });
    } else if (r < 0.72 && running.some((id) => !keep.has(id))) {
      const id = oneOf(running.filter((id) => !keep.has(id)));
      running.splice(running.indexOf(id), 1);
      script.push({
        actions: [
          { kind: "stop", id },
          { kind: "mutate", mutations: mutations(1 + int(3)) },
        ],
      });
    } else if (r < 0.93) {
      script.push({ actions: [oneOf(faults)()] });
    } else if (!forbidden && !mustStart) {
      // Namespace b answers 403 for one to three steps.
      forbidden = true;
      forbiddenUntil = s + 1 + int(3);
      script.push({ actions: [{ kind: "forbid", namespace: "b", on: true }] });
    } else {
      script.push({ actions: [{ kind: "mutate", mutations: mutations(2) }] });
    }
    if (forbidden && (s >= forbiddenUntil || pending.length >= left - 2)) {
      forbidden = false;
      script.push({ actions: [{ kind: "forbid", namespace: "b", on: false }] });
    }
  }
  if (forbidden) {
    script.push({ actions: [{ kind: "forbid", namespace: "b", on: false }] });
  }
  while (pending.length > 0) script.push(startStep());
  script.push({ actions: [{ kind: "mutate", mutations: mutations(3) }] });
  return { seed, specs, steps: script };

  function startStep(): Step {
    const r = rnd();
    if (r < 0.45) {
      // A late join, most often into a running stream; then, most often,
      // one mutation in its namespaces or a stop while its onSyncComplete
      // may still run.
      const id = chance(0.75) ? takeSharing() : take();
      const actions: Action[] = [{ kind: "start", ids: [id] }];
      const then = rnd();
      if (then < 0.4) {
        actions.push({ kind: "mutate", mutations: [mutationFor(byId(id))] });
      } else if (then < 0.8) {
        actions.push({ kind: "wait", ms: oneOf([100, 500, 1_000]) });
        actions.push({ kind: "stop", id });
        running.splice(running.indexOf(id), 1);
      }
      return { actions };
    }
    if (r < 0.6 && running.length > 0) {
      return {
        actions: [{
          kind: "startDuring",
          host: oneOf(running),
          id: take(),
          mutation: mutation(),
        }],
      };
    }
    // Holding continued LISTs: a consumer joining a running source syncs
    // at once with what the source holds, while alone its own list waits.
    // Writes while lists are held are compared only when each consumer
    // starting here joins a source not running before (it syncs when the
    // list ends, shared and alone) or reads one namespace without an
    // expired token (writes then arrive after its list, shared and alone;
    // with `namespaces`, a namespace listed alone would count them into
    // its initial batch).
    const before = new Set(running.map((id) => formKey(byId(id).form)));
    const actions: Action[] = [{ kind: "hold" }];
    const started: string[] = [];
    const relist = r >= 0.82;
    if (!relist) {
      // Joining a list under way: the first starts, its second page waits,
      // the others join.
      started.push(take());
      for (let i = int(3); i > 0 && pending.length > 0; i--) {
        started.push(take());
      }
      for (const id of started) actions.push({ kind: "start", ids: [id] });
    } else {
      // Joining (and leaving) a relist under way.
      actions.push({ kind: "relist" });
      started.push(take());
      actions.push({ kind: "start", ids: started });
      const stoppable = running.slice(0, -1).filter((id) => !keep.has(id));
      if (stoppable.length > 0 && chance(0.4)) {
        const id = oneOf(stoppable);
        running.splice(running.indexOf(id), 1);
        actions.push({ kind: "stop", id });
      }
    }
    const fresh = started.every((id) => !before.has(formKey(byId(id).form)));
    const single = started.every((id) =>
      byId(id).form.scope.namespaces.length === 1
    );
    const write = !relist && (fresh || single) && chance(0.45);
    if (write) {
      // One write while a late joiner's onSyncComplete may run.
      actions.push({
        kind: "mutate",
        mutations: mutations(fresh ? 1 + int(2) : 1),
      });
    }
    actions.push({
      kind: "release",
      expire: (!write || fresh) && chance(0.4),
    });
    return { actions };
  }

  function byId(id: string): ConsumerSpec {
    return specs.find((s) => s.id === id)!;
  }
}

/** What decides whether two consumers may share a source. */
export function formKey(form: Form): string {
  return JSON.stringify([
    form.scope.name,
    form.metadataOnly,
    form.ignore?.fields ?? [],
    form.transform?.name ?? "",
  ]);
}

/** A one-line account of a step, for failure messages. */
export function describeStep(step: Step): string {
  return step.actions.map((a) => {
    switch (a.kind) {
      case "start":
        return `start ${a.ids.join("+")}`;
      case "startDuring":
        return `start ${a.id} inside ${a.host}'s callback, ${
          describeMutation(a.mutation)
        }`;
      case "stop":
        return `stop ${a.id}`;
      case "mutate":
        return a.mutations.map(describeMutation).join(", ");
      case "wait":
        return `wait ${a.ms} ms`;
      case "window":
        return `${a.fault.kind} ${
          a.fault.kind === "status" ? a.fault.code + " " : ""
        }on ${a.fault.verb} for ${a.fault.forMs} ms, then ${a.then}`;
      case "forbid":
        return `${a.on ? "forbid" : "allow"} ${a.namespace}`;
      case "release":
        return `release${a.expire ? " (continue tokens expired)" : ""}`;
      default:
        return a.kind;
    }
  }).join("; ");
}

function describeMutation(m: Mutation): string {
  const id = `${m.namespace}/${m.name}`;
  if (m.op === "delete") return `delete ${id}`;
  return `${m.op} ${id} team=${m.team ?? "-"} tier=${m.tier ?? "-"}`;
}

// --- A world ---------------------------------------------------------------

/**
 * A clock whose time moves only when told, firing one timer at a time
 * (due order, then creation order) so that the world can come to rest
 * between two timers. `FakeClock.tick` yields three wall-clock timer turns
 * after each timer it fires (about 2.5 ms each here); a seed fires
 * thousands of timers over its worlds, and this runs them in a fraction of
 * that, with the same semantics.
 */
export class StepClock implements Clock {
  #now = 0;
  #next = 1;
  #timers = new Map<number, { due: number; fn: () => void }>();

  now(): number {
    return this.#now;
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const handle = this.#next++;
    this.#timers.set(handle, { due: this.#now + (ms > 0 ? ms : 0), fn });
    return handle;
  }

  clearTimeout(handle: TimerHandle): void {
    this.#timers.delete(handle as number);
  }

  get pendingTimers(): number {
    return this.#timers.size;
  }

  /** Fires the earliest timer due by `target`; false when there is none. */
  fireNext(target: number): boolean {
    let best: number | undefined;
    let due = Infinity;
    for (const [handle, timer] of this.#timers) {
      if (timer.due <= target && timer.due < due) {
        best = handle;
        due = timer.due;
      }
    }
    if (best === undefined) return false;
    const { fn } = this.#timers.get(best)!;
    this.#timers.delete(best);
    this.#now = Math.max(this.#now, due);
    fn();
    return true;
  }

  moveTo(target: number): void {
    this.#now = Math.max(this.#now, target);
  }
}

/** One event-loop turn: every promise chain runs first. */
function turn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** What a world observed of one consumer. */
export interface Observed {
  log: string[];
  store: string[];
  objects: number;
  state: string;
  violations: string[];
  /** The model's store when the consumer still runs, else undefined. */
  expected: string[] | undefined;
}

/** What a world observed. */
export interface WorldResult {
  consumers: Map<string, Observed>;
  /** Misconfiguration warnings, by step. */
  warnings: Set<string>[];
  /** Problems of the world itself (did not settle, left a watch open). */
  problems: string[];
  /** How often a path of interest was taken (shared world). */
  coverage: Record<string, number>;
}

/** A consumer running in a world. */
class Live {
  readonly spec: ConsumerSpec;
  readonly log: string[] = [];
  readonly violations: string[] = [];
  watcher!: Watcher;
  started = false;
  #world: World;
  #changes = 0;
  #inChange = false;
  #inSync = false;
  #syncSettled = false;
  #stopResolved = false;
  #stopsInside = 0;
  #stoppedInside = 0;
  stopping: Promise<void> | undefined;

  constructor(world: World, spec: ConsumerSpec) {
    this.#world = world;
    this.spec = spec;
  }

  /** Whether its onSyncComplete runs now. */
  get inSync(): boolean {
    return this.#inSync;
  }

  record(entry: string): void {
    this.log.push(`s${this.#world.step} ${entry}`);
  }

  #violate(what: string): void {
    this.violations.push(`s${this.#world.step} ${what}`);
  }

  build(client: RestClient, alone: boolean): void {
    const { spec } = this;
    const world = this.#world;
    this.watcher = new Watcher(
      {
        gvr: CONFIGMAPS,
        indexBy: spec.index.paths,
        fieldSelector: spec.selector?.expr,
        ignoreFields: spec.form.ignore?.fields,
        transform: spec.form.transform?.fn,
        metadataOnly: spec.form.metadataOnly || undefined,
        ...spec.form.scope.config,
        pageSize: PAGE_SIZE,
        debounceInterval: spec.debounceInterval,
        shared: alone ? false : undefined,
        onChange: (_store: ReadableStore, batch: ChangeBatch) =>
          this.#onChange(batch),
        onSyncComplete: (_store: ReadableStore, count: number) =>
          this.#onSyncComplete(count),
      } as WatcherConfig,
      client,
      {
        clock: world.clock,
        logger: world.logger,
        random: HALF,
        idleTimeoutMs: IDLE_TIMEOUT_MS,
      },
    );
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    this.record("start");
    void this.watcher.start();
  }

  /** A stop from outside the callbacks; recorded when it resolves. */
  stop(): void {
    if (!this.started || this.stopping) return;
    this.record("stop");
    if (this.#inSync) this.#world.count("stopped during onSyncComplete");
    this.stopping = this.watcher.stop().then(() => this.#resolved(undefined));
  }

  #resolved(inside: "onChange" | "onSyncComplete" | undefined): void {
    this.#stopResolved = true;
    this.record(inside ? "stopped inside" : "stop resolved");
    if (inside !== "onChange" && this.#inChange) {
      this.#violate("stop() resolved while onChange still ran");
    }
    if (inside !== "onSyncComplete" && this.#inSync) {
      this.#violate("stop() resolved while onSyncComplete still ran");
    }
  }

  /** Stopped from inside a callback, by then inside it. */
  get unresolvedStopsInside(): number {
    return this.#stopsInside - this.#stoppedInside;
  }

  async #onChange(batch: ChangeBatch): Promise<void> {
    const call = this.#changes++;
    if (this.#stopResolved) this.#violate("onChange after stop() resolved");
    if (this.#inChange) this.#violate("onChange calls overlapped");
    if (!batch.isInitialSync && !this.#syncSettled) {
      this.#violate("onChange before its onSyncComplete settled");
    }
    this.#inChange = true;
    this.record(`change ${describeBatch(batch)}`);
    this.#world.hostCallback(this.spec.id);
    try {
      const stopHere = this.spec.selfStop?.in === "onChange" &&
        this.spec.selfStop.call === call;
      await this.#behave(
        this.spec.onChange[call % this.spec.onChange.length],
        stopHere ? "onChange" : undefined,
      );
    } finally {
      this.#inChange = false;
    }
  }

  async #onSyncComplete(count: number): Promise<void> {
    if (this.#stopResolved) {
      this.#violate("onSyncComplete after stop() resolved");
    }
    this.#inSync = true;
    this.record(`sync ${count}`);
    this.#world.hostCallback(this.spec.id);
    try {
      await this.#behave(
        this.spec.onSyncComplete,
        this.spec.selfStop?.in === "onSyncComplete"
          ? "onSyncComplete"
          : undefined,
      );
      this.record("sync done");
    } finally {
      this.#inSync = false;
      this.#syncSettled = true;
    }
  }

  async #behave(
    b: Behaviour,
    stopInside: "onChange" | "onSyncComplete" | undefined,
  ): Promise<void> {
    const world = this.#world;
    if (b.kind === "slow") {
      await new Promise<void>((r) => world.clock.setTimeout(r, b.ms));
    } else if (b.kind === "turns" || b.kind === "reject") {
      world.busy++;
      try {
        for (let i = b.kind === "turns" ? b.n : 1; i > 0; i--) await turn();
      } finally {
        world.busy--;
      }
    }
    if (stopInside) {
      this.record(`stop inside ${stopInside}`);
      this.#stopsInside++;
      const stopped = this.watcher.stop().then(() => {
        this.#stoppedInside++;
        world.count(`stopped inside ${stopInside}`);
        this.#resolved(stopInside);
      });
      if (AWAIT_STOP_INSIDE) await stopped;
    }
    if (b.kind === "throw" || b.kind === "reject") {
      this.record("throws");
      throw new Error(`${this.spec.id} fails on purpose`);
    }
  }
}

/** A batch as counts and the identities (with versions) of its objects. */
function describeBatch(batch: ChangeBatch): string {
  const ids = (objs: readonly KubeObject[]) => objs.map(identity).join(",");
  const { created, modified, deleted } = batch.objects;
  return `${batch.isInitialSync ? "initial " : ""}+${batch.created}[${
    ids(created)
  }] ~${batch.modified}[${
    modified.map((m) =>
      `${identity(m.previous)}>${m.current.metadata.resourceVersion}`
    ).join(",")
  }] -${batch.deleted}[${ids(deleted)}]`;
}

const WARNING = /^(indexBy|fieldSelector) path /;

/** One fake API server, client and clock, and the consumers in them. */
class World {
  readonly clock = new StepClock();
  readonly server = new FakeApiServer({ clock: this.clock });
  readonly logger = new RecordingLogger();
  readonly consumers = new Map<string, Live>();
  readonly problems: string[] = [];
  readonly coverage: Record<string, number> = {};
  readonly warnings: Set<string>[] = [];
  step = 0;
  /** Callbacks waiting for event-loop turns. */
  busy = 0;
  #fetch = mockFetch(this.server);
  #inner = new FetchClient({ server: this.server.url });
  readonly client: RestClient;
  #holding = false;
  #held = new Set<() => void>();
  #forbidden = new Set<string>();
  #joinDuring: { host: string; id: string } | undefined;
  #logged = 0;

  constructor(specs: readonly ConsumerSpec[], alone: boolean) {
    this.client = {
      performRequest: (opts: RequestOptions) => this.#request(opts),
    } as unknown as RestClient;
    for (const spec of specs) {
      const live = new Live(this, spec);
      live.build(this.client, alone);
      this.consumers.set(spec.id, live);
    }
  }

  count(what: string): void {
    this.coverage[what] = (this.coverage[what] ?? 0) + 1;
  }

  async #request(opts: RequestOptions): Promise<unknown> {
    const ns = /\/namespaces\/([^/]+)\//.exec(opts.path)?.[1];
    if (ns !== undefined && this.#forbidden.has(ns)) {
      throw new ApiError({
        code: 403,
        status: {
          reason: "Forbidden",
          message: `configmaps is forbidden in namespace ${ns}`,
        },
      });
    }
    if (this.#holding && opts.querystring?.has("continue")) {
      this.count("held continue");
      await new Promise<void>((resolve, reject) => {
        const release = () => resolve();
        this.#held.add(release);
        opts.abortSignal?.addEventListener("abort", () => {
          this.#held.delete(release);
          reject(opts.abortSignal!.reason);
        }, { once: true });
      });
    }
    return this.#inner.performRequest(opts as never);
  }

  /** A consumer's callback began: start the one waiting for it, if any. */
  hostCallback(host: string): void {
    const waiting = this.#joinDuring;
    if (waiting?.host !== host) return;
    this.#joinDuring = undefined;
    this.count("started inside a callback");
    this.consumers.get(waiting.id)!.start();
  }

  #fingerprint(): string {
    let logs = this.logger.records.length;
    for (const c of this.consumers.values()) logs += c.log.length;
    return `${this.server.requests.length} ${this.server.openWatchCount} ${this.clock.pendingTimers} ${this.#held.size} ${logs}`;
  }

  /** Runs until nothing moves: no promise chain, no callback's turns. */
  async quiesce(): Promise<void> {
    let last = this.#fingerprint();
    let quiet = 0;
    for (let i = 0; i < MAX_QUIESCE_TURNS; i++) {
      await turn();
      const now = this.#fingerprint();
      if (now === last && this.busy === 0) {
        if (++quiet >= 3) return;
      } else {
        quiet = 0;
        last = now;
      }
    }
    throw new Error(`world did not come to rest at step ${this.step}`);
  }

  /** Moves the clock by `ms`, resting after every timer. */
  async advance(ms: number): Promise<void> {
    const target = this.clock.now() + ms;
    while (this.clock.fireNext(target)) await this.quiesce();
    this.clock.moveTo(target);
  }

  #apply(m: Mutation): void {
    const { namespace, name } = m;
    if ([...this.consumers.values()].some((c) => c.inSync)) {
      this.count("write during an onSyncComplete");
    }
    if (this.#forbidden.size > 0) {
      this.count("write while a namespace is forbidden");
    }
    if (m.op === "delete") {
      this.server.delete(CONFIGMAPS, namespace, name);
      return;
    }
    const labels = m.team === undefined ? undefined : { team: m.team };
    const data: Record<string, string> = { v: String(m.v) };
    if (m.tier !== undefined) data.tier = m.tier;
    if (m.op === "create") {
      this.server.create(CONFIGMAPS, {
        metadata: { namespace, name, ...(labels ? { labels } : {}) },
        data,
      } as KubeObject);
    } else {
      const current = this.server.get(CONFIGMAPS, namespace, name);
      const metadata = { ...current.metadata };
      if (labels) metadata.labels = labels;
      else delete metadata.labels;
      this.server.update(CONFIGMAPS, { ...current, metadata, data } as never);
    }
  }

  #relist(): void {
    // A write elsewhere, then a compaction: every watch resumes from a
    // version older than the newest, so every loop relists.
    this.server.create("secrets", {
      metadata: { namespace: "z", name: `bump-${this.clock.now()}` },
    });
    this.server.compactHistory();
    this.server.closeAllWatches();
  }

  async perform(action: Action): Promise<number> {
    const present = (id: string) => this.consumers.get(id);
    switch (action.kind) {
      case "start":
        for (const id of action.ids) present(id)?.start();
        if (this.#holding && this.#held.size > 0) {
          this.count("started while a list was held");
        }
        break;
      case "startDuring": {
        const joiner = present(action.id);
        if (joiner) this.#joinDuring = { host: action.host, id: action.id };
        this.#apply(action.mutation);
        await this.quiesce();
        if (this.#joinDuring !== undefined) {
          this.#joinDuring = undefined;
          joiner!.start();
        }
        break;
      }
      case "stop":
        present(action.id)?.stop();
        break;
      case "mutate":
        for (const m of action.mutations) {
          this.#apply(m);
          await this.quiesce();
        }
        break;
      case "wait":
        await this.advance(action.ms);
        return action.ms;
      case "closeWatches":
        this.server.closeAllWatches();
        break;
      case "relist":
        this.#relist();
        break;
      case "window":
        this.server.injectFault(action.fault);
        if (action.then === "relist") this.#relist();
        else this.server.closeAllWatches();
        break;
      case "forbid":
        if (action.on) {
          this.#forbidden.add(action.namespace);
          this.server.closeAllWatches();
        } else this.#forbidden.delete(action.namespace);
        break;
      case "hold":
        this.#holding = true;
        break;
      case "release": {
        if (action.expire) this.server.expireContinueTokens();
        this.#holding = false;
        const held = [...this.#held];
        this.#held.clear();
        for (const release of held) release();
        break;
      }
    }
    await this.quiesce();
    return 0;
  }

  #collectWarnings(): void {
    const records = this.logger.records;
    const set = this.warnings[this.step] ??= new Set();
    for (; this.#logged < records.length; this.#logged++) {
      const r = records[this.#logged];
      if (r.level === "warn" && WARNING.test(r.message)) set.add(r.message);
    }
  }

  async run(plan: Plan): Promise<WorldResult> {
    try {
      for (let i = 0; i < plan.steps.length; i++) {
        this.step = i;
        let waited = 0;
        for (const action of plan.steps[i].actions) {
          waited += await this.perform(action);
        }
        await this.advance(STEP_MS - waited);
        this.#collectWarnings();
      }
      // The end: one more quiet step, then what each consumer holds.
      this.step = plan.steps.length;
      await this.advance(STEP_MS);
      this.#collectWarnings();
    } catch (error) {
      this.problems.push(String(error));
    }
    const observed = new Map<string, Observed>();
    const objects = this.server.list(CONFIGMAPS);
    for (const [id, live] of this.consumers) {
      if (!live.started) continue;
      const health = live.watcher.health();
      observed.set(id, {
        log: live.log,
        store: (live.watcher.store.list() as KubeObject[]).map(identity).sort(),
        objects: health.objects,
        state: health.state,
        violations: live.violations,
        expected: health.state === "running"
          ? expectedStore(live.spec, objects)
          : undefined,
      });
    }
    await this.#close();
    for (const [id, live] of this.consumers) {
      if (live.unresolvedStopsInside > 0) {
        observed.get(id)?.violations.push(
          "stop() awaited inside a callback never resolved",
        );
      }
    }
    return {
      consumers: observed,
      warnings: this.warnings,
      problems: this.problems,
      coverage: this.coverage,
    };
  }

  /** Stops every consumer (bounded), checks nothing is left open. */
  async #close(): Promise<void> {
    this.step = -1;
    const stops = [...this.consumers.values()].filter((c) => c.started).map(
      (c) => {
        c.stop();
        return c.stopping ?? Promise.resolve();
      },
    );
    let done = false;
    void Promise.all(stops).then(() => done = true);
    for (let i = 0; i < 20 && !done; i++) {
      try {
        await this.advance(STEP_MS);
      } catch (error) {
        this.problems.push(String(error));
        break;
      }
    }
    if (!done) this.problems.push("stop() of every watcher did not resolve");
    else if (this.server.openWatchCount !== 0) {
      this.problems.push(`${this.server.openWatchCount} watch(es) left open`);
    }
    await this.server.close();
    this.#fetch[Symbol.dispose]();
  }
}

/** Runs the plan with `specs` in one world. */
export function runWorld(
  plan: Plan,
  specs: readonly ConsumerSpec[],
  alone: boolean,
): Promise<WorldResult> {
  return new World(specs, alone).run(plan);
}

// --- The oracle ------------------------------------------------------------

/** One way a consumer's shared life differed from its life alone. */
export interface Discrepancy {
  consumer: string | undefined;
  what: string;
}

/** Where two logs part, with a little context. */
function logDiff(shared: string[], alone: string[]): string | undefined {
  const n = Math.max(shared.length, alone.length);
  for (let i = 0; i < n; i++) {
    if (shared[i] !== alone[i]) {
      const from = Math.max(0, i - 2);
      const show = (log: string[]) =>
        log.slice(from, i + 3).map((e, k) =>
          `${from + k === i ? ">" : " "} ${e}`
        ).join("\n      ");
      return `logs part at entry ${i}:\n    shared:\n      ${
        show(shared)
      }\n    alone:\n      ${show(alone)}`;
    }
  }
  return undefined;
}

/**
 * Compares each consumer's shared life with its life alone, and checks
 * every world's invariants and convergence.
 */
export function compare(
  plan: Plan,
  shared: WorldResult,
  alone: ReadonlyMap<string, WorldResult>,
): Discrepancy[] {
  const out: Discrepancy[] = [];
  for (const p of shared.problems) {
    out.push({ consumer: undefined, what: `shared world: ${p}` });
  }
  for (const spec of plan.specs) {
    const id = spec.id;
    const world = alone.get(id)!;
    for (const p of world.problems) {
      out.push({ consumer: id, what: `alone world: ${p}` });
    }
    const s = shared.consumers.get(id);
    const a = world.consumers.get(id);
    if (!s || !a) {
      if (s || a) {
        out.push({
          consumer: id,
          what: `started ${s ? "shared" : "alone"} only`,
        });
      }
      continue;
    }
    for (const v of s.violations) {
      out.push({ consumer: id, what: `invariant (shared): ${v}` });
    }
    for (const v of a.violations) {
      out.push({ consumer: id, what: `invariant (alone): ${v}` });
    }
    const diff = logDiff(s.log, a.log);
    if (diff) out.push({ consumer: id, what: diff });
    if (s.store.join() !== a.store.join()) {
      out.push({
        consumer: id,
        what: `final store differs (${s.state}):\n    shared ${
          s.store.join(" ")
        }\n    alone  ${a.store.join(" ")}`,
      });
    }
    if (s.objects !== a.objects) {
      out.push({
        consumer: id,
        what: `health().objects ${s.objects} shared, ${a.objects} alone`,
      });
    }
    if (s.state !== a.state) {
      out.push({
        consumer: id,
        what: `state ${s.state} shared, ${a.state} alone`,
      });
    }
    for (const [where, o] of [["shared", s], ["alone", a]] as const) {
      if (o.expected && o.store.join() !== o.expected.join()) {
        out.push({
          consumer: id,
          what: `store (${where}) is not the server's state:\n    store    ${
            o.store.join(" ")
          }\n    expected ${o.expected.join(" ")}`,
        });
      }
    }
  }
  // Misconfiguration warnings, step by step: the shared world's are the
  // union of what each consumer alone logs (one logger serves a source's
  // consumers, so only the set can be compared). Not compared: a warning
  // that a field-selector path is absent, for consumers whose source keeps
  // only what their selector chose (a transform, or ignoreFields meeting
  // the selector's path): such a source keeps no unselected object to
  // look at when a consumer joins, by design (no extra fields are kept).
  const blind = new Set(
    plan.specs.filter(selectsOnlyAsSentModel).flatMap((s) =>
      s.selector!.paths.map((p) => `fieldSelector path ${p} `)
    ),
  );
  const comparable = (w: string) =>
    ![...blind].some((prefix) => w.startsWith(prefix));
  const steps = plan.steps.length + 1;
  for (let step = 0; step < steps; step++) {
    const union = new Set<string>();
    for (const world of alone.values()) {
      for (const w of world.warnings[step] ?? []) {
        if (comparable(w)) union.add(w);
      }
    }
    const got = new Set(
      [...shared.warnings[step] ?? []].filter(comparable),
    );
    const missing = [...union].filter((w) => !got.has(w));
    const extra = [...got].filter((w) => !union.has(w));
    if (missing.length || extra.length) {
      out.push({
        consumer: undefined,
        what: `warnings at s${step} differ:${
          missing.map((w) => `\n    only alone:  ${w}`).join("")
        }${extra.map((w) => `\n    only shared: ${w}`).join("")}`,
      });
    }
  }
  return out;
}

/** Runs a seed: the shared world, then each consumer alone. */
export async function runSeed(
  seed: number,
): Promise<
  { plan: Plan; discrepancies: Discrepancy[]; coverage: Record<string, number> }
> {
  const plan = makePlan(seed);
  const shared = await runWorld(plan, plan.specs, false);
  const alone = new Map<string, WorldResult>();
  for (const spec of plan.specs) {
    alone.set(spec.id, await runWorld(plan, [spec], true));
  }
  return {
    plan,
    discrepancies: compare(plan, shared, alone),
    coverage: shared.coverage,
  };
}

/** The failure message of a seed: what differed, the plan, the replay. */
export function report(
  plan: Plan,
  discrepancies: readonly Discrepancy[],
  replay: string,
): string {
  const lines = [
    `Seed ${plan.seed}: ${discrepancies.length} discrepanc${
      discrepancies.length === 1 ? "y" : "ies"
    }. Replay with:\n  ${replay}`,
    ...discrepancies.slice(0, 12).map((d) =>
      `- ${d.consumer ?? "all"}: ${d.what}`
    ),
    discrepancies.length > 12
      ? `  … and ${discrepancies.length - 12} more`
      : "",
    "Consumers:",
    ...plan.specs.map((s) => `  ${s.id}: ${describeSpec(s)}`),
    "Script:",
    ...plan.steps.map((s, i) => `  s${i}: ${describeStep(s)}`),
  ];
  return lines.filter((l) => l !== "").join("\n");
}
