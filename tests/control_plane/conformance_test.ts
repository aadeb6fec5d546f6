// FakeApiServer held against the real kube-apiserver: the same requests,
// through the same client, against both; each case reduces the answers to
// what a client or a test could notice, and the two must agree, or differ
// exactly as testing/CONFORMANCE.md says.
import assert from "node:assert/strict";
import { FetchClient } from "../../client/fetch_client.ts";
import {
  ConflictError,
  httpStatusOf,
  InvalidError,
} from "../../client/api_error.ts";
import type { JsonValue, RestClient } from "../../client/rest_client.ts";
import { ResourceClient } from "../../client/resource_client.ts";
import {
  runKubectl,
  startCluster,
} from "../../testing/kubectl/_kubectl_test.ts";
import type { FakeApiServer } from "../../testing/fake_api_server.ts";
import {
  controlPlaneMissing,
  ignoredWithout,
  kubectlMissing,
  requireAvailable,
} from "../requirements.ts";
import { eventually, sharedControlPlane } from "./_harness.ts";

const plane = sharedControlPlane({ watchCache: true });

/** One server under test, reached the same way for both. */
interface Target {
  name: "fake" | "real";
  client: FetchClient;
  /** A client whose token the server refuses. */
  unauthenticated: FetchClient;
  /** Makes the history before now unreadable (etcd compaction; the fake's). */
  compact(): Promise<void>;
  /** kubectl against it. */
  kubectl(
    ...args: string[]
  ): Promise<{ code: number; stdout: string; stderr: string }>;
  /** A folder for manifests. */
  dir: string;
  /** Serves the custom resource `gadgets.conformance.example.com` (`Gadget`). */
  serveGadgets(): Promise<void>;
  fake?: FakeApiServer;
}

type Json = Record<string, unknown>;

async function request(
  client: RestClient,
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE",
  path: string,
  options: {
    query?: Record<string, string>;
    body?: unknown;
    accept?: string;
    contentType?: string;
  } = {},
): Promise<{ code: number; body: Json }> {
  try {
    const body = await client.performRequest({
      method,
      path,
      querystring: new URLSearchParams(options.query ?? {}),
      bodyJson: options.body as JsonValue,
      accept: options.accept,
      contentType: options.contentType,
      expectJson: true,
    }) as Json;
    return { code: 200, body };
  } catch (error) {
    const status = (error as { status?: Json }).status ?? {};
    return { code: httpStatusOf(error)?.code ?? 0, body: status };
  }
}

/** The lines of a watch, until it ends or `until` says stop. */
async function watchLines(
  client: RestClient,
  path: string,
  query: Record<string, string>,
  until: (events: Json[]) => boolean = () => false,
  during?: () => Promise<unknown>,
): Promise<{ code: number; events: Json[] }> {
  const controller = new AbortController();
  // However the server answers, a case ends.
  const timer = setTimeout(() => controller.abort(), 15_000);
  let stream: ReadableStream<Uint8Array>;
  try {
    stream = await client.performRequest({
      method: "GET",
      path,
      querystring: new URLSearchParams({ watch: "1", ...query }),
      abortSignal: controller.signal,
      expectStream: true,
    });
  } catch (error) {
    clearTimeout(timer);
    return { code: httpStatusOf(error)?.code ?? 0, events: [] };
  }
  const events: Json[] = [];
  const writes = during?.();
  let partial = "";
  const decoder = new TextDecoder();
  try {
    for await (const chunk of stream) {
      const lines = (partial + decoder.decode(chunk, { stream: true })).split(
        "\n",
      );
      partial = lines.pop() ?? "";
      for (const line of lines) if (line.trim()) events.push(JSON.parse(line));
      if (until(events)) break;
    }
  } catch {
    // Aborted below, or the server closed it.
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
  await writes;
  return { code: 200, events };
}

/** What a Status body says, without its wording. */
function statusShape(body: Json): Json {
  const details = body.details as Json | undefined;
  return {
    kind: body.kind,
    apiVersion: body.apiVersion,
    status: body.status,
    reason: body.reason,
    code: body.code,
    ...(details && {
      details: {
        name: details.name,
        kind: details.kind,
        causes: (details.causes as Json[] | undefined)?.map((c) => c.field),
      },
    }),
  };
}

interface Case {
  name: string;
  run: (t: Target) => Promise<unknown>;
  /** When the two differ on purpose: what each answers (see CONFORMANCE.md). */
  differs?: { fake: unknown; real: unknown };
}

const CM = (ns: string) => `/api/v1/namespaces/${ns}/configmaps`;
const DEPLOY = (ns: string) => `/apis/apps/v1/namespaces/${ns}/deployments`;
const DEPLOYMENT = {
  metadata: { name: "web", labels: { app: "web" } },
  spec: {
    replicas: 1,
    selector: { matchLabels: { app: "web" } },
    template: {
      metadata: { labels: { app: "web" } },
      spec: { containers: [{ name: "web", image: "nginx:1" }] },
    },
  },
};

async function namespace(t: Target, name: string): Promise<string> {
  await request(t.client, "POST", "/api/v1/namespaces", {
    body: { metadata: { name } },
  });
  return name;
}

/** A custom resource the fake registers and the real server gets a CRD for. */
const GADGETS = {
  group: "conformance.example.com",
  version: "v1",
  resource: "gadgets",
  kind: "Gadget",
  namespaced: true,
};

function gadgetsCrd(): Json {
  return {
    metadata: { name: `${GADGETS.resource}.${GADGETS.group}` },
    spec: {
      group: GADGETS.group,
      names: {
        plural: GADGETS.resource,
        singular: "gadget",
        kind: GADGETS.kind,
        listKind: `${GADGETS.kind}List`,
      },
      scope: "Namespaced",
      versions: [{
        name: GADGETS.version,
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: "object",
            "x-kubernetes-preserve-unknown-fields": true,
          },
        },
      }],
    },
  };
}

/**
 * What a `ResourceClient` call came to: what `pick` keeps of its answer,
 * or the typed error's class, code, reason and causes' fields.
 */
async function outcome<T>(
  call: Promise<T>,
  pick: (answer: T) => unknown = () => "ok",
): Promise<unknown> {
  try {
    return { ok: pick(await call) };
  } catch (error) {
    return {
      error: (error as Error).name,
      code: httpStatusOf(error)?.code ?? null,
      reason: (error as { status?: Json }).status?.reason ?? null,
      ...(error instanceof InvalidError &&
        { causes: error.causes.map((c) => c.field) }),
      // A server-side apply's conflicts: one cause per field.
      ...(error instanceof ConflictError &&
        statusCauses(error) && { causes: statusCauses(error) }),
    };
  }
}

/** The causes of an error's Status, as `type field`, if it has any. */
function statusCauses(error: ConflictError): string[] | undefined {
  const causes = (error.status?.details as Json | undefined)?.causes;
  return Array.isArray(causes)
    ? causes.map((c: Json) => `${c.type ?? c.reason} ${c.field}`)
    : undefined;
}

type Obj = {
  apiVersion?: string;
  kind?: string;
  metadata: {
    name?: string;
    uid?: string;
    resourceVersion?: string;
    generation?: number;
    labels?: Record<string, string>;
    managedFields?: { manager?: string; operation?: string }[];
  };
  data?: Record<string, string>;
  spec?: Json & {
    replicas?: number;
    template?: { spec?: { containers?: { name: string }[] } };
  };
  status?: Json;
};

const CM_GVR = { group: "", version: "v1", resource: "configmaps" };
const DEPLOY_GVR = { group: "apps", version: "v1", resource: "deployments" };

const CASES: Case[] = [
  {
    name: "a create in a namespace that does not exist",
    async run(t) {
      const { code, body } = await request(
        t.client,
        "POST",
        CM("no-such-namespace"),
        {
          body: { metadata: { name: "a" } },
        },
      );
      return {
        code,
        reason: body.reason ?? null,
        details: (body.details as Json | undefined)?.kind ?? null,
      };
    },
    // Written down: the fake has no namespace lifecycle.
    differs: {
      fake: { code: 200, reason: null, details: null },
      real: { code: 404, reason: "NotFound", details: "namespaces" },
    },
  },
  {
    name:
      "a LIST names its kind and apiVersion; its items of a built-in type carry neither",
    async run(t) {
      const ns = await namespace(t, "c-list");
      await request(t.client, "POST", CM(ns), {
        body: { metadata: { name: "a" } },
      });
      const { body } = await request(t.client, "GET", CM(ns));
      const [item] = body.items as Json[];
      return {
        kind: body.kind,
        apiVersion: body.apiVersion,
        rv: typeof (body.metadata as Json).resourceVersion,
        itemKeys: Object.keys(item).sort(),
      };
    },
  },
  {
    name: "401 for a refused token",
    async run(t) {
      const { code, body } = await request(
        t.unauthenticated,
        "GET",
        "/api/v1/namespaces",
      );
      return { code, status: statusShape(body) };
    },
  },
  {
    name: "404 for a missing object, with its name and kind",
    async run(t) {
      const { code, body } = await request(
        t.client,
        "GET",
        `${CM("default")}/missing`,
      );
      return { code, status: statusShape(body) };
    },
  },
  {
    name:
      "409 AlreadyExists for a second create, 409 Conflict for a stale resourceVersion",
    async run(t) {
      const ns = await namespace(t, "c-conflict");
      const first = await request(t.client, "POST", CM(ns), {
        body: { metadata: { name: "a" } },
      });
      const again = await request(t.client, "POST", CM(ns), {
        body: { metadata: { name: "a" } },
      });
      await request(t.client, "PUT", `${CM(ns)}/a`, {
        body: { metadata: first.body.metadata, data: { v: "1" } },
      });
      const stale = await request(t.client, "PUT", `${CM(ns)}/a`, {
        body: { metadata: first.body.metadata, data: { v: "2" } },
      });
      return {
        again: { code: again.code, status: statusShape(again.body) },
        stale: { code: stale.code, status: statusShape(stale.body) },
      };
    },
  },
  {
    name: "422 Invalid for a bad name, naming the field",
    async run(t) {
      const { code, body } = await request(t.client, "POST", CM("default"), {
        body: { metadata: { name: "Not_Valid" } },
      });
      return { code, status: statusShape(body) };
    },
  },
  {
    name: "a continue token past a compaction is 410 Expired",
    async run(t) {
      const ns = await namespace(t, "c-continue");
      for (const name of ["a", "b", "c"]) {
        await request(t.client, "POST", CM(ns), {
          body: { metadata: { name } },
        });
      }
      const first = await request(t.client, "GET", CM(ns), {
        query: { limit: "1" },
      });
      await request(t.client, "POST", CM(ns), {
        body: { metadata: { name: "d" } },
      });
      await t.compact();
      const next = await request(t.client, "GET", CM(ns), {
        query: {
          limit: "1",
          continue: String((first.body.metadata as Json).continue),
        },
      });
      return { code: next.code, status: statusShape(next.body) };
    },
  },
  {
    name: "resourceVersion 0, NotOlderThan and Exact on a LIST",
    async run(t) {
      const ns = await namespace(t, "c-rv");
      const a = await request(t.client, "POST", CM(ns), {
        body: { metadata: { name: "a" } },
      });
      const rvA = String((a.body.metadata as Json).resourceVersion);
      await request(t.client, "POST", CM(ns), {
        body: { metadata: { name: "b" } },
      });
      const names = (r: { body: Json }) =>
        (r.body.items as Json[] | undefined)?.map((i) =>
          (i.metadata as Json).name
        );
      const any = await request(t.client, "GET", CM(ns), {
        query: { resourceVersion: "0" },
      });
      const notOlder = await request(t.client, "GET", CM(ns), {
        query: { resourceVersion: rvA, resourceVersionMatch: "NotOlderThan" },
      });
      const exact = await request(t.client, "GET", CM(ns), {
        query: { resourceVersion: rvA, resourceVersionMatch: "Exact" },
      });
      const future = await request(t.client, "GET", CM(ns), {
        query: { resourceVersion: "999999999", resourceVersionMatch: "Exact" },
      });
      const noRv = await request(t.client, "GET", CM(ns), {
        query: { resourceVersionMatch: "Exact" },
      });
      return {
        // Any state the collection has had: kube-apiserver serves it from
        // its watch cache, which may not have the newest write yet.
        any: [[], ["a"], ["a", "b"]].some((state) =>
          JSON.stringify(state) === JSON.stringify(names(any))
        ),
        notOlder: names(notOlder),
        exact: {
          names: names(exact),
          rv: (exact.body.metadata as Json).resourceVersion === rvA,
        },
        future: { code: future.code, reason: future.body.reason },
        noRv: { code: noRv.code, reason: noRv.body.reason },
      };
    },
  },
  {
    name: "a watch from a compacted resourceVersion: 410 as an ERROR event",
    async run(t) {
      const ns = await namespace(t, "c-gone");
      const a = await request(t.client, "POST", CM(ns), {
        body: { metadata: { name: "a" } },
      });
      await request(t.client, "PUT", `${CM(ns)}/a`, {
        body: { metadata: a.body.metadata, data: { v: "1" } },
      });
      await t.compact();
      const { code, events } = await watchLines(t.client, CM(ns), {
        resourceVersion: String((a.body.metadata as Json).resourceVersion),
        timeoutSeconds: "2",
      }, (e) => e.length > 0);
      return {
        code,
        first: events[0] &&
          {
            type: events[0].type,
            status: statusShape(events[0].object as Json),
          },
      };
    },
  },
  {
    name:
      "bookmarks: kind and apiVersion of the resource, metadata with only a resourceVersion",
    async run(t) {
      const ns = await namespace(t, "c-bookmark");
      const other = await namespace(t, "c-bookmark-other");
      const list = await request(t.client, "GET", CM(ns));
      // kube-apiserver sends a bookmark 2 s before the watch's deadline,
      // and only when the resource's resourceVersion moved on: a write in
      // another namespace.
      const { events } = await watchLines(
        t.client,
        CM(ns),
        {
          resourceVersion: String((list.body.metadata as Json).resourceVersion),
          allowWatchBookmarks: "true",
          timeoutSeconds: "3",
        },
        (e) => e.some((x) => x.type === "BOOKMARK"),
        () =>
          request(t.client, "POST", CM(other), {
            body: { metadata: { name: "x" } },
          }),
      );
      const bookmark = events.find((e) => e.type === "BOOKMARK")?.object as
        | Json
        | undefined;
      return {
        others: events.filter((e) => e.type !== "BOOKMARK").length,
        bookmark: bookmark && {
          kind: bookmark.kind,
          apiVersion: bookmark.apiVersion,
          metadata: Object.keys(bookmark.metadata as Json),
        },
      };
    },
  },
  {
    name:
      "sendInitialEvents: ADDED events, then a bookmark annotated k8s.io/initial-events-end",
    async run(t) {
      const ns = await namespace(t, "c-initial");
      for (const name of ["a", "b"]) {
        await request(t.client, "POST", CM(ns), {
          body: { metadata: { name } },
        });
      }
      const { events } = await watchLines(t.client, CM(ns), {
        sendInitialEvents: "true",
        resourceVersionMatch: "NotOlderThan",
        allowWatchBookmarks: "true",
        timeoutSeconds: "5",
      }, (e) => e.some((x) => x.type === "BOOKMARK"));
      return events.map((e) => {
        const o = e.object as Json;
        const m = o.metadata as Json;
        return e.type === "BOOKMARK"
          ? { type: e.type, kind: o.kind, annotations: m.annotations }
          : { type: e.type, kind: o.kind, name: m.name };
      });
    },
  },
  {
    name:
      "sendInitialEvents without allowWatchBookmarks: 200, and no event before the timeout",
    async run(t) {
      const { code, events } = await watchLines(t.client, CM("default"), {
        sendInitialEvents: "true",
        resourceVersionMatch: "NotOlderThan",
        timeoutSeconds: "2",
      });
      return { code, events: events.length };
    },
  },
  {
    name: "PartialObjectMetadata: a list and a watch of metadata only",
    async run(t) {
      const ns = await namespace(t, "c-meta");
      await request(t.client, "POST", CM(ns), {
        body: { metadata: { name: "a" }, data: { x: "y" } },
      });
      const { body } = await request(t.client, "GET", CM(ns), {
        accept:
          "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1",
      });
      const [item] = body.items as Json[];
      const watched = await watchLines(t.client, CM(ns), {
        resourceVersion: "0",
        timeoutSeconds: "2",
      }, (e) => e.length > 0);
      return {
        list: {
          kind: body.kind,
          apiVersion: body.apiVersion,
          item: {
            kind: item.kind,
            apiVersion: item.apiVersion,
            keys: Object.keys(item).sort(),
          },
        },
        singularOnList: (await request(t.client, "GET", CM(ns), {
          accept:
            "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1",
        })).code,
        fullWatchWithoutAccept: (watched.events[0]?.object as Json | undefined)
          ?.kind,
      };
    },
  },
  {
    name: "generation: 1 on create, bumped by spec, not by labels or /status",
    async run(t) {
      const ns = await namespace(t, "c-generation");
      const merge = "application/merge-patch+json";
      const gen = (r: { body: Json }) => (r.body.metadata as Json).generation;
      const created = await request(t.client, "POST", DEPLOY(ns), {
        body: DEPLOYMENT,
      });
      const labels = await request(t.client, "PATCH", `${DEPLOY(ns)}/web`, {
        body: { metadata: { labels: { tier: "x" } } },
        contentType: merge,
      });
      const status = await request(
        t.client,
        "PATCH",
        `${DEPLOY(ns)}/web/status`,
        {
          body: { status: { replicas: 1 } },
          contentType: merge,
        },
      );
      const spec = await request(t.client, "PATCH", `${DEPLOY(ns)}/web`, {
        body: { spec: { replicas: 2 } },
        contentType: merge,
      });
      const cm = await request(t.client, "POST", CM(ns), {
        body: { metadata: { name: "a" } },
      });
      return {
        created: gen(created),
        labels: gen(labels),
        status: gen(status),
        spec: gen(spec),
        configMap: gen(cm) ?? null,
      };
    },
  },
  {
    name: "managedFields on a created object",
    async run(t) {
      const ns = await namespace(t, "c-managed");
      const { body } = await request(t.client, "POST", CM(ns), {
        body: { metadata: { name: "a" }, data: { k: "v" } },
      });
      const fields = (body.metadata as Json).managedFields as
        | Json[]
        | undefined;
      return fields?.map((f) => ({
        operation: f.operation,
        fieldsType: f.fieldsType,
      })) ?? null;
    },
    // Written down: the fake does not track managedFields.
    differs: {
      fake: null,
      real: [{ operation: "Update", fieldsType: "FieldsV1" }],
    },
  },
  {
    name: "timeoutSeconds ends a quiet watch",
    async run(t) {
      const started = performance.now();
      const { code, events } = await watchLines(t.client, CM("default"), {
        timeoutSeconds: "1",
        resourceVersion: "0",
      });
      return {
        code,
        ended: performance.now() - started < 10_000,
        events: events.filter((e) => e.type !== "ADDED").length,
      };
    },
  },
  {
    name:
      "kubectl apply creates, then configures, then reports unchanged; get reads it back",
    async run(t) {
      const file = `${t.dir}/cm.json`;
      const manifest = (v: string) =>
        JSON.stringify({
          apiVersion: "v1",
          kind: "ConfigMap",
          metadata: { name: "applied", namespace: "default" },
          data: { v },
        });
      const out: string[] = [];
      for (const v of ["1", "2", "2"]) {
        await Deno.writeTextFile(file, manifest(v));
        const r = await t.kubectl("apply", "-f", file);
        out.push(
          r.code === 0 ? r.stdout.trim() : `exit ${r.code}: ${r.stderr.trim()}`,
        );
      }
      const get = await t.kubectl(
        "get",
        "configmap",
        "applied",
        "-n",
        "default",
        "-o",
        "jsonpath={.data.v}",
      );
      out.push(get.stdout);
      return out;
    },
  },
  {
    name:
      "dryRun=All: writes answer as if done and change nothing; another value is 422",
    async run(t) {
      const ns = await namespace(t, "c-dry-run");
      const dry = { dryRun: "All" };
      const merge = "application/merge-patch+json";
      const created = await request(t.client, "POST", CM(ns), {
        query: dry,
        body: { metadata: { name: "a" }, data: { v: "1" } },
      });
      const afterCreate = await request(t.client, "GET", `${CM(ns)}/a`);
      const stored = await request(t.client, "POST", CM(ns), {
        body: { metadata: { name: "a" }, data: { v: "1" } },
      });
      const meta = stored.body.metadata as Json;
      const updated = await request(t.client, "PUT", `${CM(ns)}/a`, {
        query: dry,
        body: { metadata: meta, data: { v: "2" } },
      });
      const patched = await request(t.client, "PATCH", `${CM(ns)}/a`, {
        query: dry,
        body: { data: { v: "3" } },
        contentType: merge,
      });
      const deleted = await request(t.client, "DELETE", `${CM(ns)}/a`, {
        query: dry,
      });
      const collection = await request(t.client, "DELETE", CM(ns), {
        query: dry,
      });
      const after = await request(t.client, "GET", `${CM(ns)}/a`);
      const wrong = await request(t.client, "POST", CM(ns), {
        query: { dryRun: "Some" },
        body: { metadata: { name: "b" } },
      });
      const sameRv = (r: { body: Json }) =>
        (r.body.metadata as Json).resourceVersion === meta.resourceVersion;
      return {
        created: {
          code: created.code,
          uid: typeof (created.body.metadata as Json).uid,
          resourceVersion: (created.body.metadata as Json).resourceVersion ??
            null,
          data: created.body.data,
        },
        afterCreate: afterCreate.code,
        updated: {
          code: updated.code,
          data: updated.body.data,
          sameRv: sameRv(updated),
        },
        patched: {
          code: patched.code,
          data: patched.body.data,
          sameRv: sameRv(patched),
        },
        deleted: { code: deleted.code, status: statusShape(deleted.body) },
        collection: (collection.body.items as Json[]).map((i) =>
          (i.metadata as Json).name
        ),
        after: { data: after.body.data, sameRv: sameRv(after) },
        wrong: { code: wrong.code, status: statusShape(wrong.body) },
      };
    },
  },
  {
    name:
      "DELETE answers a Status naming what it deleted; a Pod, or an object finalizers hold, answers the object",
    async run(t) {
      const ns = await namespace(t, "c-delete");
      const a = await request(t.client, "POST", CM(ns), {
        body: { metadata: { name: "a" } },
      });
      const deleted = await request(t.client, "DELETE", `${CM(ns)}/a`);
      await request(t.client, "POST", CM(ns), {
        body: { metadata: { name: "m" } },
      });
      const asMetadata = await request(t.client, "DELETE", `${CM(ns)}/m`, {
        accept: "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1",
      });
      await request(t.client, "POST", CM(ns), {
        body: { metadata: { name: "held", finalizers: ["example.com/hold"] } },
      });
      const held = await request(t.client, "DELETE", `${CM(ns)}/held`);
      await request(t.client, "POST", `/api/v1/namespaces/${ns}/pods`, {
        body: {
          metadata: { name: "p" },
          spec: { containers: [{ name: "c", image: "nginx:1" }] },
        },
      });
      const pod = await request(
        t.client,
        "DELETE",
        `/api/v1/namespaces/${ns}/pods/p`,
      );
      return {
        deleted: {
          code: deleted.code,
          status: statusShape(deleted.body),
          uid: (deleted.body.details as Json | undefined)?.uid ===
            (a.body.metadata as Json).uid,
        },
        asMetadata: asMetadata.body.kind,
        held: {
          kind: held.body.kind,
          marked: typeof (held.body.metadata as Json).deletionTimestamp,
        },
        pod: pod.body.kind,
      };
    },
  },
  {
    name: "a DELETE precondition that fails is 409 Conflict naming the kind",
    async run(t) {
      const ns = await namespace(t, "c-precondition");
      await request(t.client, "POST", CM(ns), {
        body: { metadata: { name: "a" } },
      });
      const stale = await request(t.client, "DELETE", `${CM(ns)}/a`, {
        body: { preconditions: { resourceVersion: "1" } },
      });
      const uid = await request(t.client, "DELETE", `${CM(ns)}/a`, {
        body: { preconditions: { uid: "not-its-uid" } },
      });
      return {
        stale: { code: stale.code, status: statusShape(stale.body) },
        uid: { code: uid.code, status: statusShape(uid.body) },
      };
    },
  },
  {
    name:
      "a body of another kind or apiVersion is 400 (422 from a patch); without either it is the URL's",
    async run(t) {
      const ns = await namespace(t, "c-kind");
      const post = (body: Json) => request(t.client, "POST", CM(ns), { body });
      const secret = await post({ kind: "Secret", metadata: { name: "a" } });
      const group = await post({
        apiVersion: "apps/v1",
        kind: "ConfigMap",
        metadata: { name: "b" },
      });
      const bare = await post({ metadata: { name: "c" } });
      const put = await request(t.client, "PUT", `${CM(ns)}/c`, {
        body: { kind: "Secret", apiVersion: "v1", metadata: { name: "c" } },
      });
      const patched = await request(t.client, "PATCH", `${CM(ns)}/c`, {
        body: { kind: "Secret" },
        contentType: "application/merge-patch+json",
      });
      return {
        secret: { code: secret.code, status: statusShape(secret.body) },
        group: { code: group.code, status: statusShape(group.body) },
        bare: { code: bare.code, kind: bare.body.kind },
        put: { code: put.code, status: statusShape(put.body) },
        patched: { code: patched.code, status: statusShape(patched.body) },
      };
    },
  },
  {
    name:
      "a custom resource's body must name its kind and apiVersion: 422 for another kind, 400 without; its LIST items keep both",
    async run(t) {
      await t.serveGadgets();
      const path =
        "/apis/conformance.example.com/v1/namespaces/default/gadgets";
      const post = (body: Json) => request(t.client, "POST", path, { body });
      const other = await post({
        apiVersion: "conformance.example.com/v1",
        kind: "Widget",
        metadata: { name: "a" },
      });
      const version = await post({
        apiVersion: "conformance.example.com/v2",
        kind: "Gadget",
        metadata: { name: "b" },
      });
      const bare = await post({ metadata: { name: "c" } });
      const right = await post({
        apiVersion: "conformance.example.com/v1",
        kind: "Gadget",
        metadata: { name: "d" },
      });
      // Stored as unstructured, a custom resource's LIST items keep both.
      const listed = await request(t.client, "GET", path);
      return {
        other: { code: other.code, status: statusShape(other.body) },
        version: { code: version.code, status: statusShape(version.body) },
        bare: { code: bare.code, status: statusShape(bare.body) },
        right: { code: right.code, kind: right.body.kind },
        itemKeys: (listed.body.items as Json[]).map((item) =>
          Object.keys(item).sort()
        ),
      };
    },
  },
  {
    name:
      "labels, annotation keys and ConfigMap and Secret data keys are validated (422); values of the wrong type are 400",
    async run(t) {
      const ns = await namespace(t, "c-validation");
      const SECRETS = `/api/v1/namespaces/${ns}/secrets`;
      const answer = async (path: string, body: Json) => {
        const { code, body: status } = await request(t.client, "POST", path, {
          body,
        });
        return { code, status: statusShape(status) };
      };
      const cm = (extra: Json, metadata: Json = {}) =>
        answer(CM(ns), { metadata: { name: "v", ...metadata }, ...extra });
      await request(t.client, "POST", CM(ns), {
        body: { metadata: { name: "ok" } },
      });
      const put = await request(t.client, "PUT", `${CM(ns)}/ok`, {
        body: { metadata: { name: "ok" }, data: { "a b": "x" } },
      });
      const patch = await request(t.client, "PATCH", `${CM(ns)}/ok`, {
        body: { metadata: { labels: { a: "-x" } } },
        contentType: "application/merge-patch+json",
      });
      return {
        labelValue: await cm({}, { labels: { a: "bad value" } }),
        longLabelValue: await cm({}, { labels: { a: "x".repeat(64) } }),
        labelKey: await cm({}, { labels: { "bad key": "x" } }),
        labelPrefix: await cm({}, { labels: { "Example.com/a": "x" } }),
        emptyLabelValue: (await cm({}, { labels: { a: "" } })).code,
        annotationKey: await cm({}, { annotations: { "a/b/c": "x" } }),
        labelNumber: await cm({}, { labels: { a: 1 } }),
        dataKey: await cm({ data: { "bad key": "x" } }),
        binaryDataKey: await cm({ binaryData: { "..": "eA==" } }),
        bothData: await cm({ data: { k: "x" }, binaryData: { k: "eA==" } }),
        dataNumber: await cm({ data: { k: 1 } }),
        dataNotMap: await cm({ data: "x" }),
        binaryNotBase64: await cm({ binaryData: { k: "x!" } }),
        several: await cm({ data: { "a b": "x" } }, {
          name: "w",
          labels: { a: "b c" },
        }),
        secretKey: await answer(SECRETS, {
          metadata: { name: "s" },
          data: { "bad key": "eA==" },
        }),
        secretStringDataKey: await answer(SECRETS, {
          metadata: { name: "s" },
          stringData: { "bad key": "x" },
        }),
        secretNotBase64: await answer(SECRETS, {
          metadata: { name: "s" },
          data: { k: "x!" },
        }),
        put: { code: put.code, status: statusShape(put.body) },
        patch: { code: patch.code, status: statusShape(patch.body) },
      };
    },
  },
  {
    name: "fields a built-in type does not have: see CONFORMANCE.md",
    async run(t) {
      const ns = await namespace(t, "c-unknown-fields");
      const { code, body } = await request(t.client, "POST", CM(ns), {
        body: {
          metadata: { name: "a", extra: "x" },
          data: { k: "v" },
          spec: { replicas: 1 },
        },
      });
      return {
        code,
        fields: Object.keys(body).sort(),
        metadataExtra: (body.metadata as Json).extra ?? null,
      };
    },
    // Written down: pruning needs every built-in type's schema.
    differs: {
      fake: {
        code: 200,
        fields: ["apiVersion", "data", "kind", "metadata", "spec"],
        metadataExtra: "x",
      },
      real: {
        code: 200,
        fields: ["apiVersion", "data", "kind", "metadata"],
        metadataExtra: null,
      },
    },
  },
  {
    name: "validation of other fields of a built-in type: see CONFORMANCE.md",
    async run(t) {
      const ns = await namespace(t, "c-pod-validation");
      const { code, body } = await request(
        t.client,
        "POST",
        `/api/v1/namespaces/${ns}/pods`,
        { body: { metadata: { name: "empty" }, spec: {} } },
      );
      return { code, reason: body.reason ?? null };
    },
    // Written down: the fake validates names, labels, annotation keys and
    // data keys only.
    differs: {
      fake: { code: 200, reason: null },
      real: { code: 422, reason: "Invalid" },
    },
  },
  {
    name:
      "a LIST page says how many items remain, unless a selector is given; limit=-1 is no limit",
    async run(t) {
      const ns = await namespace(t, "c-remaining");
      for (const name of ["a", "b", "c"]) {
        await request(t.client, "POST", CM(ns), {
          body: { metadata: { name, labels: { all: "yes" } } },
        });
      }
      const page = async (query: Record<string, string>) => {
        const { code, body } = await request(t.client, "GET", CM(ns), {
          query,
        });
        const metadata = (body.metadata ?? {}) as Json;
        return {
          code,
          names: (body.items as Json[] | undefined)?.map((i) =>
            (i.metadata as Json).name
          ),
          remaining: metadata.remainingItemCount ?? null,
          more: typeof metadata.continue === "string",
          reason: body.reason ?? null,
          continue: metadata.continue as string | undefined,
        };
      };
      const first = await page({ limit: "1" });
      const second = await page({ limit: "1", continue: first.continue! });
      const last = await page({ limit: "1", continue: second.continue! });
      const shape = ({ continue: _, ...rest }: typeof first) => rest;
      return {
        pages: [first, second, last].map(shape),
        selected: shape(await page({ limit: "1", labelSelector: "all=yes" })),
        whole: shape(await page({ limit: "3" })),
        negative: shape(await page({ limit: "-1" })),
        notANumber: shape(await page({ limit: "ten" })),
      };
    },
  },
  {
    name:
      "ResourceClient: create, get, replace, patch (merge, JSON, strategic) and delete with preconditions, with typed errors",
    async run(t) {
      const ns = await namespace(t, "c-resource-client");
      const cms = new ResourceClient<Obj>({
        client: t.client,
        gvr: CM_GVR,
        namespace: ns,
      });
      const deployments = new ResourceClient<Obj>({
        client: t.client,
        gvr: DEPLOY_GVR,
        namespace: ns,
      });
      const made = await cms.create({
        metadata: { name: "a", labels: { app: "x" } },
        data: { k: "v" },
      });
      const containers = (d: Obj) =>
        d.spec?.template?.spec?.containers?.map((c) => c.name);
      await deployments.create(DEPLOYMENT as Obj);
      return {
        created: {
          kind: made.kind,
          data: made.data,
          uid: typeof made.metadata.uid,
          resourceVersion: typeof made.metadata.resourceVersion,
        },
        taken: await outcome(cms.create({ metadata: { name: "a" } })),
        got: await outcome(cms.get("a"), (cm) => cm.data),
        missing: await outcome(cms.get("nope")),
        replaced: await outcome(
          cms.replace({ ...made, data: { k: "w" } }),
          (cm) => cm.data,
        ),
        stale: await outcome(cms.replace({ ...made, data: { k: "z" } })),
        merged: await outcome(
          cms.patch("a", {
            data: { m: "1" },
            metadata: { labels: { app: null } },
          }),
          (cm) => ({ data: cm.data, labels: cm.metadata.labels?.app ?? null }),
        ),
        json: await outcome(
          cms.patch("a", [{ op: "add", path: "/data/j", value: "2" }], {
            type: "json",
          }),
          (cm) => cm.data,
        ),
        jsonTestFails: await outcome(
          cms.patch("a", [{ op: "test", path: "/data/k", value: "no" }], {
            type: "json",
          }),
        ),
        patchMissing: await outcome(cms.patch("nope", { data: { a: "b" } })),
        invalid: await outcome(
          cms.create({
            metadata: { name: "Bad_Name", labels: { "bad key": "x" } },
          }),
        ),
        strategic: await outcome(
          deployments.patch("web", {
            spec: {
              template: {
                spec: { containers: [{ name: "sidecar", image: "busybox:1" }] },
              },
            },
          }, { type: "strategic" }),
          containers,
        ),
        mergeReplacesList: await outcome(
          deployments.patch("web", {
            spec: {
              template: {
                spec: { containers: [{ name: "only", image: "busybox:1" }] },
              },
            },
          }),
          containers,
        ),
        strategicAdds: await outcome(
          deployments.patch("web", {
            spec: {
              template: {
                spec: { containers: [{ name: "b", image: "busybox:1" }] },
              },
            },
          }, { type: "strategic" }),
          containers,
        ),
        strategicReorders: await outcome(
          deployments.patch("web", {
            spec: {
              template: {
                spec: { containers: [{ name: "only" }, { name: "b" }] },
              },
            },
          }, { type: "strategic" }),
          containers,
        ),
        staleDelete: await outcome(
          cms.delete("a", {
            preconditions: { resourceVersion: made.metadata.resourceVersion },
          }),
        ),
        wrongUid: await outcome(
          cms.delete("a", { preconditions: { uid: "not-its-uid" } }),
        ),
        deleted: await outcome(
          cms.delete("a", { preconditions: { uid: made.metadata.uid } }),
          (answer) => answer ?? "gone",
        ),
        deleteMissing: await outcome(cms.delete("a")),
      };
    },
  },
  {
    name:
      "ResourceClient: server-side apply creates, merges, 409s another manager's field, takes it with force, removes what a manager stops applying",
    async run(t) {
      const ns = await namespace(t, "c-apply");
      const cms = new ResourceClient<Obj>({
        client: t.client,
        gvr: CM_GVR,
        namespace: ns,
      });
      const config = (data: Record<string, string>) => ({
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "ap" },
        data,
      });
      const managers = (cm: Obj) =>
        (cm.metadata.managedFields ?? []).map((f) =>
          `${f.manager}:${f.operation}`
        ).sort();
      const data = (cm: Obj) => cm.data ?? null;
      return {
        created: await outcome(
          cms.apply(config({ a: "1", b: "2" }), { fieldManager: "one" }),
          (cm) => ({ data: data(cm), managers: managers(cm) }),
        ),
        same: await outcome(
          cms.apply(config({ a: "1" }), { fieldManager: "two" }),
          (cm) => ({ data: data(cm), managers: managers(cm) }),
        ),
        conflict: await outcome(
          cms.apply(config({ a: "9" }), { fieldManager: "three" }),
        ),
        forced: await outcome(
          cms.apply(config({ a: "9" }), { fieldManager: "three", force: true }),
          (cm) => ({ data: data(cm), managers: managers(cm) }),
        ),
        // "one" stops applying b (it owned it alone) and a (now three's).
        dropped: await outcome(
          cms.apply(config({}), { fieldManager: "one" }),
          (cm) => ({ data: data(cm), managers: managers(cm) }),
        ),
        dryRun: await outcome(
          cms.apply(config({ a: "9", c: "3" }), {
            fieldManager: "three",
            dryRun: true,
          }),
          data,
        ),
        after: await outcome(cms.get("ap"), data),
        invalid: await outcome(
          cms.apply(config({ "bad key": "1" }), { fieldManager: "four" }),
        ),
      };
    },
  },
  {
    name:
      "ResourceClient: the status subresource writes status only; the object's writes leave status alone",
    async run(t) {
      const ns = await namespace(t, "c-status");
      const deployments = new ResourceClient<Obj>({
        client: t.client,
        gvr: DEPLOY_GVR,
        namespace: ns,
      });
      const made = await deployments.create(DEPLOYMENT as Obj);
      const shape = (d: Obj) => ({
        replicas: d.spec?.replicas ?? null,
        generation: d.metadata.generation ?? null,
        status: {
          observedGeneration: d.status?.observedGeneration ?? null,
          replicas: d.status?.replicas ?? null,
          readyReplicas: d.status?.readyReplicas ?? null,
        },
      });
      return {
        replaced: await outcome(
          deployments.replaceStatus({
            ...made,
            spec: { ...made.spec, replicas: 9 },
            status: { observedGeneration: 1, replicas: 1 },
          }),
          shape,
        ),
        patched: await outcome(
          deployments.patchStatus("web", {
            spec: { replicas: 7 },
            status: { replicas: 2 },
          }),
          shape,
        ),
        applied: await outcome(
          deployments.applyStatus({
            apiVersion: "apps/v1",
            kind: "Deployment",
            metadata: { name: "web" },
            status: { readyReplicas: 1 },
          }, { fieldManager: "status-writer" }),
          shape,
        ),
        read: await outcome(deployments.getStatus("web"), shape),
        objectWrite: await outcome(
          deployments.patch("web", { status: { replicas: 5 } }),
          shape,
        ),
        stale: await outcome(
          deployments.replaceStatus({ ...made, status: { replicas: 3 } }),
        ),
        missing: await outcome(
          deployments.patchStatus("nope", { status: { replicas: 1 } }),
        ),
      };
    },
  },
  {
    name:
      "events.k8s.io/v1 Events: what a create must carry (422 naming each field), and a series written by a patch",
    async run(t) {
      const ns = await namespace(t, "c-events");
      const path = `/apis/events.k8s.io/v1/namespaces/${ns}/events`;
      const valid = {
        metadata: { name: "e" },
        eventTime: "2026-01-01T12:00:00.000000Z",
        type: "Normal",
        reason: "Checked",
        action: "Checking",
        reportingController: "example.com/checker",
        reportingInstance: "checker-0",
        regarding: {
          apiVersion: "v1",
          kind: "ConfigMap",
          name: "a",
          namespace: ns,
        },
        note: "fine",
      };
      const post = async (body: Json) => {
        const r = await request(t.client, "POST", path, { body });
        const causes = ((r.body.details as Json | undefined)?.causes as
          | Json[]
          | undefined)?.map((c) => c.field).sort();
        return { code: r.code, causes: causes ?? null };
      };
      const without = (...fields: string[]) =>
        post(Object.fromEntries(
          Object.entries({
            ...valid,
            metadata: {
              name: fields.join("-").toLowerCase().replace(/[^a-z-]/g, ""),
            },
          })
            .filter(([k]) => !fields.includes(k)),
        ));
      const created = await post(valid);
      const patched = await request(t.client, "PATCH", `${path}/e`, {
        body: {
          series: { count: 2, lastObservedTime: "2026-01-01T12:01:00.000000Z" },
        },
        contentType: "application/merge-patch+json",
      });
      return {
        created,
        patched: { code: patched.code, series: patched.body.series ?? null },
        bare: await without(
          "eventTime",
          "type",
          "reason",
          "action",
          "reportingController",
          "reportingInstance",
        ),
        noReporter: await without(
          "reason",
          "action",
          "reportingController",
          "reportingInstance",
        ),
        noRegarding: await without("regarding"),
        badController: await post({
          ...valid,
          metadata: { name: "bad-controller" },
          reportingController: "Not A Name",
        }),
        long: await post({
          ...valid,
          metadata: { name: "long" },
          reason: "R".repeat(129),
          action: "A".repeat(129),
          reportingInstance: "i".repeat(129),
          note: "é".repeat(513),
        }),
        noteAtLimit: await post({
          ...valid,
          metadata: { name: "note-at-limit" },
          note: "é".repeat(512),
        }),
        seriesOfOne: await post({
          ...valid,
          metadata: { name: "series-of-one" },
          series: { count: 1, lastObservedTime: valid.eventTime },
        }),
        otherNamespace: await post({
          ...valid,
          metadata: { name: "other-namespace" },
          regarding: { ...valid.regarding, namespace: "elsewhere" },
        }),
      };
    },
  },
];

Deno.test({
  name:
    "FakeApiServer and kube-apiserver answer the conformance cases alike, or differ as written down",
  ignore: ignoredWithout(controlPlaneMissing ?? kubectlMissing),
  async fn(t) {
    requireAvailable(controlPlaneMissing ?? kubectlMissing);
    const p = await plane();
    await using cluster = await startCluster(
      { token: "conformance" },
      "conformance",
    );
    // kubectl reaches the fake over HTTPS (it sends tokens only there);
    // FetchClient over a plain HTTP listener of the same server (the test
    // certificate is its own CA, which rustls refuses as a server's).
    const listener = await cluster.server.listen();
    using fakeClient = new FetchClient({
      server: listener.url,
      token: "conformance",
    });
    using fakeRefused = new FetchClient({
      server: listener.url,
      token: "wrong",
    });
    using realClient = p.client();
    using realRefused = new FetchClient({
      server: p.url,
      token: "wrong",
      caData: p.caPem,
    });
    const targets: Target[] = [
      {
        name: "fake",
        client: fakeClient,
        unauthenticated: fakeRefused,
        compact: () => Promise.resolve(cluster.server.compactHistory()),
        kubectl: (...args) => runKubectl(cluster, ...args),
        dir: cluster.dir,
        serveGadgets: () => {
          cluster.server.registerResource(GADGETS);
          return Promise.resolve();
        },
        fake: cluster.server,
      },
      {
        name: "real",
        client: realClient,
        unauthenticated: realRefused,
        // The watch cache serves old resourceVersions from memory: a
        // restart starts it at the current revision, as compaction does
        // for etcd.
        compact: async () => {
          await p.compact();
          await p.restartApiServer();
        },
        kubectl: async (...args) => {
          const r = await p.kubectlWith({ args });
          return { code: r.code, stdout: r.stdout, stderr: r.stderr };
        },
        dir: p.dir,
        serveGadgets: async () => {
          const crd = await request(
            realClient,
            "POST",
            "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
            { body: gadgetsCrd() },
          );
          assert.equal(crd.code, 200, JSON.stringify(crd.body));
          await p.kubectl(
            "wait",
            "--for=condition=Established",
            `crd/${GADGETS.resource}.${GADGETS.group}`,
            "--timeout=30s",
          );
          // Established comes a moment before the handler serves it.
          await eventually(
            async () =>
              (await request(
                realClient,
                "GET",
                `/apis/${GADGETS.group}/v1/gadgets`,
              )).code === 200,
            "the gadgets resource is not served",
          );
        },
      },
    ];
    for (const c of CASES) {
      await t.step(c.name, async () => {
        const [fake, real] = [await c.run(targets[0]), await c.run(targets[1])];
        if (c.differs) {
          assert.deepEqual({ fake, real }, c.differs);
        } else {
          assert.deepEqual(
            fake,
            real,
            `fake: ${JSON.stringify(fake)}\nreal: ${JSON.stringify(real)}`,
          );
        }
      });
    }
  },
});
