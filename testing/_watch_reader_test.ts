// Shared by the fake API server tests (a *_test.ts file so it is not published).
import assert from "node:assert/strict";
import type { KubeObject } from "../types.ts";
import { settle } from "./fake_clock.ts";

/** One decoded watch line. */
export interface WatchEvent {
  type: string;
  object: KubeObject & Record<string, unknown>;
}

/**
 * Reads newline-delimited watch events from a response body without ever
 * blocking a test: `available()` returns what has arrived so far.
 */
export class WatchReader {
  readonly response: Response;
  #reader: ReadableStreamDefaultReader<Uint8Array>;
  #pending: Promise<ReadableStreamReadResult<Uint8Array>> | undefined;
  #decoder = new TextDecoder();
  #buffer = "";
  #events: WatchEvent[] = [];
  /** True once the stream ended cleanly. */
  ended = false;
  /** Set when the stream errored. */
  error: unknown;

  constructor(response: Response) {
    assert.ok(response.body, "response has a body");
    this.response = response;
    this.#reader = response.body.getReader();
  }

  /** The raw text received and not yet parsed as a whole line. */
  get partial(): string {
    return this.#buffer;
  }

  /** Everything that has arrived (events are consumed). */
  async available(): Promise<WatchEvent[]> {
    while (await this.#pull()) { /* keep reading */ }
    return this.#events.splice(0);
  }

  /** Waits (event-loop turns, not time) for `n` events. */
  async take(n: number): Promise<WatchEvent[]> {
    for (let i = 0; i < 50 && this.#events.length < n; i++) {
      if (!(await this.#pull()) && (this.ended || this.error)) break;
    }
    assert.ok(
      this.#events.length >= n,
      `expected ${n} events, got ${JSON.stringify(this.#events)}${
        this.ended ? " (stream ended)" : ""
      }${this.error ? ` (error ${this.error})` : ""}`,
    );
    return this.#events.splice(0, n);
  }

  /** Reads until the stream ends or errors; returns the remaining events. */
  async drain(): Promise<WatchEvent[]> {
    for (let i = 0; i < 50 && !this.ended && !this.error; i++) {
      await this.#pull();
    }
    assert.ok(this.ended || this.error, "stream did not end");
    return this.#events.splice(0);
  }

  async cancel(): Promise<void> {
    if (this.ended || this.error) return;
    await this.#reader.cancel().catch(() => {});
    this.ended = true;
  }

  async #pull(): Promise<boolean> {
    if (this.ended || this.error) return false;
    this.#pending ??= this.#reader.read();
    const result = await Promise.race([
      this.#pending.catch((err) => ({ err })),
      settle(2).then(() => null),
    ]);
    if (result === null) return false;
    this.#pending = undefined;
    if ("err" in result) {
      this.error = result.err;
      return false;
    }
    if (result.done) {
      this.ended = true;
      return false;
    }
    this.#buffer += this.#decoder.decode(result.value, { stream: true });
    let nl: number;
    while ((nl = this.#buffer.indexOf("\n")) >= 0) {
      const line = this.#buffer.slice(0, nl);
      this.#buffer = this.#buffer.slice(nl + 1);
      if (line.trim()) this.#events.push(JSON.parse(line));
    }
    return true;
  }
}

/** Names of the objects of some events, as `TYPE name`. */
export function summary(events: WatchEvent[]): string[] {
  return events.map((e) =>
    e.type === "BOOKMARK" || e.type === "ERROR"
      ? `${e.type} ${
        e.type === "ERROR"
          ? (e.object as { code?: number }).code
          : e.object.metadata.resourceVersion
      }`
      : `${e.type} ${e.object.metadata?.name}`
  );
}
