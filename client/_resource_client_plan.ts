/**
 * A `ResourceClient`'s options checked once, into one frozen plan; and
 * each call's options checked into the request's query before anything
 * is sent. The first wrong option is a `ResourceClientConfigError`.
 *
 * @module
 */
import type { Gvr } from "../types.ts";
import {
  countProblem,
  optionNamesProblem,
} from "../_internal/_option_checks.ts";
import type { RestClient } from "./rest_client.ts";
import { ResourceClientConfigError } from "./errors.ts";
import type {
  ApplyOptions,
  DeleteOptions,
  ListOptions,
  PatchOptions,
  PatchType,
  ResourceClientOptions,
  WriteOptions,
} from "./resource_client_options.ts";

/** Everything a resource client runs with. */
export interface ResourceClientPlan {
  readonly client: RestClient;
  readonly gvr: Readonly<Gvr>;
  readonly namespace: string;
}

const OPTIONS: Record<keyof ResourceClientOptions, true> = {
  client: true,
  gvr: true,
  namespace: true,
};
const GVR: Record<keyof Gvr, true> = {
  group: true,
  version: true,
  resource: true,
};

type Fail = (field: string, message: string) => never;

function failer(component: string): Fail {
  return (field, message) => {
    throw new ResourceClientConfigError(component, field, message);
  };
}

/** Checks `options`; throws the first problem, names the option. */
export function planResourceClient(
  options: ResourceClientOptions,
): ResourceClientPlan {
  const fail = failer("ResourceClient");
  if (options === null || typeof options !== "object") {
    fail("options", `must be an object, got ${String(options)}`);
  }
  const names = optionNamesProblem(
    { known: OPTIONS, value: options, type: "ResourceClient" },
    { known: GVR, value: options.gvr, type: "Gvr", prefix: "gvr." },
  );
  if (names) fail(names.field, names.message);
  const { client, gvr } = options;
  if (
    client === null || typeof client !== "object" ||
    typeof client.performRequest !== "function"
  ) {
    fail("client", "must be a RestClient (with performRequest)");
  }
  if (gvr === null || typeof gvr !== "object") {
    fail("gvr", `must be a Gvr object, got ${String(gvr)}`);
  }
  if (typeof gvr.group !== "string") {
    fail("gvr.group", `must be a string, got ${String(gvr.group)}`);
  }
  for (const field of ["version", "resource"] as const) {
    if (typeof gvr[field] !== "string" || gvr[field] === "") {
      fail(
        `gvr.${field}`,
        `must be a non-empty string, got ${JSON.stringify(gvr[field])}`,
      );
    }
  }
  const namespace = options.namespace ?? "";
  if (typeof namespace !== "string") {
    fail("namespace", `must be a string, got ${String(namespace)}`);
  }
  return Object.freeze({
    client,
    gvr: Object.freeze({
      group: gvr.group,
      version: gvr.version,
      resource: gvr.resource,
    }),
    namespace,
  });
}

/** The verbs, with the option names each takes. */
const CALL = { namespace: true, signal: true } as const;
const WRITE = { ...CALL, dryRun: true, fieldManager: true } as const;
const KNOWN = {
  get: CALL,
  list: {
    ...CALL,
    labelSelector: true,
    fieldSelector: true,
    limit: true,
    continue: true,
    resourceVersion: true,
  } satisfies Record<keyof ListOptions, true>,
  create: WRITE satisfies Record<keyof WriteOptions, true>,
  replace: WRITE,
  patch: { ...WRITE, type: true } satisfies Record<keyof PatchOptions, true>,
  apply: {
    ...CALL,
    fieldManager: true,
    force: true,
    dryRun: true,
  } satisfies Record<keyof ApplyOptions, true>,
  delete: {
    ...CALL,
    preconditions: true,
    propagationPolicy: true,
    gracePeriodSeconds: true,
    dryRun: true,
  } satisfies Record<keyof DeleteOptions, true>,
} as const;
const PRECONDITIONS = { uid: true, resourceVersion: true } as const;

/** A verb of the client, as its options are checked. */
export type Verb = keyof typeof KNOWN;

/** One call's checked options, ready to send. */
export interface CallPlan {
  /** The namespace the call names, if any. */
  readonly namespace: string | undefined;
  readonly signal: AbortSignal | undefined;
  readonly query: URLSearchParams;
  /** The patch's content type (patch and apply). */
  readonly contentType: string | undefined;
  /** A DELETE's body (`DeleteOptions`). */
  readonly body: Record<string, unknown> | undefined;
}

const PATCH_TYPES: Record<PatchType, string> = {
  merge: "application/merge-patch+json",
  json: "application/json-patch+json",
  strategic: "application/strategic-merge-patch+json",
};
const APPLY = "application/apply-patch+yaml";
const POLICIES = new Set(["Background", "Foreground", "Orphan"]);

/** Checks one call's options; `component` names it in errors. */
export function planCall(
  verb: Verb,
  component: string,
  options: Record<string, unknown> | undefined,
): CallPlan {
  const fail = failer(component);
  if (options === undefined) options = {};
  if (options === null || typeof options !== "object") {
    fail("options", `must be an object, got ${String(options)}`);
  }
  const names = optionNamesProblem(
    { known: KNOWN[verb], value: options, type: `${verb} options` },
    ...(verb === "delete"
      ? [{
        known: PRECONDITIONS,
        value: options.preconditions,
        type: "preconditions",
        prefix: "preconditions.",
      }]
      : []),
  );
  if (names) fail(names.field, names.message);
  const query = new URLSearchParams();
  const namespace = stringOption(options, "namespace", true, fail);
  const signal = options.signal;
  if (signal !== undefined && !(signal instanceof AbortSignal)) {
    fail("signal", "must be an AbortSignal");
  }
  const dryRun = options.dryRun;
  if (dryRun !== undefined && typeof dryRun !== "boolean") {
    fail("dryRun", `must be a boolean, got ${String(dryRun)}`);
  }
  if (dryRun) query.set("dryRun", "All");
  const fieldManager = stringOption(options, "fieldManager", false, fail);
  if (verb === "apply" && fieldManager === undefined) {
    fail(
      "fieldManager",
      "is required for a server-side apply (the manager that owns the applied fields)",
    );
  }
  if (fieldManager !== undefined) query.set("fieldManager", fieldManager);
  let contentType: string | undefined;
  let body: Record<string, unknown> | undefined;
  if (verb === "list") planListQuery(options, query, fail);
  else if (verb === "patch") contentType = patchContentType(options, fail);
  else if (verb === "apply") {
    contentType = APPLY;
    const force = options.force;
    if (force !== undefined && typeof force !== "boolean") {
      fail("force", `must be a boolean, got ${String(force)}`);
    }
    if (force) query.set("force", "true");
  } else if (verb === "delete") body = deleteOptionsBody(options, fail);
  return Object.freeze({
    namespace,
    signal: signal as AbortSignal | undefined,
    query,
    contentType,
    body,
  });
}

/** The string option `field` of `options`, if given; `""` only if allowed. */
function stringOption(
  options: Record<string, unknown>,
  field: string,
  allowEmpty: boolean,
  fail: Fail,
): string | undefined {
  const value = options[field];
  if (value === undefined) return undefined;
  if (typeof value !== "string" || (!allowEmpty && value === "")) {
    fail(
      field,
      `must be a${allowEmpty ? "" : " non-empty"} string, got ${
        JSON.stringify(value) ?? String(value)
      }`,
    );
  }
  return value as string;
}

/** A LIST's selectors, continue token, resourceVersion and limit. */
function planListQuery(
  options: Record<string, unknown>,
  query: URLSearchParams,
  fail: Fail,
): void {
  for (const field of ["labelSelector", "fieldSelector", "continue"]) {
    const value = stringOption(options, field, true, fail);
    if (value) query.set(field, value);
  }
  const rv = stringOption(options, "resourceVersion", true, fail);
  if (rv !== undefined) query.set("resourceVersion", rv);
  const limit = options.limit;
  if (limit !== undefined) {
    const wrong = countProblem(limit);
    if (wrong) fail("limit", wrong);
    query.set("limit", String(limit));
  }
}

/** A PATCH's content type, from its `type` (merge by default). */
function patchContentType(
  options: Record<string, unknown>,
  fail: Fail,
): string {
  const type = options.type ?? "merge";
  if (typeof type !== "string" || !Object.hasOwn(PATCH_TYPES, type)) {
    fail(
      "type",
      `must be "merge", "json" or "strategic", got ${
        JSON.stringify(type) ?? String(type)
      }`,
    );
  }
  return PATCH_TYPES[type as PatchType];
}

/** A DELETE's body: its preconditions, propagation policy and grace period. */
function deleteOptionsBody(
  options: Record<string, unknown>,
  fail: Fail,
): Record<string, unknown> {
  const body: Record<string, unknown> = {
    apiVersion: "v1",
    kind: "DeleteOptions",
  };
  const pre = options.preconditions as Record<string, unknown> | undefined;
  if (pre !== undefined) {
    if (pre === null || typeof pre !== "object") {
      fail("preconditions", `must be an object, got ${String(pre)}`);
    }
    const checked: Record<string, string> = {};
    for (const field of ["uid", "resourceVersion"]) {
      const value = pre[field];
      if (value === undefined) continue;
      if (typeof value !== "string" || value === "") {
        fail(
          `preconditions.${field}`,
          `must be a non-empty string, got ${
            JSON.stringify(value) ?? String(value)
          }`,
        );
      }
      checked[field] = value as string;
    }
    body.preconditions = checked;
  }
  const policy = options.propagationPolicy;
  if (policy !== undefined) {
    if (typeof policy !== "string" || !POLICIES.has(policy)) {
      fail(
        "propagationPolicy",
        `must be "Background", "Foreground" or "Orphan", got ${
          JSON.stringify(policy) ?? String(policy)
        }`,
      );
    }
    body.propagationPolicy = policy;
  }
  const grace = options.gracePeriodSeconds;
  if (grace !== undefined) {
    if (!Number.isSafeInteger(grace) || (grace as number) < 0) {
      fail(
        "gracePeriodSeconds",
        `must be a whole number of seconds, at least 0, got ${String(grace)}`,
      );
    }
    body.gracePeriodSeconds = grace;
  }
  return body;
}
