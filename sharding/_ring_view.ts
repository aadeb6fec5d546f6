/**
 * The ring's arithmetic, without I/O: which range each member of a view
 * owns, and which ranges a replica may work on given what every member has
 * acknowledged, and the share of the hash space ranges cover.
 * `shard_ring.ts` feeds it what it read from the Leases.
 *
 * @module
 */
import { fnv1a64, type Hash64 } from "../_internal/_objects.ts";
import { HASH_SPACE_END, type ShardRange } from "./shard_ring_config.ts";

/** A view: the ring's members, sorted, without duplicates. */
export type View = readonly string[];

/** The view of `identities`: sorted by code unit, each once. */
export function viewOf(identities: Iterable<string>): View {
  return [...new Set(identities)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** Whether two views have the same members. */
export function sameView(a: View | undefined, b: View | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.length === b.length && a.every((id, i) => id === b[i]);
}

/**
 * The range `identity` owns in `view`: the hash space cut into
 * `view.length` contiguous, equal parts (to within one hash), the i-th
 * member's the i-th part. Empty when `identity` is not a member.
 */
export function rangeOf(view: View, identity: string): ShardRange[] {
  const i = view.indexOf(identity);
  if (i < 0) return [];
  const n = BigInt(view.length);
  return [{
    start: (BigInt(i) * HASH_SPACE_END) / n,
    end: (BigInt(i + 1) * HASH_SPACE_END) / n,
  }];
}

/** `a` without what `b` covers; both lists sorted and disjoint, as is the result. */
export function subtract(
  a: readonly ShardRange[],
  b: readonly ShardRange[],
): ShardRange[] {
  const out: ShardRange[] = [];
  for (const range of a) {
    let start = range.start;
    for (const cut of b) {
      if (cut.end <= start || cut.start >= range.end) continue;
      if (cut.start > start) out.push({ start, end: cut.start });
      start = cut.end > start ? cut.end : start;
    }
    if (start < range.end) out.push({ start, end: range.end });
  }
  return out;
}

/** What `a` and `b` both cover. */
export function intersect(
  a: readonly ShardRange[],
  b: readonly ShardRange[],
): ShardRange[] {
  const out: ShardRange[] = [];
  for (const x of a) {
    for (const y of b) {
      const start = x.start > y.start ? x.start : y.start;
      const end = x.end < y.end ? x.end : y.end;
      if (start < end) out.push({ start, end });
    }
  }
  return out.sort((p, q) => (p.start < q.start ? -1 : 1));
}

/** Whether two range lists are the same list. */
export function sameRanges(
  a: readonly ShardRange[],
  b: readonly ShardRange[],
): boolean {
  return a.length === b.length &&
    a.every((r, i) => r.start === b[i].start && r.end === b[i].end);
}

/** The share of the hash space `ranges` cover, in `[0, 1]`. */
export function shareOf(ranges: readonly ShardRange[]): number {
  let sum = 0n;
  for (const r of ranges) sum += r.end - r.start;
  return Number((sum * 1_000_000n) / HASH_SPACE_END) / 1_000_000;
}

/** Another member as the last LIST of the ring's Leases showed it. */
export interface MemberAck {
  readonly identity: string;
  /** The view it last acknowledged; `undefined` before its first. */
  readonly acked: View | undefined;
}

/**
 * The ranges this replica may work on: its range in the view it has
 * acknowledged, without every range another live member's acknowledged
 * view gives that member. Computed from a LIST made after this replica's
 * last acknowledgement was written, this is what makes two replicas never
 * work on one key: of two acknowledgements, the later writer's LIST sees
 * the earlier one (the Lease writes and the LIST are linearizable), so at
 * most one of them takes a range both views give away.
 */
export function permittedRanges(
  identity: string,
  acked: View | undefined,
  others: readonly MemberAck[],
): ShardRange[] {
  if (acked === undefined) return [];
  let ranges = rangeOf(acked, identity);
  for (const other of others) {
    if (other.identity === identity || other.acked === undefined) continue;
    ranges = subtract(ranges, rangeOf(other.acked, other.identity));
  }
  return ranges;
}

/** Ranges as 32-bit halves, for checking a hash without BigInt. */
export type CompiledRanges = readonly (readonly [
  startHi: number,
  startLo: number,
  endHi: number,
  endLo: number,
  endIsSpaceEnd: boolean,
])[];

const MASK32 = 0xffffffffn;

/** `ranges` in the form {@linkcode inRanges} reads. */
export function compileRanges(ranges: readonly ShardRange[]): CompiledRanges {
  return ranges.map((r) =>
    [
      Number(r.start >> 32n),
      Number(r.start & MASK32),
      Number((r.end >> 32n) & MASK32),
      Number(r.end & MASK32),
      r.end === HASH_SPACE_END,
    ] as const
  );
}

/** Whether `hash` lies in one of `ranges`. */
export function inRanges(ranges: CompiledRanges, hash: Hash64): boolean {
  const { hi, lo } = hash;
  for (const [sHi, sLo, eHi, eLo, toEnd] of ranges) {
    const afterStart = hi > sHi || (hi === sHi && lo >= sLo);
    const beforeEnd = toEnd || hi < eHi || (hi === eHi && lo < eLo);
    if (afterStart && beforeEnd) return true;
  }
  return false;
}

/** The hash of `value` (a uid or a namespace; absent hashes as `""`). */
export function hashOf(value: string | undefined): Hash64 {
  return fnv1a64(value ?? "");
}
