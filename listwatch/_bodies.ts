/**
 * What the server sends, as the loop reads it: a LIST body read whole,
 * every chunk reported as it arrives (a body that comes slowly but steadily
 * keeps its request alive, one that stops can be abandoned after a
 * silence); and the loop's `ignoreFields`, the paths no object reaches the
 * sink with. A path of member names only (`metadata.managedFields`) is cut
 * out of the text before it is parsed, where that is exact
 * (`_json_cut.ts`); every path is then removed from what was parsed, as the
 * `Indexer` removes it (a no-op walk where the cut took it already). A
 * BOOKMARK's or an ERROR's object is left as sent: the loop reads them.
 *
 * @module
 */
import { MalformedListError } from "./list_watch_types.ts";
import {
  ByteBuffer,
  chunkReader,
  isCutEvent,
  type JsonCut,
  jsonCut,
  parseJson,
  parseJsonCut,
  parseWatchLine,
} from "../_internal/_json.ts";
import { Indexer } from "../selection/indexer.ts";
import { JsonPath } from "../selection/jsonpath.ts";
import { wrapConfigError } from "../_internal/_option_checks.ts";
import type { KubeObject } from "../types.ts";

// --- A LIST body, read whole ------------------------------------------------

/** Options of {@linkcode readJsonBody}. */
export interface ReadJsonBodyOptions {
  /** Called for every chunk, before the next read. */
  onBytes: () => void;
  /** Cancels the stream; the read then rejects with the signal's reason. */
  signal: AbortSignal;
  /** The collection path, for the error when the body is not JSON. */
  path: string;
  /** How the body's text becomes its value (default: `JSON.parse`'s). */
  parse?: ((text: string) => unknown) | undefined;
}

/** Enough to tell an HTML page from a cut list, too little for data. */
const PREVIEW_CHARS = 32;

/**
 * The parsed JSON of a LIST answer. The loop asks for a byte stream; a
 * client that answers with bytes or with parsed JSON anyway (a hand-written
 * fake, say) is served too.
 *
 * @throws {MalformedListError} When the body is not JSON.
 */
export async function readJsonAnswer(
  answer: unknown,
  options: ReadJsonBodyOptions,
): Promise<unknown> {
  if (answer instanceof ReadableStream) {
    return await readJsonBody(answer, options);
  }
  if (answer instanceof Uint8Array) return parse(answer, options);
  return answer;
}

/**
 * The parsed JSON of `stream`, read to its end.
 *
 * @throws {MalformedListError} When the body is not JSON.
 * @throws {unknown} The signal's reason when it aborts, or what the stream
 * failed with.
 */
export async function readJsonBody(
  stream: ReadableStream<Uint8Array>,
  options: ReadJsonBodyOptions,
): Promise<unknown> {
  const { onBytes, signal } = options;
  const reader = chunkReader(stream);
  // An aborted fetch does not always end a pending read of its body.
  const cancel = () => void reader.cancel(signal.reason).catch(() => {});
  signal.addEventListener("abort", cancel, { once: true });
  const received = new ByteBuffer();
  try {
    signal.throwIfAborted();
    while (true) {
      const { done, value } = await reader.read();
      signal.throwIfAborted();
      if (done) break;
      onBytes();
      received.push(value);
    }
  } catch (error) {
    await reader.cancel(error).catch(() => {});
    throw error;
  } finally {
    signal.removeEventListener("abort", cancel);
    reader.releaseLock();
  }
  return parse(received.bytes(), options);
}

function parse(bytes: Uint8Array, options: ReadJsonBodyOptions): unknown {
  const { path, parse = parseJson } = options;
  const text = new TextDecoder().decode(bytes);
  try {
    return parse(text);
  } catch {
    const preview = text.length > PREVIEW_CHARS
      ? `${text.slice(0, PREVIEW_CHARS)}…`
      : text;
    throw new MalformedListError(
      path,
      `its body is not JSON: ${JSON.stringify(preview)}`,
    );
  }
}

// --- ignoreFields: parsed (cut), then pruned --------------------------------

/** What the loop parses and prunes with, for one `ignoreFields`. */
export class IgnoredFields {
  readonly #indexer: Indexer;
  /** How a watch line is parsed: cut, where the paths allow it. */
  readonly parseLine: ((text: string) => unknown) | undefined;
  /** How a LIST body is parsed: cut, where the paths allow it. */
  readonly parseList: ((text: string) => unknown) | undefined;

  /**
   * `undefined` when there is nothing to ignore.
   *
   * @throws {WatcherConfigError} Naming `ignoreFields`: not an array of
   * JSONPath expressions, or one that would remove `metadata.name`,
   * `metadata.namespace` or `metadata.resourceVersion`.
   */
  static of(
    ignoreFields: readonly string[] | undefined,
  ): IgnoredFields | undefined {
    if (ignoreFields === undefined) return undefined;
    // The Indexer's checks, in the watchers' words.
    const indexer = wrapConfigError(
      "ignoreFields",
      () => new Indexer({ indexBy: ["metadata.name"], ignoreFields }),
    );
    if (indexer.ignoreFields.length === 0) return undefined;
    return new IgnoredFields(indexer);
  }

  private constructor(indexer: Indexer) {
    this.#indexer = indexer;
    const names: string[][] = [];
    for (const expression of indexer.ignoreFields) {
      const { segments } = new JsonPath(expression);
      if (segments.every((s) => s.kind === "key")) {
        names.push(segments.map((s) => (s as { key: string }).key));
      }
    }
    const cut: JsonCut | undefined = jsonCut(names);
    if (cut !== undefined) {
      this.parseLine = (text) => parseWatchLine(text, cut);
      this.parseList = (text) => parseJsonCut(text, cut.list);
    }
  }

  /** Removes the paths from the object of an ADDED, MODIFIED or DELETED event (the loop's own value). */
  event(event: unknown): void {
    if (!isCutEvent(event)) return;
    const e = event as { object: KubeObject };
    e.object = this.#indexer.filterFields(e.object);
  }

  /** The LIST answer with the paths removed from its items (a copy where any was). */
  list(list: unknown): unknown {
    if (list === null || typeof list !== "object") return list;
    const items = (list as { items?: unknown }).items;
    if (!Array.isArray(items)) return list;
    let out: unknown[] | undefined;
    for (let i = 0; i < items.length; i++) {
      const item = items[i];
      if (item === null || typeof item !== "object" || Array.isArray(item)) {
        continue;
      }
      const pruned = this.#indexer.filterFields(item);
      if (pruned === item) continue;
      out ??= items.slice();
      out[i] = pruned;
    }
    return out === undefined ? list : { ...list, items: out };
  }
}
