import type { Clock, TimerHandle } from "../clock.ts";
import type { KubeStatus } from "../client/api_error.ts";
import type { KubeObject } from "../types.ts";
import type { ChangeType, HistoryEntry } from "./_history.ts";
import type { ObjectFilter } from "./_object_filter.ts";
import type { FakeWatchStream, WatchTap } from "./reactor.ts";
import type { ResourceInfo } from "./resources.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The annotation on the bookmark that ends the initial events of a watch list. */
export const INITIAL_EVENTS_END = "k8s.io/initial-events-end";

/** Everything one watch needs to know. */
export interface WatchSetup {
  info: ResourceInfo;
  gvrKey: string;
  /** Only objects in this namespace; `""` for all. */
  namespace: string;
  filter: ObjectFilter;
  allowBookmarks: boolean;
  clock: Clock;
  bookmarkIntervalMs: number;
  /** Close cleanly after this long; undefined for never. */
  timeoutMs: number | undefined;
  currentRv: () => number;
  /** Aborting it errors the stream, as a client abort errors a fetch body. */
  signal: AbortSignal | undefined;
  /** Aborting it closes the stream cleanly (server shutdown). */
  closeSignal: AbortSignal | undefined;
  /** Rewrites event objects (server-side Table rendering); bookmarks and errors are kept. */
  transform?: (obj: KubeObject) => unknown;
  /**
   * The kind and apiVersion of bookmark objects (default: the resource's).
   * Metadata-only watches convert bookmarks like any other object.
   */
  bookmarkType?: { kind: string; apiVersion: string };
  /** A reactor's changes to what the stream sends. */
  tap?: WatchTap;
  /** Called once when the watch ends for any reason. */
  onEnd: (watch: ServerWatch) => void;
}

/**
 * One open watch: a byte stream of newline-delimited JSON events that the
 * server pushes into as writes happen, with its bookmark and timeout timers.
 */
export class ServerWatch {
  readonly stream: ReadableStream<Uint8Array>;
  readonly gvrKey: string;
  #setup: WatchSetup;
  #controller!: ReadableStreamDefaultController<Uint8Array>;
  #ended = false;
  #sent = 0;
  #bookmarkTimer: TimerHandle | undefined;
  #timeoutTimer: TimerHandle | undefined;
  #onAbort = () => this.#abort(this.#setup.signal?.reason);
  #onClose = () => this.close();

  constructor(setup: WatchSetup) {
    this.#setup = setup;
    this.gvrKey = setup.gvrKey;
    this.stream = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.#controller = controller;
      },
      cancel: () => this.#end(),
    });
    setup.signal?.addEventListener("abort", this.#onAbort, { once: true });
    setup.closeSignal?.addEventListener("abort", this.#onClose, { once: true });
    if (setup.allowBookmarks) this.#scheduleBookmark();
    if (setup.timeoutMs !== undefined) {
      this.#timeoutTimer = setup.clock.setTimeout(() => {
        this.#timeoutTimer = undefined;
        // Real servers send a last bookmark so the client resumes from it.
        if (this.#setup.allowBookmarks) this.sendBookmark();
        this.close();
      }, setup.timeoutMs);
    }
    if (setup.signal?.aborted) this.#abort(setup.signal.reason);
    else if (setup.closeSignal?.aborted) this.close();
    else this.#tapSent();
  }

  /** Whether the watch has ended. */
  get ended(): boolean {
    return this.#ended;
  }

  /** Delivers one write, applying the namespace and selectors with transitions. */
  deliver(entry: HistoryEntry): void {
    if (this.#ended) return;
    const { namespace, filter } = this.#setup;
    if (namespace && entry.object.metadata.namespace !== namespace) return;
    if (filter.everything) {
      this.#sendEntry(entry, entry.type, entry.object);
      return;
    }
    const now = entry.type !== "DELETED" && filter.matches(entry.object);
    const before = entry.prev !== undefined && filter.matches(entry.prev);
    if (now) {
      this.#sendEntry(entry, before ? "MODIFIED" : "ADDED", entry.object);
    } else if (before) {
      // As in Kubernetes: the previous content at the event's version.
      const gone = entry.type === "DELETED"
        ? entry.object
        : entry.prevAtRv ??= {
          ...entry.prev!,
          metadata: {
            ...entry.prev!.metadata,
            resourceVersion: String(entry.rv),
          },
        };
      this.#sendEntry(entry, "DELETED", gone);
    }
  }

  /** Sends an ADDED event for a current object (initial events). */
  sendInitial(obj: KubeObject): void {
    if (this.#ended) return;
    const { namespace, filter } = this.#setup;
    if (namespace && obj.metadata.namespace !== namespace) return;
    if (!filter.matches(obj)) return;
    this.#sendLine(this.#encode("ADDED", obj));
  }

  /** Sends a BOOKMARK at the current version, optionally annotated. */
  sendBookmark(annotations?: Record<string, string>): void {
    if (this.#ended) return;
    const { info, currentRv, bookmarkType } = this.#setup;
    const metadata: Record<string, unknown> = {
      resourceVersion: String(currentRv()),
    };
    if (annotations) metadata.annotations = annotations;
    this.#sendLine(
      line("BOOKMARK", {
        kind: bookmarkType?.kind ?? info.kind,
        apiVersion: bookmarkType?.apiVersion ?? info.apiVersion,
        metadata,
      }),
    );
  }

  /** Sends an ERROR event with a `Status`, then closes. */
  sendError(status: KubeStatus): void {
    if (this.#ended) return;
    this.#sendLine(line("ERROR", status));
    this.close();
  }

  /** Ends the stream cleanly, as a server-side timeout does. */
  close(): void {
    if (this.#ended) return;
    this.#end();
    try {
      this.#controller.close();
    } catch {
      // Already cancelled by the reader.
    }
  }

  #abort(reason: unknown): void {
    if (this.#ended) return;
    this.#end();
    try {
      this.#controller.error(
        reason ?? new DOMException("The watch was aborted", "AbortError"),
      );
    } catch {
      // Already cancelled by the reader.
    }
  }

  #end(): void {
    if (this.#ended) return;
    this.#ended = true;
    const { clock, signal, closeSignal } = this.#setup;
    if (this.#bookmarkTimer !== undefined) {
      clock.clearTimeout(this.#bookmarkTimer);
    }
    if (this.#timeoutTimer !== undefined) {
      clock.clearTimeout(this.#timeoutTimer);
    }
    this.#bookmarkTimer = this.#timeoutTimer = undefined;
    signal?.removeEventListener("abort", this.#onAbort);
    closeSignal?.removeEventListener("abort", this.#onClose);
    this.#setup.onEnd(this);
  }

  #scheduleBookmark(): void {
    this.#bookmarkTimer = this.#setup.clock.setTimeout(() => {
      this.#bookmarkTimer = undefined;
      if (this.#ended) return;
      this.sendBookmark();
      if (!this.#ended) this.#scheduleBookmark();
    }, this.#setup.bookmarkIntervalMs);
  }

  #sendEntry(entry: HistoryEntry, type: ChangeType, obj: KubeObject): void {
    if (this.#setup.transform) {
      this.#sendLine(this.#encode(type, obj));
      return;
    }
    const lines = entry.lines ??= {};
    this.#sendLine(lines[type] ??= line(type, obj));
  }

  #encode(type: ChangeType, obj: KubeObject): Uint8Array {
    const transform = this.#setup.transform;
    return line(type, transform ? transform(obj) : obj);
  }

  #sendLine(bytes: Uint8Array): void {
    if (this.#ended) return;
    const rewrite = this.#setup.tap?.line;
    if (rewrite !== undefined) {
      // Lines are shared between watches (entry.lines): rewrite a copy.
      const text = rewrite(decoder.decode(bytes), this.#stream);
      if (this.#ended) return;
      if (text !== undefined) bytes = encoder.encode(text);
    }
    this.#controller.enqueue(bytes);
    this.#sent++;
    this.#tapSent();
  }

  #tapSent(): void {
    if (!this.#ended) this.#setup.tap?.sent?.(this.#stream);
  }

  /** The stream as a tap sees it. */
  #stream: FakeWatchStream = ((watch: ServerWatch) => ({
    get resource() {
      return watch.#setup.info;
    },
    get lines() {
      return watch.#sent;
    },
    get resourceVersion() {
      return String(watch.#setup.currentRv());
    },
    get ended() {
      return watch.#ended;
    },
    write(text: string) {
      if (!watch.#ended) watch.#controller.enqueue(encoder.encode(text));
    },
    error(status: KubeStatus) {
      // Not through #sendLine: a tap that errors the stream from `sent`
      // would see its own ERROR line and error it again.
      if (watch.#ended) return;
      watch.#controller.enqueue(line("ERROR", status));
      watch.close();
    },
    end() {
      watch.close();
    },
  }))(this);
}

function line(type: string, object: unknown): Uint8Array {
  return encoder.encode(
    `{"type":"${type}","object":${JSON.stringify(object)}}\n`,
  );
}

/** The open watches, by resource type, fed by every write. */
export class WatchHub {
  #byType = new Map<string, Set<ServerWatch>>();
  #count = 0;

  get size(): number {
    return this.#count;
  }

  add(watch: ServerWatch): void {
    if (watch.ended) return;
    let set = this.#byType.get(watch.gvrKey);
    if (!set) this.#byType.set(watch.gvrKey, set = new Set());
    if (!set.has(watch)) {
      set.add(watch);
      this.#count++;
    }
  }

  remove(watch: ServerWatch): void {
    const set = this.#byType.get(watch.gvrKey);
    if (set?.delete(watch)) this.#count--;
  }

  dispatch(entry: HistoryEntry): void {
    const set = this.#byType.get(entry.gvrKey);
    if (!set) return;
    for (const watch of set) watch.deliver(entry);
  }

  closeAll(): void {
    for (const set of this.#byType.values()) {
      for (const watch of [...set]) watch.close();
    }
  }
}
