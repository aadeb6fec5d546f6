import type { ObjectFilter } from "./_object_filter.ts";
import {
  filterOf,
  forbidden,
  nonNegativeInt,
  type ResourceRoute,
  resourceVersionParam,
  type ServerCore,
  type StreamSignals,
  TRUE,
} from "./_request_util.ts";
import { invalid, type StatusCause, tooLarge, tooOld } from "./_status.ts";
import { asPartialObjectMetadata } from "../_internal/_objects.ts";
import type { KubeObject } from "../types.ts";
import type { OutputForm } from "./_media_type.ts";
import {
  includeObjectParam,
  TABLE_CONTENT_TYPE,
  toTable,
} from "./kubectl/_table.ts";
import { INITIAL_EVENTS_END, ServerWatch } from "./_watch.ts";
import { FakeApiError } from "./fake_api_error.ts";
import type { WatchTap } from "./reactor.ts";

export function watch(
  core: ServerCore,
  route: ResourceRoute,
  q: URLSearchParams,
  signals: StreamSignals,
  tap: WatchTap | undefined,
  form: OutputForm,
): Response {
  const info = route.info;
  const store = core.store;
  const match = q.get("resourceVersionMatch") ?? "";
  const sieParam = q.get("sendInitialEvents");
  const sendInitialEvents = sieParam === null ? undefined : TRUE.has(sieParam);
  // ValidateListOptions, watch branch, as of Kubernetes 1.27+.
  const causes: Required<StatusCause>[] = [];
  if (sendInitialEvents !== undefined) {
    if (match !== "NotOlderThan") {
      causes.push(forbidden(
        "resourceVersionMatch",
        "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan",
      ));
    }
    if (!core.supportsWatchList) {
      causes.push(forbidden(
        "sendInitialEvents",
        "sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled",
      ));
    }
  }
  if (match) {
    if (sendInitialEvents === undefined) {
      causes.push(forbidden(
        "resourceVersionMatch",
        "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided",
      ));
    }
    if (match !== "NotOlderThan") {
      causes.push({
        reason: "FieldValueNotSupported",
        field: "resourceVersionMatch",
        message:
          `Unsupported value: "${match}": supported values: "NotOlderThan"`,
      });
    }
  }
  if (causes.length > 0) {
    throw new FakeApiError(invalid("ListOptions", "meta.k8s.io", "", causes));
  }

  const filter = filterOf(info, q, core);
  const namespace = route.namespace ?? "";
  // A watch on a named object (the deprecated form) watches just that name.
  const named = route.name;
  const effectiveFilter: ObjectFilter = named === undefined ? filter : {
    everything: false,
    matches: (obj) => obj.metadata.name === named && filter.matches(obj),
  };
  const timeoutSeconds = nonNegativeInt(q, "timeoutSeconds");
  const allowBookmarks = TRUE.has(q.get("allowWatchBookmarks") ?? "");
  const rv = resourceVersionParam(q);
  const current = store.rv;
  const legacyInitial = sendInitialEvents === undefined && rv === undefined;
  const initial = sendInitialEvents === true || legacyInitial;
  // Servers with WatchList default such legacy watches to
  // sendInitialEvents=true, which brings the end bookmark along.
  const endBookmark = allowBookmarks &&
    (sendInitialEvents === true || (legacyInitial && core.supportsWatchList));
  const table = form.as === "Table";
  const include = includeObjectParam(q.get("includeObject"));
  const clock = core.clock;
  const metadataOnly = form.as === "PartialObjectMetadata";
  const gvr = `${info.group}/${info.version}/${info.resource}`;

  const watcher = new ServerWatch({
    info,
    gvrKey: gvr,
    namespace,
    filter: effectiveFilter,
    allowBookmarks,
    clock,
    bookmarkIntervalMs: core.bookmarkIntervalMs,
    timeoutMs: timeoutSeconds !== undefined && timeoutSeconds > 0
      ? timeoutSeconds * 1000
      : undefined,
    currentRv: () => store.rv,
    signal: signals.signal,
    closeSignal: signals.closeSignal,
    // A watch asked for PartialObjectMetadataList cannot convert single
    // objects; the API server then logs it and sends them unconverted.
    transform: form.as === "Table"
      ? (obj) => toTable([obj], clock.now(), include, {}, form.apiVersion)
      : form.as === "PartialObjectMetadata"
      ? (obj: KubeObject) => asPartialObjectMetadata(obj, form.apiVersion)
      : undefined,
    bookmarkType: metadataOnly
      ? { kind: "PartialObjectMetadata", apiVersion: form.apiVersion }
      : undefined,
    tap,
    onEnd: (w) => core.hub.remove(w),
  });
  core.hub.add(watcher);

  if (rv !== undefined && rv > current) {
    watcher.sendError(tooLarge(rv, current));
  } else if (initial) {
    const prefix = namespace ? `${namespace}/` : "";
    for (
      const [, obj] of store.snapshot(
        store.table(info),
        current,
        prefix,
        undefined,
      )
    ) {
      watcher.sendInitial(obj);
    }
    if (endBookmark) watcher.sendBookmark({ [INITIAL_EVENTS_END]: "true" });
  } else if (rv !== undefined) {
    if (!store.history.covers(rv)) {
      watcher.sendError(tooOld(rv, store.history.compactedThrough));
    } else {
      for (const entry of store.history.since(rv)) {
        if (entry.gvrKey === gvr) watcher.deliver(entry);
      }
    }
  }
  return new Response(watcher.stream, {
    headers: {
      "content-type": table ? TABLE_CONTENT_TYPE : "application/json",
    },
  });
}
