// Shared by the shard ring tests: members with their own link and clock
// over one FakeApiServer, each recording when it works on which ranges, and
// a check that no hash is worked by two members at one instant.
import type { Clock } from "../clock.ts";
import { RecordingLogger } from "../testing/mod.ts";
import {
  FaultNetwork,
  type ReplicaLink,
  SkewedClock,
} from "../leaderelection/_harness_test.ts";
import { ShardRing } from "./shard_ring.ts";
import type {
  ShardRange,
  ShardRingConfig,
  ShardRingState,
} from "./shard_ring_config.ts";
import { intersect } from "./_ring_view.ts";

export const RING = { name: "widgets", namespace: "shop" };

/** One member: its ring, link, clock and the ranges it works on now. */
export interface Member {
  identity: string;
  ring: ShardRing;
  link: ReplicaLink;
  clock: Clock;
  /** What `onChange` was last told it may work on (after its hook ran). */
  working: readonly ShardRange[];
  states: ShardRingState[];
  done: Promise<void>;
  /** Makes the hook of the next shrinks wait this long (fake ms). */
  handOffMs: number;
  /** A crashed process works on nothing, whatever its ring still does. */
  crashed: boolean;
  /** Stopped on purpose. */
  left: boolean;
}

/** Settings for {@linkcode RingCluster.member}. */
export interface MemberOptions extends Partial<ShardRingConfig> {
  identity: string;
  rate?: number;
  random?: () => number;
}

export class RingCluster implements AsyncDisposable {
  readonly network: FaultNetwork = new FaultNetwork();
  readonly clock = this.network.clock;
  readonly server = this.network.server;
  readonly logger: RecordingLogger = new RecordingLogger();
  readonly members: Member[] = [];
  readonly violations: string[] = [];

  /** Adds and starts a member. */
  member(options: MemberOptions): Member {
    const { identity, rate = 1, random, ...config } = options;
    const clock = rate === 1 ? this.clock : new SkewedClock(this.clock, rate);
    const link = this.network.link();
    const member: Member = {
      identity,
      link,
      clock,
      working: [],
      states: [],
      done: Promise.resolve(),
      handOffMs: 0,
      crashed: false,
      left: false,
      ring: undefined as unknown as ShardRing,
    };
    member.ring = new ShardRing(
      {
        ...RING,
        identity,
        leaseDurationMs: 15_000,
        renewDeadlineMs: 10_000,
        retryPeriodMs: 2_000,
        ...config,
        onChange: async (state) => {
          member.states.push(state);
          // Growing is immediate; giving up waits for the work to stop.
          const keep = intersect(member.working, state.permitted);
          // Draining takes time; at a renew deadline (nothing assigned) the
          // work is aborted at once.
          if (lost(member, keep) && state.assigned.length > 0) {
            if (member.handOffMs > 0) {
              await new Promise<void>((resolve) =>
                this.clock.setTimeout(resolve, member.handOffMs)
              );
            }
          }
          member.working = state.permitted;
          this.check();
        },
      },
      link,
      { clock, logger: this.logger, random: random ?? (() => 0.5) },
    );
    member.done = member.ring.start();
    this.members.push(member);
    return member;
  }

  /** Starts `identity` alone and waits until it works on the whole space. */
  async alone(identity: string): Promise<Member> {
    const member = this.member({ identity });
    await this.until(
      () => shares([member])[identity] === 1,
      10_000,
      `${identity} works on everything`,
    );
    return member;
  }

  /** Records an instant where two members work on one hash. */
  check(): void {
    const working = this.members.filter((m) =>
      !m.crashed && m.working.length > 0
    );
    for (let i = 0; i < working.length; i++) {
      for (let j = i + 1; j < working.length; j++) {
        const both = intersect(working[i].working, working[j].working);
        if (both.length > 0) {
          this.violations.push(
            `at ${this.clock.now()}: ${working[i].identity} and ${
              working[j].identity
            } both work on ${both[0].start.toString(16)}…`,
          );
        }
      }
    }
  }

  /** Moves time from timer to timer for `ms`, checking after each step. */
  run(ms: number): Promise<void> {
    return this.network.run(ms, () => this.check());
  }

  /** Moves time until `predicate` holds, or throws after `maxMs`. */
  async until(predicate: () => boolean, maxMs: number, what: string) {
    const start = this.clock.now();
    await this.clock.tick(0);
    while (!predicate()) {
      if (this.clock.now() - start >= maxMs) {
        throw new Error(`${what}: not reached within ${maxMs} ms`);
      }
      await this.run(Math.min(100, maxMs));
    }
    return this.clock.now() - start;
  }

  /** Awaits `promise` while moving time (up to a minute). */
  whileMoving<T>(promise: Promise<T>): Promise<T> {
    return this.network.whileMoving(promise);
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.whileMoving(Promise.all(this.members.map((m) => m.ring.stop())));
    await this.network[Symbol.asyncDispose]();
  }
}

function lost(member: Member, keep: readonly ShardRange[]): boolean {
  return keep.length !== member.working.length ||
    keep.some((r, i) =>
      r.start !== member.working[i].start || r.end !== member.working[i].end
    );
}

/** The share of the hash space each member works on, by identity. */
export function shares(members: readonly Member[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const m of members) {
    let sum = 0n;
    for (const r of m.working) sum += r.end - r.start;
    out[m.identity] = Number((sum * 1000n) / (1n << 64n)) / 1000;
  }
  return out;
}
