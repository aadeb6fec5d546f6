/**
 * A decoder for newline-delimited JSON byte streams, as sent by Kubernetes
 * watch requests.
 *
 * @module
 */

import { readJsonLineBatches } from "./_json_line_batches.ts";

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
