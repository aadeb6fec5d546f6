import type { Gvr, KubeObject, Logger } from "../types.ts";
import { type Clock, systemClock, type TimerHandle } from "../clock.ts";
import { silentLogger } from "../logger.ts";
import type { RestClient } from "../client/rest_client.ts";
import { collectionPath } from "../client/paths.ts";
import { readJsonLines } from "../client/json_lines.ts";
import { delay } from "../internal/delay.ts";
import { neverThrowingLogger } from "../internal/never_throwing_logger.ts";
import { Backoff, type BackoffOptions } from "./backoff.ts";
import {
  initialListWatchState,
  listWatchTransition,
} from "./list_watch_state.ts";
import type {
  InitialListMode,
  ListWatchCommand,
  ListWatchContext,
  ListWatchInput,
  ListWatchOutput,
  ListWatchState,
  ListWatchStep,
  WatchEventType,
} from "./list_watch_types.ts";
import { ListTimeoutError } from "./list_watch_errors.ts";

/**
 * What comes with every list handed to {@linkcode ListWatchSink.onList}.
 *
 * @example
 * ```ts
 * import type { ListInfo } from "@haptic/k8s-watcher";
 *
 * const info: ListInfo = { resourceVersion: "4711", initial: true };
 * ```
 */
export interface ListInfo {
  /** The resourceVersion of the list; watching continues from it. */
  readonly resourceVersion: string;
  /** True for the first list this loop delivers, false for relists. */
  readonly initial: boolean;
}

/**
 * The consumer of a {@linkcode ListWatch}: the watchers' store logic.
 *
 * Calls come one at a time, in server order, never overlapping. A method
 * may return a promise to apply back-pressure: the loop stops reading until
 * it settles. Returning nothing keeps the hot path synchronous, which is
 * what a watch flood wants. A method that throws (or rejects) is logged at
 * error level and the loop goes on; handle your own errors.
 *
 * After `run()` has resolved, no method is called any more.
 *
 * @example A sink that mirrors the collection in a Map
 * ```ts
 * import type { KubeObject, ListWatchSink } from "@haptic/k8s-watcher";
 *
 * const objects = new Map<string, KubeObject>();
 * const key = (o: KubeObject) => `${o.metadata.namespace}/${o.metadata.name}`;
 * const sink: ListWatchSink = {
 *   onList(list) {
 *     objects.clear();
 *     for (const o of list) objects.set(key(o), o);
 *   },
 *   onEvent(type, o) {
 *     if (type === "DELETED") objects.delete(key(o));
 *     else objects.set(key(o), o);
 *   },
 * };
 * ```
 */
export interface ListWatchSink {
  /**
   * A complete list: the initial one, then one per relist (after 410 Gone,
   * a too-large resourceVersion, …). Replace what you hold with it in one
   * step: objects missing from it were deleted while the loop was not
   * watching. The array is yours and is not touched again.
   */
  onList(objects: KubeObject[], info: ListInfo): void | Promise<void>;
  /** One watch event, after the list it follows. */
  onEvent(type: WatchEventType, object: KubeObject): void | Promise<void>;
  /**
   * Called for each listed object as its page arrives: return what to keep
   * of it (e.g. without ignored fields), or `undefined` to drop it. The list
   * handed to `onList` then holds these, and each raw page can be garbage
   * collected before the list is complete — at 100k objects that halves
   * the sync time. Objects of a streamed initial list (`initialList:
   * "stream"`) do not pass through it: they reach `onList` as received.
   */
  prepareListItem?(object: KubeObject): KubeObject | undefined;
  /** Objects received so far while paging through a list, once per page. */
  onProgress?(listedSoFar: number): void;
  /** A failure the loop is about to retry in `retryInMs`. */
  onError?(error: unknown, retryInMs: number): void;
}

/**
 * Options for {@linkcode ListWatch}.
 *
 * @example
 * ```ts
 * import type { ListWatchOptions } from "@haptic/k8s-watcher";
 *
 * const options: ListWatchOptions = {
 *   gvr: { group: "", version: "v1", resource: "secrets" },
 *   namespace: "haptic",
 *   fieldSelector: "metadata.name=credentials",
 * };
 * ```
 */
export interface ListWatchOptions {
  /** The resource to list and watch. */
  gvr: Gvr;
  /** One namespace, or `""`/absent for all namespaces (and cluster scope). */
  namespace?: string;
  /** Server-side label selector, e.g. `app=web,tier!=db`. */
  labelSelector?: string;
  /** Server-side field selector, e.g. `metadata.name=web`. */
  fieldSelector?: string;
  /** Objects per LIST page (`limit`). Defaults to 500. */
  pageSize?: number;
  /**
   * `"list"` (default) pages through LIST requests; `"stream"` gets the
   * initial list as watch events (`sendInitialEvents=true`) and falls back
   * to `"list"` for good when the server does not support it.
   */
  initialList?: InitialListMode;
  /**
   * How long a `"stream"` initial list may take to reach its end bookmark
   * before falling back to LIST, in milliseconds. Defaults to 60000.
   */
  initialStreamDeadlineMs?: number;
  /**
   * A watch that receives no bytes for this long (bookmarks count) is
   * aborted and resumed, in milliseconds. Defaults to 180000.
   */
  idleTimeoutMs?: number;
  /** Retry delays; the defaults are 800 ms doubling to 30 s. */
  backoff?: BackoffOptions;
  /** The longest watch line accepted, in bytes. Defaults to 64 MiB. */
  maxLineBytes?: number;
  /** Time source for every timer. Defaults to `systemClock`. */
  clock?: Clock;
  /** Where to log. Defaults to `silentLogger`. */
  logger?: Logger;
  /** Numbers in `[0, 1)` for timeouts and jitter. Defaults to `Math.random`. */
  random?: () => number;
}

/**
 * The last failure a {@linkcode ListWatch} retried.
 *
 * @example
 * ```ts
 * import type { ListWatchFailure } from "@haptic/k8s-watcher";
 *
 * function describe(failure: ListWatchFailure | undefined): string {
 *   return failure ? `${new Date(failure.time).toISOString()}: ${failure.error}` : "healthy";
 * }
 * ```
 */
export interface ListWatchFailure {
  /** What was thrown (an `ApiError` for HTTP answers and ERROR events). */
  readonly error: unknown;
  /** When, on the loop's clock. */
  readonly time: number;
}

/**
 * Where a {@linkcode ListWatch} is: `idle` before `run()`, the state
 * machine's phase while running, `stopped` after.
 *
 * @example
 * ```ts
 * import type { ListWatchPhase } from "@haptic/k8s-watcher";
 *
 * const phase: ListWatchPhase = "watching";
 * ```
 */
export type ListWatchPhase = ListWatchState["phase"] | "stopped";

const START: ListWatchInput = { type: "start" };
const WATCH_OPENED: ListWatchInput = { type: "watchOpened" };
const WATCH_ENDED: ListWatchInput = { type: "watchEnded" };
const BACKOFF_ELAPSED: ListWatchInput = { type: "backoffElapsed" };

/**
 * The list-then-watch loop both watchers share (what client-go calls a
 * reflector): it performs the I/O that {@linkcode listWatchTransition} asks for with
 * a {@linkcode RestClient} and hands lists and events to a
 * {@linkcode ListWatchSink}.
 *
 * - LIST pages of `pageSize`, following `continue`; the complete list goes
 *   to `onList` once. An expired continue token restarts with one full list.
 * - WATCH from the list's resourceVersion with bookmarks and a random
 *   `timeoutSeconds` in [300, 600]; every event's resourceVersion is kept,
 *   so a stream that ends resumes where it was, without a relist.
 * - 410 Gone (as a status or an ERROR event) relists; "too large resource
 *   version" relists without a resourceVersion.
 * - Other failures (429, 5xx, connection errors, undecodable lines, other
 *   ERROR events) are retried with {@linkcode Backoff}, honouring
 *   `Retry-After`. 401/403/404 on LIST are logged at error level with the
 *   URL and a hint, and kept retrying.
 * - A watch that receives no bytes for `idleTimeoutMs` is aborted and
 *   resumed.
 *
 * All parameters go in the query string, never in the path.
 *
 * @example Against a scripted client
 * ```ts
 * import { type KubeObject, ListWatch, type RestClient } from "@haptic/k8s-watcher";
 * import { FakeClock, waitFor } from "@haptic/k8s-watcher/testing";
 * import assert from "node:assert/strict";
 *
 * const list = { metadata: { resourceVersion: "5" }, items: [{ metadata: { name: "a" } }] };
 * const events = '{"type":"ADDED","object":{"metadata":{"name":"b","resourceVersion":"6"}}}\n';
 * const client = {
 *   performRequest(opts: { expectStream?: boolean; abortSignal?: AbortSignal }) {
 *     if (!opts.expectStream) return Promise.resolve(list);
 *     // One event, then a stream that stays open until aborted.
 *     return Promise.resolve(new ReadableStream({
 *       start(controller) {
 *         controller.enqueue(new TextEncoder().encode(events));
 *         opts.abortSignal?.addEventListener("abort", () => controller.error(opts.abortSignal?.reason));
 *       },
 *     }));
 *   },
 * } as unknown as RestClient;
 *
 * const seen: string[] = [];
 * const loop = new ListWatch(client, {
 *   onList: (objects: KubeObject[]) => { seen.push(...objects.map((o) => o.metadata.name!)); },
 *   onEvent: (type, object) => { seen.push(`${type} ${object.metadata.name}`); },
 * }, { gvr: { group: "", version: "v1", resource: "configmaps" }, clock: new FakeClock() });
 *
 * const controller = new AbortController();
 * const done = loop.run(controller.signal);
 * await waitFor(() => seen.length === 2);
 * assert.deepEqual(seen, ["a", "ADDED b"]);
 * assert.equal(loop.resourceVersion, "6");
 * controller.abort();
 * await done;
 * ```
 */
export class ListWatch {
  #client: RestClient;
  #sink: ListWatchSink;
  #path: string;
  #context: ListWatchContext;
  #clock: Clock;
  #logger: Logger;
  #backoff: Backoff;
  #idleTimeoutMs: number;
  #deadlineMs: number;
  #maxLineBytes: number | undefined;

  #state: ListWatchState;
  #signal: AbortSignal = new AbortController().signal;
  #running = false;
  #stopped = false;
  #synced = false;
  #knownResourceVersion: string | undefined;
  #lastError: ListWatchFailure | undefined;
  #lastEventTime: number | undefined;
  #relists = 0;
  #reconnects = 0;
  #events = 0;

  /**
   * Creates the loop; nothing happens until {@linkcode ListWatch.run}.
   *
   * @param client The Kubernetes client; never closed by the loop.
   * @param sink Receives lists and events.
   * @param options What to watch, and tuning.
   * @throws {TypeError} When `gvr.resource` or `gvr.version` is empty, or
   * `initialList` is neither `"list"` nor `"stream"`.
   * @throws {RangeError} When a size or duration is not a positive number.
   */
  constructor(
    client: RestClient,
    sink: ListWatchSink,
    options: ListWatchOptions,
  ) {
    const { gvr } = options;
    if (!gvr?.resource || !gvr.version) {
      throw new TypeError(
        `ListWatch needs gvr.version and gvr.resource, got ${
          JSON.stringify(gvr)
        }`,
      );
    }
    const initialList = options.initialList ?? "list";
    if (initialList !== "list" && initialList !== "stream") {
      throw new TypeError(
        `ListWatch initialList must be "list" or "stream", got ${
          JSON.stringify(initialList)
        }`,
      );
    }
    const pageSize = positive("pageSize", options.pageSize ?? 500);
    if (!Number.isInteger(pageSize)) {
      throw new RangeError(
        `ListWatch pageSize must be an integer, got ${pageSize}`,
      );
    }
    this.#idleTimeoutMs = positive(
      "idleTimeoutMs",
      options.idleTimeoutMs ?? 180_000,
    );
    this.#deadlineMs = positive(
      "initialStreamDeadlineMs",
      options.initialStreamDeadlineMs ?? 60_000,
    );
    this.#maxLineBytes = options.maxLineBytes === undefined
      ? undefined
      : positive("maxLineBytes", options.maxLineBytes);

    this.#client = client;
    this.#sink = sink;
    this.#path = collectionPath(gvr, options.namespace);
    const clock = this.#clock = options.clock ?? systemClock;
    this.#logger = neverThrowingLogger(options.logger ?? silentLogger);
    const random = options.random ?? Math.random;
    this.#backoff = new Backoff({ clock, random, ...options.backoff });
    this.#context = {
      path: this.#path,
      pageSize,
      labelSelector: options.labelSelector,
      fieldSelector: options.fieldSelector,
      random,
      now: () => clock.now(),
    };
    this.#state = initialListWatchState({ initialList });
  }

  /** `idle` before `run()`, the current phase while running, then `stopped`. */
  get phase(): ListWatchPhase {
    return this.#running || !this.#stopped ? this.#state.phase : "stopped";
  }

  /** Whether a first complete list has been delivered to the sink. */
  get synced(): boolean {
    return this.#synced;
  }

  /**
   * The resourceVersion the loop is at: of the latest event, bookmark or
   * list; `undefined` until the first list arrives.
   */
  get resourceVersion(): string | undefined {
    return resourceVersionOf(this.#state) ?? this.#knownResourceVersion;
  }

  /** The last failure that was retried, and when; kept after recovery. */
  get lastError(): ListWatchFailure | undefined {
    return this.#lastError;
  }

  /** When the latest watch event (bookmarks included) arrived. */
  get lastEventTime(): number | undefined {
    return this.#lastEventTime;
  }

  /** Lists delivered after the initial one. */
  get relists(): number {
    return this.#relists;
  }

  /** Watches resumed from an earlier resourceVersion (not from a list). */
  get reconnects(): number {
    return this.#reconnects;
  }

  /** ADDED, MODIFIED and DELETED events delivered to the sink. */
  get events(): number {
    return this.#events;
  }

  /**
   * Lists, then watches, until `signal` aborts. Transient faults are
   * retried, never thrown. When the promise resolves no timer is pending,
   * no request or stream is open and the sink is not called any more.
   *
   * Running again after a stop starts with a fresh list (and remembers a
   * fallback from `"stream"` to `"list"`).
   *
   * @param signal Stops the loop.
   * @throws {Error} When the loop is already running.
   */
  async run(signal: AbortSignal): Promise<void> {
    if (this.#running) throw new Error("ListWatch is already running");
    this.#running = true;
    this.#signal = signal;
    this.#state = initialListWatchState({
      initialList: this.#state.initialList,
      synced: this.#synced,
    });
    try {
      if (signal.aborted) return;
      let command = await this.#apply(
        listWatchTransition(this.#state, START, this.#context),
      );
      while (command !== undefined && !signal.aborted) {
        command = await this.#perform(command);
      }
      if (command === undefined && !signal.aborted) {
        // Only a bug in the state machine gets here.
        throw new Error(
          `ListWatch stalled in phase ${this.#state.phase} without a next step`,
        );
      }
    } finally {
      this.#remember(this.#state);
      this.#running = false;
      this.#stopped = true;
    }
  }

  #perform(
    command: ListWatchCommand,
  ): Promise<ListWatchCommand | undefined> {
    switch (command.type) {
      case "list":
        return this.#list(command.query);
      case "watch":
        return this.#watch(command);
      case "backoff":
        return this.#wait(command);
    }
  }

  async #list(query: URLSearchParams): Promise<ListWatchCommand | undefined> {
    const signal = this.#signal;
    // A page that never completes (a half-open connection) is abandoned
    // after the idle timeout, like a silent watch.
    const controller = new AbortController();
    const abortList = () => controller.abort(signal.reason);
    signal.addEventListener("abort", abortList, { once: true });
    const timeoutMs = this.#idleTimeoutMs;
    let timedOut = false;
    const timer = this.#clock.setTimeout(() => {
      timedOut = true;
      controller.abort(new ListTimeoutError(this.#path, timeoutMs));
    }, timeoutMs);
    let list: unknown;
    try {
      list = await this.#client.performRequest({
        method: "GET",
        path: this.#path,
        querystring: query,
        abortSignal: controller.signal,
        expectJson: true,
      });
    } catch (error) {
      if (signal.aborted) return undefined;
      return this.#step({
        type: "listFailed",
        error: timedOut ? new ListTimeoutError(this.#path, timeoutMs) : error,
      });
    } finally {
      this.#clock.clearTimeout(timer);
      signal.removeEventListener("abort", abortList);
    }
    if (signal.aborted) return undefined;
    this.#prepareItems(list);
    return this.#step({ type: "listPage", list });
  }

  /** Replaces a page's items, in place, with what the sink keeps of them. */
  #prepareItems(list: unknown): void {
    const prepare = this.#sink.prepareListItem;
    const items = (list as { items?: unknown } | null)?.items;
    if (!prepare || !Array.isArray(items)) return;
    let kept = 0;
    for (const item of items) {
      // Items without metadata stay for the state machine to report.
      if (!(item as KubeObject | null)?.metadata) {
        items[kept++] = item;
        continue;
      }
      try {
        const prepared = prepare.call(this.#sink, item);
        if (prepared !== undefined) items[kept++] = prepared;
      } catch (error) {
        this.#sinkFailed("prepareListItem", error);
      }
    }
    items.length = kept;
  }

  async #wait(
    command: Extract<ListWatchCommand, { type: "backoff" }>,
  ): Promise<ListWatchCommand | undefined> {
    const retryInMs = Math.max(this.#backoff.next(), command.retryAfterMs ?? 0);
    this.#lastError = { error: command.error, time: this.#clock.now() };
    this.#logger[command.level](
      `${command.message} (retrying in ${retryInMs} ms)`,
      { ...command.fields, retryInMs },
    );
    if (this.#sink.onError) {
      try {
        this.#sink.onError(command.error, retryInMs);
      } catch (error) {
        this.#sinkFailed("onError", error);
      }
    }
    try {
      await delay(retryInMs, { clock: this.#clock, signal: this.#signal });
    } catch {
      return undefined;
    }
    return this.#step(BACKOFF_ELAPSED);
  }

  async #watch(
    command: Extract<ListWatchCommand, { type: "watch" }>,
  ): Promise<ListWatchCommand | undefined> {
    if (command.reconnect) this.#reconnects++;
    const signal = this.#signal;
    const clock = this.#clock;
    const controller = new AbortController();
    const abortWatch = () => controller.abort(signal.reason);
    signal.addEventListener("abort", abortWatch, { once: true });

    // Set by a timer that aborted the stream; fed to the state machine
    // instead of the abort error it causes.
    let interrupt: ListWatchInput | undefined;
    const idleTimeoutMs = this.#idleTimeoutMs;
    let lastBytesAt = clock.now();
    let sinkBusy = false;
    let idleTimer: TimerHandle | undefined;
    // One timer per idle period instead of one per chunk: it re-arms itself
    // for the rest of the period when bytes came meanwhile.
    const checkIdle = () => {
      const quietMs = clock.now() - lastBytesAt;
      if (sinkBusy || quietMs < idleTimeoutMs) {
        idleTimer = clock.setTimeout(
          checkIdle,
          sinkBusy ? idleTimeoutMs : idleTimeoutMs - quietMs,
        );
        return;
      }
      idleTimer = undefined;
      interrupt ??= { type: "idleTimeout", idleMs: quietMs };
      controller.abort(new DOMException("Watch went idle", "TimeoutError"));
    };
    idleTimer = clock.setTimeout(checkIdle, idleTimeoutMs);
    let deadlineTimer: TimerHandle | undefined;
    if (command.initialStream) {
      const afterMs = this.#deadlineMs;
      deadlineTimer = clock.setTimeout(() => {
        deadlineTimer = undefined;
        if (this.#state.phase !== "streamingInitial") return;
        interrupt ??= { type: "initialStreamDeadline", afterMs };
        controller.abort(
          new DOMException("Initial event stream too slow", "TimeoutError"),
        );
      }, afterMs);
    }

    try {
      let stream: ReadableStream<Uint8Array>;
      try {
        stream = await this.#client.performRequest({
          method: "GET",
          path: this.#path,
          querystring: command.query,
          abortSignal: controller.signal,
          expectStream: true,
        });
      } catch (error) {
        return this.#watchStopped(interrupt, error);
      }
      if (controller.signal.aborted) {
        await stream.cancel().catch(() => {});
        return this.#watchStopped(interrupt, controller.signal.reason);
      }
      this.#backoff.markHealthy();
      lastBytesAt = clock.now();
      const opened = await this.#step(WATCH_OPENED);
      if (opened !== undefined || signal.aborted) {
        await stream.cancel().catch(() => {});
        return opened;
      }

      const context = this.#context;
      const options = {
        onBytes: () => {
          lastBytesAt = clock.now();
        },
        maxLineBytes: this.#maxLineBytes,
        signal: controller.signal,
      };
      try {
        // The hot path: synchronous unless the sink returns a promise.
        for await (const event of readJsonLines(stream, options)) {
          this.#lastEventTime = clock.now();
          const previous = this.#state;
          const step = listWatchTransition(
            previous,
            { type: "watchEvent", event },
            context,
          );
          this.#state = step.state;
          if (step.outputs.length !== 0) {
            const pending = this.#emit(step.outputs, 0);
            if (pending !== undefined) {
              sinkBusy = true;
              await pending;
              sinkBusy = false;
              lastBytesAt = clock.now();
            }
          }
          if (signal.aborted) return undefined;
          if (step.command !== undefined) {
            this.#remember(previous);
            return step.command;
          }
          if (
            deadlineTimer !== undefined &&
            this.#state.phase !== "streamingInitial"
          ) {
            clock.clearTimeout(deadlineTimer);
            deadlineTimer = undefined;
          }
        }
      } catch (error) {
        return this.#watchStopped(interrupt, error);
      }
      if (signal.aborted) return undefined;
      return this.#step(interrupt ?? WATCH_ENDED);
    } finally {
      if (idleTimer !== undefined) clock.clearTimeout(idleTimer);
      if (deadlineTimer !== undefined) clock.clearTimeout(deadlineTimer);
      signal.removeEventListener("abort", abortWatch);
      // Releases whatever a client still holds for this request.
      controller.abort();
    }
  }

  #watchStopped(
    interrupt: ListWatchInput | undefined,
    error: unknown,
  ): Promise<ListWatchCommand | undefined> | undefined {
    if (this.#signal.aborted) return undefined;
    return this.#step(interrupt ?? { type: "watchFailed", error });
  }

  /** Feeds one input to the state machine and emits what it outputs. */
  #step(input: ListWatchInput): Promise<ListWatchCommand | undefined> {
    return this.#apply(listWatchTransition(this.#state, input, this.#context));
  }

  async #apply(step: ListWatchStep): Promise<ListWatchCommand | undefined> {
    this.#remember(this.#state);
    this.#state = step.state;
    if (step.outputs.length !== 0) {
      const pending = this.#emit(step.outputs, 0);
      if (pending !== undefined) await pending;
    }
    return this.#signal.aborted ? undefined : step.command;
  }

  /**
   * Hands outputs over from index `from`; returns a promise only when a
   * sink method returned one, so that ordinary events cost no microtask.
   */
  #emit(
    outputs: readonly ListWatchOutput[],
    from: number,
  ): Promise<void> | undefined {
    for (let i = from; i < outputs.length; i++) {
      if (this.#signal.aborted) return undefined;
      const output = outputs[i];
      let result: void | Promise<void> = undefined;
      try {
        switch (output.type) {
          case "deliverEvent":
            this.#events++;
            result = this.#sink.onEvent(output.eventType, output.object);
            break;
          case "deliverList":
            if (!output.initial) this.#relists++;
            this.#knownResourceVersion = output.resourceVersion;
            this.#synced = true;
            result = this.#sink.onList(output.objects, {
              resourceVersion: output.resourceVersion,
              initial: output.initial,
            });
            break;
          case "progress":
            this.#sink.onProgress?.(output.listedSoFar);
            break;
          case "log":
            this.#logger[output.level](output.message, output.fields);
            break;
        }
      } catch (error) {
        this.#sinkFailed(output.type, error);
      }
      if (result !== undefined) {
        return Promise.resolve(result).then(
          () => this.#emit(outputs, i + 1),
          (error) => {
            this.#sinkFailed(output.type, error);
            return this.#emit(outputs, i + 1);
          },
        );
      }
    }
    return undefined;
  }

  #sinkFailed(what: string, error: unknown): void {
    const method = what === "deliverList"
      ? "onList"
      : what === "deliverEvent"
      ? "onEvent"
      : what === "progress"
      ? "onProgress"
      : what;
    this.#logger.error(
      `ListWatch sink ${method} failed for ${this.#path}: ${
        error instanceof Error ? error.message : String(error)
      }`,
      { path: this.#path, error },
    );
  }

  #remember(state: ListWatchState): void {
    const rv = resourceVersionOf(state);
    if (rv !== undefined) this.#knownResourceVersion = rv;
  }
}

function resourceVersionOf(state: ListWatchState): string | undefined {
  const current = state.phase === "backingOff" ? state.next : state;
  return current.phase === "watching" || current.phase === "streamingInitial"
    ? current.resourceVersion
    : undefined;
}

function positive(name: string, value: number): number {
  if (typeof value !== "number" || !(value > 0) || !Number.isFinite(value)) {
    throw new RangeError(
      `ListWatch ${name} must be a positive number, got ${value}`,
    );
  }
  return value;
}
