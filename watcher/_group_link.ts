/**
 * How a `Watcher` feeds a `DebounceGroup` member without pushing a batch
 * per event: it attaches its own pending batch as the member's source, and
 * the group takes that batch whole when it fires. Kept out of the public
 * API: users pass the member (`group.member(name)`) in the watcher's
 * `group` option.
 *
 * @module
 */
import type { Clock } from "../clock.ts";

/** A member's batch, held by its watcher until the group takes it. */
export interface GroupSource<T> {
  /** The watcher's clock: the group refuses a source on another one. */
  readonly clock?: Clock;
  /** Whether nothing is ready to deliver. */
  readonly isEmpty: boolean;
  /** Whether the batch ready is an initial sync's (it opens no window). */
  readonly isInitial: boolean;
  /**
   * Whether the watcher is loading its initial list (started, not synced,
   * its batches held back): the group's calls wait for it.
   */
  readonly loading: boolean;
  /** When the oldest change ready was recorded, on the clock. */
  readonly since: number | undefined;
  /** Takes the batch and starts an empty one. */
  take(): T;
  /**
   * The group's call that carried the batch taken last has ended.
   * `retry`: it failed, and the batch goes back for the next call.
   */
  ended(retry: boolean): void;
}

/** What an attached source can ask of its group. */
export interface GroupLink {
  /** Something was added to the source: schedule a call. */
  changed(): void;
  /**
   * The source's initial list is in: its initial batch goes out at once,
   * opening no refractory window, with every other member's once none is
   * loading its list any more.
   */
  synced(): Promise<void>;
  /** Delivers what is pending now (after a running call). */
  flush(): Promise<void>;
  /** Resolves once the group runs no call and has none scheduled. */
  idle(): Promise<void>;
  /** Stops taking from this source. */
  detach(): void;
  /** The group, whose `onChange` a member watcher's stop must not wait for. */
  readonly group: object;
}

type Attach = (source: GroupSource<never>) => GroupLink;

const members = new WeakMap<object, Attach>();

/** Called by the group for each member it makes. */
export function registerMember<T>(
  member: object,
  attach: (source: GroupSource<T>) => GroupLink,
): void {
  members.set(member, attach as Attach);
}

/**
 * Attaches `source` to the group `member` came from.
 *
 * @throws {Error} When `member` was not made by a `DebounceGroup`, or
 * already has a source.
 */
export function attachSource<T>(
  member: object,
  source: GroupSource<T>,
): GroupLink {
  const attach = members.get(member);
  if (attach === undefined) {
    throw new Error("must be a member made by DebounceGroup.member(name)");
  }
  return (attach as (source: GroupSource<T>) => GroupLink)(source);
}
