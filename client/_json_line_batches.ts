/**
 * The NDJSON decoder under `readJsonLines`: one array of parsed values per
 * chunk of the stream. The watch loop reads it directly, so that a chunk
 * of a hundred events costs one step of an async generator rather than a
 * hundred (each a promise and its microtasks: bench/ANALYSIS.md, "The
 * flood's per-event cost").
 *
 * `JsonLinesError` comes from `json_lines.ts`, which imports this file:
 * the cycle is safe because neither module uses the other while loading.
 *
 * @module
 */

import { parseJson } from "../_parse_json.ts";
import {
  JsonLinesError,
  type JsonLinesErrorKind,
  type ReadJsonLinesOptions,
} from "./json_lines.ts";

const NEWLINE = 0x0a;
const DEFAULT_MAX_LINE_BYTES = 64 * 1024 * 1024;
const PREVIEW_CHARS = 200;

/**
 * `readJsonLines`, a chunk at a time: each array holds the values of the
 * lines the chunk completed (never empty). A line that fails comes after
 * the values before it: they are yielded first, then the iteration throws.
 */
export async function* readJsonLineBatches(
  stream: ReadableStream<Uint8Array>,
  options?: ReadJsonLinesOptions,
): AsyncGenerator<unknown[], void, undefined> {
  const onBytes = options?.onBytes;
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
  const reader = stream.getReader();
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
        const value = parseLine(line, "invalid-json");
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
    const value = parseLine(parts.join(""), "truncated");
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
  line: string,
  kind: JsonLinesErrorKind,
): unknown | typeof SKIP | JsonLinesError {
  try {
    return parseJson(line);
  } catch (cause) {
    // Checked only after a failed parse, to keep the common path short.
    if (line.trim() === "") return SKIP;
    return new JsonLinesError(kind, preview(line), { cause });
  }
}

function preview(line: string): string {
  return line.length > PREVIEW_CHARS ? line.slice(0, PREVIEW_CHARS) : line;
}
