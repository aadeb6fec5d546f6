/**
 * A decoder for newline-delimited JSON byte streams, as sent by Kubernetes
 * watch requests.
 *
 * @module
 */

import { chunkReader, parseJson } from "../_internal/_json.ts";

/**
 * Why {@linkcode readJsonLines} gave up: a line that is not JSON, a stream
 * that ended in the middle of a line, or a line longer than allowed.
 *
 * @example Naming a failure kind
 * ```ts
 * import type { JsonLinesErrorKind } from "@haptic/k8s-watcher/client";
 *
 * const kind: JsonLinesErrorKind = "truncated";
 * ```
 */
export type JsonLinesErrorKind = "invalid-json" | "truncated" | "line-too-long";

/** Enough to tell an HTML page from a cut JSON line, too little for data. */
const MESSAGE_PREVIEW = 32;

/**
 * A newline-delimited JSON stream that could not be decoded.
 *
 * @example A line that is not JSON
 * ```ts
 * import { JsonLinesError, readJsonLines } from "@haptic/k8s-watcher/client";
 * import assert from "node:assert/strict";
 *
 * const body = new Blob(['{"type":"ADDED"}\n', "<html>oops</html>\n"]).stream();
 * await assert.rejects(async () => {
 *   for await (const _ of readJsonLines(body)) { }
 * }, (err) => err instanceof JsonLinesError && err.kind === "invalid-json");
 * ```
 */
export class JsonLinesError extends Error {
  /** What went wrong. */
  readonly kind: JsonLinesErrorKind;
  /**
   * The first ~200 characters of the offending line. It may hold object
   * data (a Secret's, say), so only its first 32 characters go into the
   * message, which is what loggers print.
   */
  readonly preview: string;

  /**
   * Creates the error.
   *
   * @example A watch line that is not JSON
   * ```ts
   * import { JsonLinesError } from "@haptic/k8s-watcher/client";
   * import assert from "node:assert/strict";
   *
   * const err = new JsonLinesError("invalid-json", "<html>502 Bad Gateway");
   * assert.equal(err.kind, "invalid-json");
   * assert.equal(err.preview, "<html>502 Bad Gateway");
   * ```
   *
   * @param kind What went wrong.
   * @param preview The start of the offending line.
   * @param options The underlying cause, e.g. a `SyntaxError`.
   */
  constructor(
    kind: JsonLinesErrorKind,
    preview: string,
    options?: { cause?: unknown },
  ) {
    const what = kind === "invalid-json"
      ? "Stream line is not valid JSON"
      : kind === "truncated"
      ? "Stream ended in the middle of a JSON line"
      : "Stream line is longer than the allowed maximum";
    const shown = preview.length > MESSAGE_PREVIEW
      ? `${preview.slice(0, MESSAGE_PREVIEW)}…`
      : preview;
    super(`${what}: ${JSON.stringify(shown)}`, options);
    this.name = "JsonLinesError";
    this.kind = kind;
    this.preview = preview;
  }
}

/**
 * Options for {@linkcode readJsonLines}.
 *
 * @example Noticing bytes, and a smaller line limit
 * ```ts
 * import type { ReadJsonLinesOptions } from "@haptic/k8s-watcher/client";
 *
 * let lastByteAt = 0;
 * const options: ReadJsonLinesOptions = {
 *   onBytes: () => { lastByteAt = Date.now(); },
 *   maxLineBytes: 16 * 1024 * 1024,
 * };
 * ```
 */
export interface ReadJsonLinesOptions {
  /** Called with the size of every chunk received, before it is decoded. */
  onBytes?: (byteCount: number) => void;
  /**
   * The longest line accepted, in bytes (64 MiB).
   *
   * @default {67108864}
   */
  maxLineBytes?: number;
  /**
   * Cancels the stream when aborted; the iteration then throws the signal's
   * reason. Needed because an aborted `fetch` does not always end a pending
   * read of its body (seen with Deno 2.9 when several streams are open).
   */
  signal?: AbortSignal;
  /**
   * How a line's text becomes its value; a line it throws for fails as
   * `invalid-json` (or `truncated`), with what it threw as the cause. The
   * loop passes one that leaves `ignoreFields` out of what it parses.
   *
   * @default {JSON.parse, to the same values}
   */
  parse?: (line: string) => unknown;
}

const NEWLINE = 0x0a;
const DEFAULT_MAX_LINE_BYTES = 64 * 1024 * 1024;
const PREVIEW_CHARS = 200;

/**
 * {@linkcode readJsonLines}, a chunk at a time: each array holds the values
 * of the lines one chunk completed (never empty). A line that fails comes
 * after the values before it: they are yielded first, then the iteration
 * throws. The watch loop reads this way, so that a chunk of a hundred events
 * costs one step of an async generator rather than a hundred.
 *
 * @example Two lines in one chunk, one array
 * ```ts
 * import { readJsonLineBatches } from "@haptic/k8s-watcher/client";
 * import assert from "node:assert/strict";
 *
 * const body = new Blob(['{"n":1}\n{"n":2}\n']).stream();
 * const batches = [];
 * for await (const batch of readJsonLineBatches(body)) batches.push(batch);
 * assert.deepEqual(batches, [[{ n: 1 }, { n: 2 }]]);
 * ```
 *
 * @param stream The byte stream, e.g. a `fetch` response body.
 * @param options Progress callback and line size limit.
 * @returns The parsed values, one array per chunk that completed a line.
 * @throws {JsonLinesError} When a line is not JSON, is too long, or is cut
 * off by the end of the stream.
 */
export async function* readJsonLineBatches(
  stream: ReadableStream<Uint8Array>,
  options?: ReadJsonLinesOptions,
): AsyncGenerator<unknown[], void, undefined> {
  const onBytes = options?.onBytes;
  const parse = options?.parse ?? parseJson;
  const maxLineBytes = options?.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  // Decoding each chunk once in streaming mode (which carries split UTF-8
  // sequences over) measured faster than decoding line by line, because a
  // watch chunk usually holds many short lines.
  const decoder = new TextDecoder("utf-8", { fatal: false });
  // Text of the unfinished line, kept as parts and joined only when its
  // newline arrives, so a megabyte line costs one concatenation.
  let parts: string[] = [];
  let partialBytes = 0;
  const signal = options?.signal;
  signal?.throwIfAborted();
  const reader = chunkReader(stream);
  const onAbort = () => void reader.cancel(signal!.reason).catch(() => {});
  signal?.addEventListener("abort", onAbort, { once: true });
  let finished = false;
  try {
    while (true) {
      const { done, value: chunk } = await reader.read();
      if (signal?.aborted) throw signal.reason;
      if (done) break;
      onBytes?.(chunk.byteLength);
      const text = decoder.decode(chunk, { stream: true });
      // The exact byte check only runs when this chunk could hold a line
      // over the limit, keeping the common path free of byte scans.
      const longLine = partialBytes + chunk.byteLength > maxLineBytes
        ? firstLongLine(chunk, partialBytes, maxLineBytes)
        : -1;
      const batch: unknown[] = [];
      let failure: JsonLinesError | undefined;
      let lineIndex = 0;
      let start = 0;
      let end = text.indexOf("\n");
      while (end >= 0) {
        let line = text.slice(start, end);
        if (lineIndex === longLine) {
          failure = tooLong(parts, line);
          break;
        }
        if (parts.length > 0) {
          parts.push(line);
          line = parts.join("");
          parts = [];
        }
        const value = parseLine(parse, line, "invalid-json");
        if (value instanceof JsonLinesError) {
          failure = value;
          break;
        }
        if (value !== SKIP) batch.push(value);
        lineIndex++;
        start = end + 1;
        end = text.indexOf("\n", start);
      }
      if (failure === undefined && lineIndex === longLine) {
        failure = tooLong(parts, text.slice(start));
      }
      if (failure !== undefined) {
        if (batch.length > 0) yield batch;
        throw failure;
      }
      if (batch.length > 0) yield batch;
      if (start < text.length) parts.push(text.slice(start));
      // UTF-8 never encodes another character with a 0x0A byte, so the
      // newlines in the text and in the bytes are the same ones.
      partialBytes = lineIndex === 0
        ? partialBytes + chunk.byteLength
        : chunk.byteLength - chunk.lastIndexOf(NEWLINE) - 1;
    }
    finished = true;
    parts.push(decoder.decode());
    const value = parseLine(parse, parts.join(""), "truncated");
    if (value instanceof JsonLinesError) throw value;
    if (value !== SKIP) yield [value];
  } finally {
    signal?.removeEventListener("abort", onAbort);
    if (!finished) {
      // Cancelling an errored stream rejects; the original error matters more.
      await reader.cancel().catch(() => {});
    }
    reader.releaseLock();
  }
}

/**
 * The index of the first line in `chunk` (counting its unfinished last line)
 * longer than `max` bytes, the first line carrying `carried` earlier bytes;
 * -1 when there is none.
 */
function firstLongLine(
  chunk: Uint8Array,
  carried: number,
  max: number,
): number {
  let lineStart = 0;
  let lineIndex = 0;
  let lineBytes = carried;
  while (true) {
    const newline = chunk.indexOf(NEWLINE, lineStart);
    const end = newline < 0 ? chunk.byteLength : newline;
    if (lineBytes + end - lineStart > max) return lineIndex;
    if (newline < 0) return -1;
    lineIndex++;
    lineStart = newline + 1;
    lineBytes = 0;
  }
}

function tooLong(parts: string[], line: string): JsonLinesError {
  let head = "";
  for (const part of parts) {
    head += part.slice(0, PREVIEW_CHARS);
    if (head.length >= PREVIEW_CHARS) break;
  }
  return new JsonLinesError("line-too-long", preview(head + line));
}

const SKIP: unique symbol = Symbol("skip");

/** The line's value, `SKIP` for a blank line, or the error to throw. */
function parseLine(
  parse: (line: string) => unknown,
  line: string,
  kind: JsonLinesErrorKind,
): unknown | typeof SKIP | JsonLinesError {
  try {
    return parse(line);
  } catch (cause) {
    // Checked only after a failed parse, to keep the common path short.
    if (line.trim() === "") return SKIP;
    return new JsonLinesError(kind, preview(line), { cause });
  }
}

function preview(line: string): string {
  return line.length > PREVIEW_CHARS ? line.slice(0, PREVIEW_CHARS) : line;
}

/**
 * Yields one parsed JSON value per line of a newline-delimited JSON byte
 * stream. Chunks may split lines (and multi-byte characters) anywhere; `\r\n`
 * endings and blank lines are accepted; a last line without a newline is
 * parsed when complete and reported as `truncated` when not.
 *
 * The stream is read from the first iteration on. Leaving the loop early
 * (`break`, `return`, a throw) or failing cancels the stream and releases
 * the reader, so no connection stays open.
 *
 * @example Lines split across chunks
 * ```ts
 * import { readJsonLines } from "@haptic/k8s-watcher/client";
 * import assert from "node:assert/strict";
 *
 * const body = new Blob(['{"type":"ADDED","object":{}}\r\n\n{"type":', '"DELETED","object":{}}']).stream();
 * const types = [];
 * for await (const event of readJsonLines(body)) {
 *   types.push((event as { type: string }).type);
 * }
 * assert.deepEqual(types, ["ADDED", "DELETED"]);
 * ```
 *
 * @param stream The byte stream, e.g. a `fetch` response body.
 * @param options Progress callback and line size limit.
 * @returns The parsed values, in order.
 * @throws {JsonLinesError} When a line is not JSON, is too long, or is cut
 * off by the end of the stream.
 */
export async function* readJsonLines(
  stream: ReadableStream<Uint8Array>,
  options?: ReadJsonLinesOptions,
): AsyncGenerator<unknown, void, undefined> {
  for await (const batch of readJsonLineBatches(stream, options)) {
    yield* batch;
  }
}
