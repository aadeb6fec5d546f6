/**
 * Which meter a group and its member watchers report on, when only one of
 * them, or their client, was given one: a group's own meter reaches the
 * watchers feeding it (unless they have their own), and a group without
 * one reports on the meter of the first watcher that feeds it (its own,
 * else its client's), so that one meter set on the client reaches the
 * group too. Kept beside the member link (`_group_link.ts`) rather than in
 * it: the link is about batches, this about where they are counted.
 *
 * @module
 */
import type { Meter } from "../metrics/meter.ts";

/** What a group says about its meter, registered for each member it makes. */
export interface GroupMeter {
  /** The meter given in the group's options, if any. */
  readonly own: Meter | undefined;
  /** A member watcher reports on `meter`: the group takes it if it has none. */
  adopt(meter: Meter): void;
}

const groups = new WeakMap<object, GroupMeter>();

/** Called by the group for each member it makes. */
export function registerGroupMeter(member: object, group: GroupMeter): void {
  groups.set(member, group);
}

/** The meter of the group `member` came from, when the group was given one. */
export function groupMeterOf(member: unknown): Meter | undefined {
  return member !== null && typeof member === "object"
    ? groups.get(member)?.own
    : undefined;
}

/** A watcher feeding `member` reports on `meter`; the group may take it. */
export function offerMeter(member: unknown, meter: Meter | undefined): void {
  if (meter === undefined || member === null || typeof member !== "object") {
    return;
  }
  groups.get(member)?.adopt(meter);
}
