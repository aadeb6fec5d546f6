/**
 * Reads a whole JSON answer from a byte stream, reporting every chunk as it
 * arrives: a LIST body that comes slowly but steadily keeps its request
 * alive, one that stops can be abandoned after a silence.
 *
 * @module
 */
import { MalformedListError } from "./list_watch_types.ts";
import { concatBytes } from "../_internal/_concat_bytes.ts";
import { parseJson } from "../_internal/_parse_json.ts";

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
  const reader = stream.getReader();
  // An aborted fetch does not always end a pending read of its body.
  const cancel = () => void reader.cancel(signal.reason).catch(() => {});
  signal.addEventListener("abort", cancel, { once: true });
  const chunks: Uint8Array[] = [];
  try {
    signal.throwIfAborted();
    while (true) {
      const { done, value } = await reader.read();
      signal.throwIfAborted();
      if (done) break;
      onBytes();
      chunks.push(value);
    }
  } catch (error) {
    await reader.cancel(error).catch(() => {});
    throw error;
  } finally {
    signal.removeEventListener("abort", cancel);
    reader.releaseLock();
  }
  return parse(concatBytes(chunks), options);
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
