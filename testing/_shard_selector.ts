/**
 * The fake's `shardSelector` (KEP-5866), as kube-apiserver 1.37.2 serves it
 * with `--feature-gates=ShardedListAndWatch=true`: `shardRange(
 * object.metadata.uid, '0x<16 hex>', '0x<16 hex>')` (or `.namespace`),
 * alternatives joined by ` || `, the lower bound inclusive, the upper one
 * exclusive, the end of the space written `0x10000000000000000`; the hash
 * is FNV-1a 64 of the field's string. A bound that is not a `0x`-prefixed
 * 16-digit hex value is a 500, as on that server; any other text the fake
 * cannot read is a 400 (not probed on the real server).
 *
 * @module
 */
import type { KubeObject } from "../types.ts";
import { fnv1a64 } from "../_fnv1a64.ts";
import { badRequest, failure } from "./_status.ts";
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
  /^shardRange\(\s*object\.metadata\.(uid|namespace)\s*,\s*'([^']*)'\s*,\s*'([^']*)'\s*\)$/;
const BOUND = /^0x[0-9a-fA-F]{16}$/;
const SPACE_END = "0x10000000000000000";

/**
 * The filter of a request's `shardSelector`, or `undefined` when it has
 * none.
 *
 * @throws {FakeApiError} 500 for a bound that is not 16 hex digits, 400 for
 * text that is no `shardRange(…)` alternative.
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
    throw new FakeApiError(
      badRequest(`unable to parse shardSelector: ${JSON.stringify(term)}`),
    );
  }
  const [, field, start, end] = match;
  if (!BOUND.test(start)) throw new FakeApiError(badBound("hexStart"));
  if (!BOUND.test(end) && end !== SPACE_END) {
    throw new FakeApiError(badBound("hexEnd"));
  }
  return {
    field: field as Range["field"],
    start: BigInt(start),
    end: BigInt(end),
  };
}

function badBound(name: string) {
  return failure(500, `${name} must be a 0x-prefixed 16-digit hex value`);
}

function hashOf(value: string | undefined): bigint {
  const { hi, lo } = fnv1a64(value ?? "");
  return (BigInt(hi) << 32n) | BigInt(lo);
}
