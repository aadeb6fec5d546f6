/**
 * The fake's `shardSelector` (KEP-5866), as kube-apiserver 1.37.2 serves it
 * with `--feature-gates=ShardedListAndWatch=true`: `shardRange(
 * object.metadata.uid, '0x<16 hex>', '0x<16 hex>')` (or `.namespace`),
 * alternatives joined by ` || `, the lower bound inclusive, the upper one
 * exclusive, the end of the space written `0x10000000000000000`; the hash
 * is FNV-1a 64 of the field's string. Every selector the server cannot
 * read is a 500 `invalid shard selector: …`, as on that server: a bound
 * that is not a `0x`-prefixed 16-digit hex value, a range whose start is
 * not below its end, another field. The wording for other text (a
 * function other than `shardRange`) is the fake's own.
 *
 * @module
 */
import type { KubeObject } from "../types.ts";
import { fnv1a64 } from "../_internal/_objects.ts";
import { failure } from "./_status.ts";
import { FakeApiError } from "./fake_api_error.ts";

/** One range of the selector, on one field. */
interface Range {
  readonly field: "uid" | "namespace";
  readonly start: bigint;
  readonly end: bigint;
}

/** What a shard selector keeps. */
export interface ShardSelection {
  /** The selector as the request gave it (`metadata.shardInfo.selector`). */
  readonly selector: string;
  matches(obj: KubeObject): boolean;
}

const TERM =
  /^shardRange\(\s*([A-Za-z.]+)\s*,\s*'([^']*)'\s*,\s*'([^']*)'\s*\)$/;
const FIELDS = new Set(["object.metadata.uid", "object.metadata.namespace"]);
const BOUND = /^0x[0-9a-fA-F]{16}$/;
const SPACE_END = "0x10000000000000000";

/**
 * The filter of a request's `shardSelector`, or `undefined` when it has
 * none.
 *
 * @throws {FakeApiError} 500 for any selector it cannot read.
 */
export function shardFilterOf(
  selector: string | null,
): ShardSelection | undefined {
  if (selector === null || selector.trim() === "") return undefined;
  const ranges = selector.split("||").map((part) => rangeOf(part.trim()));
  return {
    selector,
    matches(obj: KubeObject): boolean {
      for (const range of ranges) {
        const hash = hashOf(
          range.field === "uid" ? obj.metadata.uid : obj.metadata.namespace,
        );
        if (hash >= range.start && hash < range.end) return true;
      }
      return false;
    },
  };
}

function rangeOf(term: string): Range {
  const match = TERM.exec(term);
  if (match === null) {
    throw invalidSelector("only shardRange() and || are allowed");
  }
  const [, path, start, end] = match;
  if (!FIELDS.has(path)) {
    throw invalidSelector(
      `unsupported field path ${
        JSON.stringify(path)
      }; supported: object.metadata.uid, object.metadata.namespace`,
    );
  }
  if (!BOUND.test(start)) throw invalidSelector(badBound("hexStart", start));
  if (!BOUND.test(end) && end !== SPACE_END) {
    throw invalidSelector(badBound("hexEnd", end));
  }
  const range = {
    field: path.slice("object.metadata.".length) as Range["field"],
    start: BigInt(start),
    end: BigInt(end),
  };
  if (range.start >= range.end) {
    throw invalidSelector(
      `shard range start ${start} must be less than end ${end}`,
    );
  }
  return range;
}

function badBound(name: string, value: string): string {
  const short = /^0x([0-9a-fA-F]{1,15})$/.exec(value);
  const hint = short === null
    ? ""
    : ` (did you mean ${JSON.stringify("0x" + short[1].padStart(16, "0"))}?)`;
  return `${name} must be a 0x-prefixed 16-digit hex value, got ${
    JSON.stringify(value)
  }${hint}`;
}

function invalidSelector(detail: string): FakeApiError {
  return new FakeApiError(
    failure(500, `invalid shard selector: ${detail}`),
  );
}

function hashOf(value: string | undefined): bigint {
  const { hi, lo } = fnv1a64(value ?? "");
  return (BigInt(hi) << 32n) | BigInt(lo);
}
