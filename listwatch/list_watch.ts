import type { Logger } from "../types.ts";
import type { Clock } from "../clock.ts";
import { delay, monotonicClock } from "../_internal/_time.ts";
import { silentLogger } from "../logger.ts";
import { collectionPath, type RestClient } from "../client/rest_client.ts";
import { readJsonLineBatches } from "../client/json_lines.ts";
import {
  PARTIAL_OBJECT_METADATA_ACCEPT,
  PARTIAL_OBJECT_METADATA_LIST_ACCEPT,
} from "../_internal/_objects.ts";
import { neverThrowingLogger } from "../_internal/_logging.ts";
import { Backoff } from "./backoff.ts";
import {
  initialListWatchState,
  listWatchTransition,
} from "./_list_watch_transition.ts";
import type {
  ListWatchCommand,
  ListWatchContext,
  ListWatchInput,
  ListWatchOutput,
  ListWatchState,
} from "./_transition_types.ts";
import {
  FirstByteTimeoutError,
  ListTimeoutError,
  type ListWatchFailure,
  type ListWatchOptions,
  type ListWatchPhase,
  type ListWatchSink,
  type ListWatchStats,
} from "./list_watch_types.ts";
import { RequestTimers } from "./_request_timers.ts";
import {
  DEFAULT_IDLE_TIMEOUT_MS,
  wrapConfigError,
} from "../_internal/_option_checks.ts";
import { LoopStats } from "./_loop_stats.ts";
import { IgnoredFields, readJsonAnswer } from "./_bodies.ts";
import {
  acceptRefusedLine,
  backoffLine,
  noteLine,
  sinkFailedLine,
  write,
} from "./_log_lines.ts";
import { httpStatusOf } from "../client/api_error.ts";
import {
  checkedClientMeter,
  checkListWatchOptions,
} from "./_list_watch_checks.ts";

/** A decoded watch line, as far as counting bookmarks reads it. */
interface WatchLine {
  readonly type?: unknown;
}

/** What feeding an input gives: the next command, now or once the sink is done. */
type Next =
  | ListWatchCommand
  | undefined
  | Promise<ListWatchCommand | undefined>;

const START: ListWatchInput = { type: "start" };
const WATCH_OPENED: ListWatchInput = { type: "watchOpened" };
const WATCH_ENDED: ListWatchInput = { type: "watchEnded" };
const BACKOFF_ELAPSED: ListWatchInput = { type: "backoffElapsed" };
const RELIST: ListWatchInput = { type: "relist" };

/**
 * The list-then-watch loop both watchers share (client-go's reflector): it
 * performs the I/O {@linkcode listWatchTransition} asks for with a
 * {@linkcode RestClient}, hands pages, lists and events to a
 * {@linkcode ListWatchSink} and logs the machine's reasons. It lists page by
 * page, watches from the list's resourceVersion, resumes a stream that ended,
 * relists on 410 Gone, backs off on other failures ({@linkcode Backoff}) and
 * aborts a request silent for `idleTimeoutMs`: the README's fault table has
 * each fault. All parameters go in the query string, never in the path.
 *
 * @example Against a scripted client
 * ```ts
 * import { type RestClient } from "@haptic/k8s-watcher";
 * import { ListWatch } from "@haptic/k8s-watcher/listwatch";
 * import { FakeClock, waitFor } from "@haptic/k8s-watcher/testing";
 * import assert from "node:assert/strict";
 *
 * const list = '{"metadata":{"resourceVersion":"5"},"items":[{"metadata":{"name":"a"}}]}';
 * const events = '{"type":"ADDED","object":{"metadata":{"name":"b","resourceVersion":"6"}}}\n';
 * // Any RestClient: a list body, or one event on a stream left open until aborted.
 * const client = {
 *   performRequest: (opts: { querystring: URLSearchParams; abortSignal: AbortSignal }) =>
 *     Promise.resolve(new ReadableStream({
 *       start(controller) {
 *         const watch = opts.querystring.get("watch") === "1";
 *         controller.enqueue(new TextEncoder().encode(watch ? events : list));
 *         if (!watch) controller.close();
 *         opts.abortSignal.addEventListener("abort", () => controller.error(opts.abortSignal.reason));
 *       },
 *     })),
 * } as unknown as RestClient;
 * const seen: string[] = [];
 * const loop = new ListWatch(client, {
 *   onListPage: (page) => { seen.push(...page.items.map((o) => o.metadata.name!)); },
 *   onListEnd: () => {},
 *   onEvent: (type, object) => { seen.push(`${type} ${object.metadata.name}`); },
 * }, { gvr: { group: "", version: "v1", resource: "configmaps" }, clock: new FakeClock() });
 * const controller = new AbortController();
 * const done = loop.run(controller.signal);
 * await waitFor(() => seen.length === 2);
 * assert.deepEqual(seen, ["a", "ADDED b"]);
 * assert.deepEqual([loop.phase, loop.resourceVersion, loop.events], ["watching", "6", 1]);
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
  #firstByteTimeoutMs: number;
  /** The client's `server`, when it has one. */
  readonly #server: string | undefined;
  #deadlineMs: number;
  #maxLineBytes: number | undefined;
  /** `ignoreFields`: how lines and lists are parsed, and pruned. */
  #ignored: IgnoredFields | undefined;
  /** `Accept` of LIST and WATCH requests; undefined: the client's default. */
  #listAccept: string | undefined;
  #watchAccept: string | undefined;

  #state: ListWatchState;
  /** `relist()` was called: fed before the next request is made. */
  #relistWanted = false;
  /** The timers of the request under way (a `relist()` aborts it). */
  #request: RequestTimers | undefined;
  #signal: AbortSignal = new AbortController().signal;
  #running = false;
  #stopped = false;
  /** What the loop counted: one record for health, metrics and logs. */
  #stats: LoopStats;

  /**
   * Creates the loop; nothing happens until {@linkcode ListWatch.run}.
   *
   * @example One namespace, small pages, a sink that logs
   * ```ts
   * import { FetchClient } from "@haptic/k8s-watcher";
   * import { ListWatch } from "@haptic/k8s-watcher/listwatch";
   *
   * using client = new FetchClient({ server: "https://127.0.0.1:6443" });
   * const loop = new ListWatch(client, {
   *   onListPage: (page) => console.log(page.first ? "a new list (replaces the last)" : "next page", page.items.length),
   *   onListEnd: () => console.log("listed"),
   *   onEvent: (type, o) => console.log(type, o.metadata.name),
   * }, { gvr: { group: "", version: "v1", resource: "secrets" }, namespace: "haptic", pageSize: 100 });
   * ```
   *
   * @param client The Kubernetes client; never closed by the loop.
   * @param sink Receives pages, lists and events.
   * @param options What to watch, and tuning.
   * @throws {WatcherConfigError} Naming the wrong option: `gvr`, `initialList`, a size, a duration, `ignoreFields`, or a name it does not take.
   */
  constructor(
    client: RestClient,
    sink: ListWatchSink,
    options: ListWatchOptions,
  ) {
    checkListWatchOptions(options);
    const { gvr } = options;
    this.#idleTimeoutMs = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
    this.#firstByteTimeoutMs = options.firstByteTimeoutMs ?? 30_000;
    this.#deadlineMs = options.initialStreamDeadlineMs ?? 60_000;
    this.#maxLineBytes = options.maxLineBytes;
    this.#ignored = IgnoredFields.of(options.ignoreFields);
    if (options.metadataOnly === true) {
      this.#listAccept = PARTIAL_OBJECT_METADATA_LIST_ACCEPT;
      this.#watchAccept = PARTIAL_OBJECT_METADATA_ACCEPT;
    }

    this.#client = client;
    // Named where a request got no answer: which server is silent.
    const server: unknown = client?.server;
    this.#server = typeof server === "string" ? server : undefined;
    this.#sink = sink;
    this.#path = collectionPath(gvr, options.namespace);
    const clock = this.#clock = options.clock ?? monotonicClock;
    // Its own, else its client's: one set on the client reaches it.
    const meter = options.meter ?? checkedClientMeter(client);
    this.#stats = new LoopStats(
      clock,
      meter === undefined ? undefined : {
        meter,
        gvr,
        namespace: options.namespace ?? "",
        name: options.name,
      },
    );
    this.#logger = neverThrowingLogger(options.logger ?? silentLogger);
    const random = options.random ?? Math.random;
    this.#backoff = wrapConfigError(
      "backoff",
      () => new Backoff({ clock, random, ...options.backoff }),
    );
    const shardSelector = options.shardSelector;
    this.#context = {
      path: this.#path,
      pageSize: options.pageSize ?? 500,
      labelSelector: options.labelSelector,
      fieldSelector: options.fieldSelector,
      // Read as each request is built: a shard's ranges change.
      get shardSelector() {
        return shardSelector?.();
      },
      random,
      now: () => clock.now(),
    };
    this.#state = initialListWatchState({ initialList: options.initialList });
  }

  /** `idle` before `run()`, the current phase while running, then `stopped`. */
  get phase(): ListWatchPhase {
    return this.#running || !this.#stopped ? this.#state.phase : "stopped";
  }

  /** Whether a first complete list has been delivered to the sink. */
  get synced(): boolean {
    return this.#state.synced;
  }

  /** The resourceVersion of the latest event, bookmark or list; `undefined` before the first list. */
  get resourceVersion(): string | undefined {
    return this.#state.resourceVersion;
  }

  /** The last failure that was retried, and when; kept after recovery. */
  get lastError(): ListWatchFailure | undefined {
    return this.#stats.lastError;
  }

  /** When the latest watch event (bookmarks included) arrived. */
  get lastEventTime(): number | undefined {
    return this.#stats.lastEventTime;
  }

  /** When the loop last made progress (a page, a watch opened, an event, a bookmark), on its clock. */
  get lastActivityTime(): number | undefined {
    return this.#stats.lastActivityTime;
  }

  /** The idle timeout in force (`idleTimeoutMs`, or its default), in ms. */
  get idleTimeoutMs(): number {
    return this.#idleTimeoutMs;
  }

  /** Lists delivered after the initial one (after a 410 Gone, say). */
  get relists(): number {
    return this.#stats.relists;
  }

  /** Watches resumed from an earlier resourceVersion (not from a list). */
  get reconnects(): number {
    return this.#stats.reconnects;
  }

  /** ADDED, MODIFIED and DELETED events delivered to the sink. */
  get events(): number {
    return this.#stats.events;
  }

  /** Everything the loop counted, and when it last heard from the server. */
  get stats(): ListWatchStats {
    return this.#stats;
  }

  /**
   * Lists again, from the first page, as soon as possible: the request
   * under way (a LIST page, the watch) is abandoned; a backoff's wait is
   * not cut short. For a consumer whose selection changed (a shard's
   * ranges, say): what the new list lacks, the consumer finds missing at
   * its end. Nothing happens while the loop is not running.
   *
   * @example After a shard's ranges changed
   * ```ts
   * import { ListWatch } from "@haptic/k8s-watcher/listwatch";
   * import { FetchClient } from "@haptic/k8s-watcher/client";
   * import { FakeApiServer, mockFetch } from "@haptic/k8s-watcher/testing";
   *
   * await using server = new FakeApiServer();
   * using _fetch = mockFetch(server);
   * using client = new FetchClient({ server: server.url });
   * const loop = new ListWatch(client, { onListPage() {}, onListEnd() {}, onEvent() {} }, {
   *   gvr: { group: "", version: "v1", resource: "configmaps" },
   * });
   * loop.relist(); // not running: nothing to do
   * ```
   */
  relist(): void {
    if (!this.#running || this.#signal.aborted) return;
    this.#relistWanted = true;
    this.#request?.interruptWith({ type: "relist" });
  }

  /**
   * Lists, then watches, until `signal` aborts, retrying transient faults. Once
   * it resolves no timer, request or stream is left and the sink is not called
   * again; a second run lists afresh (keeping a fallback from stream to list).
   *
   * @param signal Stops the loop.
   * @throws {Error} When the loop is already running.
   */
  async run(signal: AbortSignal): Promise<void> {
    if (this.#running) throw new Error("ListWatch is already running");
    this.#running = true;
    this.#signal = signal;
    const { synced, initialList, resourceVersion } = this.#state;
    this.#state = initialListWatchState({
      initialList,
      synced,
      resourceVersion,
    });
    this.#stats.observe(this);
    try {
      if (signal.aborted) return;
      let command = await this.#feed(START);
      while (command !== undefined && !signal.aborted) {
        // A relist asked for while no request was under way (or after one
        // had been answered) replaces the next request; a backoff's wait
        // stands, and is followed by a fresh list.
        if (this.#relistWanted && command.type !== "backoff") {
          this.#relistWanted = false;
          command = await this.#feed(RELIST);
          continue;
        }
        command = await this.#perform(command);
      }
      if (command === undefined && !signal.aborted) {
        // Only a bug in the state machine gets here.
        throw new Error(
          `ListWatch stalled in phase ${this.#state.phase} without a next step`,
        );
      }
    } finally {
      this.#stats.unobserve();
      this.#running = false;
      this.#stopped = true;
    }
  }

  #perform(command: ListWatchCommand): Promise<ListWatchCommand | undefined> {
    switch (command.type) {
      case "list":
        return this.#list(command.query);
      case "watch":
        return this.#watch(command);
      case "backoff":
        return this.#wait(command);
    }
  }

  /**
   * The one path from an input to its command: the transition, then outputs to
   * the sink and the log; synchronous unless a sink method returned a promise.
   */
  #feed(input: ListWatchInput): Next {
    if (input.type === "relist") this.#relistWanted = false;
    const step = listWatchTransition(this.#state, input, this.#context);
    this.#state = step.state;
    if (step.outputs.length !== 0) {
      const pending = this.#emit(step.outputs, 0);
      if (pending !== undefined) return pending.then(() => step.command);
    }
    return step.command;
  }

  /** Hands outputs over from index `from`; a promise only when a sink method returned one. */
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
          case "event":
            this.#stats.event(output.eventType);
            result = this.#sink.onEvent(output.eventType, output.object);
            break;
          case "page":
            this.#stats.page();
            result = this.#sink.onListPage(output);
            break;
          case "listed":
            this.#stats.listed(output.initial);
            result = this.#sink.onListEnd(output);
            break;
          case "note":
            this.#stats.noted(output.note);
            write(this.#logger, noteLine(output.note, this.#path));
            break;
        }
      } catch (error) {
        this.#sinkFailed(output, error);
      }
      if (result !== undefined) {
        return Promise.resolve(result).then(
          () => this.#emit(outputs, i + 1),
          (error) => {
            this.#sinkFailed(output, error);
            return this.#emit(outputs, i + 1);
          },
        );
      }
    }
    return undefined;
  }

  /** Requests one LIST page; its body may take as long as it keeps coming. */
  async #list(query: URLSearchParams): Promise<ListWatchCommand | undefined> {
    const timers = new RequestTimers(this.#clock, this.#signal, {
      idleMs: this.#idleTimeoutMs,
      firstByteMs: this.#firstByteTimeoutMs,
      // An exec plugin's run is not the server's silence.
      firstByteFromSent: this.#client.callsOnSent === true,
    });
    let list: unknown;
    this.#request = timers;
    try {
      const body = await this.#send(query, timers, "list");
      timers.answered();
      timers.bytes();
      list = await readJsonAnswer(body, {
        // A body still arriving is progress, however long it takes.
        onBytes: () => {
          timers.bytes();
          this.#stats.listBytes();
        },
        signal: timers.signal,
        path: this.#path,
        parse: this.#ignored?.parseList,
      });
      if (this.#ignored !== undefined) list = this.#ignored.list(list);
    } catch (error) {
      if (this.#signal.aborted) return undefined;
      if (timers.interrupt?.type === "relist") return this.#feed(RELIST);
      const failure = timers.noAnswerMs !== undefined
        ? new FirstByteTimeoutError(this.#path, timers.noAnswerMs, {
          server: this.#server,
        })
        : timers.interrupt === undefined
        ? error
        : new ListTimeoutError(this.#path, this.#idleTimeoutMs);
      return this.#feed({ type: "listFailed", error: failure });
    } finally {
      this.#request = undefined;
      timers.close();
    }
    if (this.#signal.aborted) return undefined;
    return this.#feed({ type: "listPage", list });
  }

  /**
   * One GET of the collection as a byte stream, with the metadata-only `Accept`
   * when asked for; a client that cannot send it (throwing first, as
   * `KubectlRawRestClient` does) is asked again without, for good.
   */
  async #send(
    query: URLSearchParams,
    timers: RequestTimers,
    verb: "list" | "watch",
  ): Promise<ReadableStream<Uint8Array>> {
    const accept = verb === "list" ? this.#listAccept : this.#watchAccept;
    const request = {
      method: "GET" as const,
      path: this.#path,
      querystring: query,
      abortSignal: timers.signal,
      onSent: timers.sent,
      expectStream: true as const,
    };
    if (accept === undefined) return this.#client.performRequest(request);
    try {
      return await this.#client.performRequest({ ...request, accept });
    } catch (error) {
      if (!refusesAccept(error)) throw error;
      this.#listAccept = this.#watchAccept = undefined;
      write(this.#logger, acceptRefusedLine(this.#path, error));
      return this.#client.performRequest(request);
    }
  }

  async #wait(
    command: Extract<ListWatchCommand, { type: "backoff" }>,
  ): Promise<ListWatchCommand | undefined> {
    const retryInMs = Math.max(this.#backoff.next(), command.retryAfterMs ?? 0);
    this.#stats.backoff(command.error, retryInMs);
    this.#stats.noted(command.reason);
    write(this.#logger, backoffLine(command.reason, this.#path, retryInMs));
    try {
      this.#sink.onError?.(command.error, retryInMs);
    } catch (error) {
      this.#sinkFailed("onError", error);
    }
    try {
      await delay(retryInMs, { clock: this.#clock, signal: this.#signal });
    } catch {
      return undefined;
    }
    return this.#feed(BACKOFF_ELAPSED);
  }

  async #watch(
    command: Extract<ListWatchCommand, { type: "watch" }>,
  ): Promise<ListWatchCommand | undefined> {
    if (command.reconnect) this.#stats.reconnect();
    const signal = this.#signal;
    const timers = new RequestTimers(this.#clock, signal, {
      idleMs: this.#idleTimeoutMs,
      deadlineMs: command.initialStream ? this.#deadlineMs : undefined,
      firstByteMs: this.#firstByteTimeoutMs,
      // An exec plugin's run is not the server's silence.
      firstByteFromSent: this.#client.callsOnSent === true,
    });
    this.#request = timers;
    try {
      let stream: ReadableStream<Uint8Array>;
      try {
        stream = await this.#send(command.query, timers, "watch");
        timers.answered();
      } catch (error) {
        return this.#watchStopped(timers, error);
      }
      if (timers.signal.aborted) {
        await stream.cancel().catch(() => {});
        return this.#watchStopped(timers, timers.signal.reason);
      }
      this.#backoff.markHealthy();
      this.#stats.watchOpened();
      timers.bytes();
      const opened = await this.#feed(WATCH_OPENED);
      if (opened !== undefined || signal.aborted) {
        await stream.cancel().catch(() => {});
        return opened;
      }
      const chunks = readJsonLineBatches(stream, {
        onBytes: timers.bytes,
        maxLineBytes: this.#maxLineBytes,
        signal: timers.signal,
        parse: this.#ignored?.parseLine,
      });
      try {
        // The hot path: #feed, synchronous unless the sink returns a
        // promise; one step of the line reader per chunk, not per event.
        const stats = this.#stats;
        const ignored = this.#ignored;
        for await (const events of chunks) {
          // The events of one chunk arrived together.
          const arrived = this.#clock.now();
          for (let i = 0; i < events.length; i++) {
            const event = events[i];
            ignored?.event(event);
            const type = (event as WatchLine | null)?.type;
            stats.line(type === "BOOKMARK", arrived);
            // An object of the initial stream: it is under way.
            if (type === "ADDED" && timers.hasDeadline) {
              timers.progress(arrived);
            }
            let next = this.#feed({ type: "watchEvent", event });
            if (next instanceof Promise) {
              timers.pause();
              next = await next;
              timers.resume();
            }
            if (signal.aborted) return undefined;
            if (next !== undefined) return next;
            if (
              timers.hasDeadline && this.#state.phase !== "streamingInitial"
            ) {
              timers.endDeadline();
            }
          }
        }
      } catch (error) {
        return this.#watchStopped(timers, error);
      }
      if (signal.aborted) return undefined;
      return this.#feed(timers.interrupt ?? WATCH_ENDED);
    } finally {
      this.#request = undefined;
      timers.close();
    }
  }

  /** The input for a watch that broke: a timer's, or the failure. */
  #watchStopped(timers: RequestTimers, error: unknown): Next {
    if (this.#signal.aborted) return undefined;
    if (timers.noAnswerMs !== undefined) {
      error = new FirstByteTimeoutError(this.#path, timers.noAnswerMs, {
        server: this.#server,
      });
    }
    return this.#feed(timers.interrupt ?? { type: "watchFailed", error });
  }

  #sinkFailed(what: ListWatchOutput | "onError", error: unknown): void {
    const method = what === "onError"
      ? what
      : what.type === "event"
      ? "onEvent"
      : what.type === "page"
      ? "onListPage"
      : "onListEnd";
    write(this.#logger, sinkFailedLine(method, this.#path, error));
  }
}

/** Whether `error` is the client's own refusal to send an `Accept` header (not an HTTP answer). */
function refusesAccept(error: unknown): boolean {
  return error instanceof Error && httpStatusOf(error).code === undefined &&
    /\bAccept header\b/i.test(error.message);
}
