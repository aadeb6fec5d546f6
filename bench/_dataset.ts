/**
 * The bytes the bench server serves, built once per server process: every
 * pod serialized once into one buffer (pages are views into it), and every
 * watch-flood event serialized once into another.
 *
 * @module
 */

import { asPartialObjectMetadata } from "../_internal/_objects.ts";
import {
  makePod,
  ownerUid,
  ownerUidPrefix,
  podName,
  podNamespace,
  podUid,
} from "./_pods.ts";
import { Stamp } from "./_stamp.ts";
import { SENT_AT } from "./_protocol.ts";

/** resourceVersion of the `i`-th pod in the list. */
export function listItemVersion(i: number): number {
  return 1_000 + i;
}

/** Pre-serialized pods, joined by commas. */
export interface ItemBytes {
  /** `{…},{…},…` for every pod. */
  readonly bytes: Uint8Array;
  /** Byte offset where pod `i` starts. */
  readonly starts: Uint32Array;
  /** Byte offset just past pod `i`. */
  readonly ends: Uint32Array;
  /** Number of pods. */
  readonly count: number;
}

/** Pre-serialized newline-delimited watch events. */
export interface EventBytes {
  /** Every event line, `\n`-terminated, back to back. */
  readonly bytes: Uint8Array;
  /** Number of events. */
  readonly count: number;
}

const encoder = new TextEncoder();

/** Appends encoded text to a growable buffer. */
class ByteWriter {
  #buf: Uint8Array;
  length = 0;

  constructor(initial: number) {
    this.#buf = new Uint8Array(initial);
  }

  write(text: string): void {
    // UTF-8 needs at most three bytes per UTF-16 code unit.
    const need = this.length + text.length * 3;
    if (need > this.#buf.length) {
      const grown = new Uint8Array(Math.max(need, this.#buf.length * 2));
      grown.set(this.#buf.subarray(0, this.length));
      this.#buf = grown;
    }
    this.length += encoder.encodeInto(text, this.#buf.subarray(this.length))
      .written;
  }

  finish(): Uint8Array {
    return this.#buf.subarray(0, this.length);
  }
}

/** Serializes pods `0 … count-1` at their list versions. */
export function buildItems(count: number): ItemBytes {
  const out = new ByteWriter(count * 3_600);
  const starts = new Uint32Array(count);
  const ends = new Uint32Array(count);
  for (let i = 0; i < count; i++) {
    if (i > 0) out.write(",");
    starts[i] = out.length;
    out.write(JSON.stringify(makePod(i, listItemVersion(i))));
    ends[i] = out.length;
  }
  return { bytes: out.finish(), starts, ends, count };
}

/**
 * `count` MODIFIED events spread round-robin over pods `0 … objects-1`,
 * with resourceVersions counting up from `fromVersion + 1`.
 */
export function buildFlood(
  objects: number,
  count: number,
  fromVersion: number,
): EventBytes {
  const out = new ByteWriter(count * 3_700);
  for (let k = 0; k < count; k++) {
    const pod = makePod(
      k % objects,
      fromVersion + k + 1,
      1 + Math.floor(k / objects),
    );
    out.write(`{"type":"MODIFIED","object":${JSON.stringify(pod)}}\n`);
  }
  return { bytes: out.finish(), count };
}

/** Width of a send time in a stamped flood: zero-padded milliseconds. */
export const SENT_AT_WIDTH = 20;

/** A flood whose events carry their send time, written as each is sent. */
export interface StampedEventBytes extends EventBytes {
  /** Byte offset of event `k`'s send time (`SENT_AT_WIDTH` digits). */
  readonly stamps: Uint32Array;
  /** Byte offset just past event `k`'s line. */
  readonly ends: Uint32Array;
}

/**
 * The events of {@linkcode buildFlood}, each with the annotation
 * `SENT_AT` holding a place for its send time, which the server writes as
 * it hands the event over (`sentAtText`).
 */
export function buildStampedFlood(
  objects: number,
  count: number,
  fromVersion: number,
): StampedEventBytes {
  const out = new ByteWriter(count * 3_750);
  const stamps = new Uint32Array(count);
  const ends = new Uint32Array(count);
  const hole = "@".repeat(SENT_AT_WIDTH);
  for (let k = 0; k < count; k++) {
    const pod = makePod(
      k % objects,
      fromVersion + k + 1,
      1 + Math.floor(k / objects),
    );
    (pod.metadata.annotations as Record<string, string>)[SENT_AT] = hole;
    const line = `{"type":"MODIFIED","object":${JSON.stringify(pod)}}\n`;
    const start = out.length;
    out.write(line);
    // The pods are ASCII: a character is a byte.
    if (out.length - start !== line.length) {
      throw new Error("The stamped flood expects ASCII events");
    }
    stamps[k] = start + line.indexOf(hole);
    ends[k] = out.length;
  }
  return { bytes: out.finish(), count, stamps, ends };
}

/** A send time as `SENT_AT_WIDTH` ASCII bytes (ms, zero-padded). */
export function sentAtText(ms: number): Uint8Array {
  return encoder.encode(ms.toFixed(3).padStart(SENT_AT_WIDTH, "0"));
}

/** The JSON of pod `i` at its list version in the metadata-only form. */
export function partialPodJson(i: number): string {
  return JSON.stringify(
    asPartialObjectMetadata(makePod(i, listItemVersion(i))),
  );
}

/**
 * Pods `0 … count-1` in the metadata-only form (`PartialObjectMetadata`,
 * as the API server answers `as=PartialObjectMetadataList`), stamped on
 * demand rather than held: a million of them would be 2 GB of JSON. The
 * stamp is checked against {@linkcode partialPodJson} at start-up.
 */
export function partialPodStamp(count: number): Stamp {
  const check = [0, 1, 15, 16, 99, 100, 999, 1_000, 8_999, 9_000, 65_535];
  for (let k = 0; k < 64; k++) check.push(Math.floor(count * k / 64));
  check.push(count - 1);
  return new Stamp(
    partialPodJson,
    [
      podName,
      podNamespace,
      podUid,
      ownerUid,
      ownerUidPrefix,
      (i) => String(listItemVersion(i)),
    ],
    check.filter((i) => i < count),
  );
}
