/**
 * The WorkQueue's concurrency rules under random schedules: a seeded
 * property test. Each seed runs 2 to 8 workers over 1 to 12 keys on a
 * FakeClock, with live and low-priority adds, delayed adds, failures
 * (`addRateLimited`) and successes (`forget`), work of random length, and a
 * shutdown at a random point, drained or not. Invariants:
 * - a key is never held by two workers at once;
 * - once the adds stop and the clock has run out, every key added after its
 *   last hand-out has been handed out again (no add is lost);
 * - a key is handed out at most once per add, so adds during one hand-out
 *   cost it at most one more;
 * - a failed key waits at least its own backoff (`baseMs · 2^(n−1)`, capped)
 *   unless something else added it, and `retries()` counts its failures;
 * - after `shutDown()` nothing is handed out, and a drained shutdown
 *   resolves only once every held key is done.
 *
 * `QUEUE_PROPERTY_SEED=<n>` runs seed n only (a failure prints that line);
 * `QUEUE_PROPERTY_SEEDS=<count>` runs seeds 1 to count.
 */
import type { Clock, TimerHandle } from "../clock.ts";
import {
  assertSeedsHeld,
  seeded,
  seedsToRun,
} from "../testing/_seeded_random.ts";
import { WorkQueue } from "./work_queue.ts";

const FILE = "controller/work_queue_property_test.ts";
const CI_SEEDS = 200;
const BASE_MS = 5;
const MAX_MS = 320;

function replay(seed: number): string {
  return `QUEUE_PROPERTY_SEED=${seed} deno test --allow-env ${FILE}`;
}

/**
 * A clock for this test alone: `FakeClock` yields real event-loop turns
 * after each timer (for I/O), but the queue and these workers only chain
 * promises, so draining microtasks is enough, and a seed runs in
 * milliseconds rather than seconds.
 */
class MicrotaskClock implements Clock {
  #now = 0;
  #seq = 0;
  readonly #timers = new Map<number, { due: number; fn: () => void }>();

  now(): number {
    return this.#now;
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const handle = ++this.#seq;
    this.#timers.set(handle, { due: this.#now + ms, fn });
    return handle;
  }

  clearTimeout(handle: TimerHandle): void {
    this.#timers.delete(handle as number);
  }

  get pendingTimers(): number {
    return this.#timers.size;
  }

  get nextDue(): number | undefined {
    let due: number | undefined;
    for (const timer of this.#timers.values()) {
      if (due === undefined || timer.due < due) due = timer.due;
    }
    return due;
  }

  /** Fires the timers due by now + ms in order (first set first on a tie). */
  async tick(ms: number): Promise<void> {
    const target = this.#now + ms;
    await drain();
    for (;;) {
      let next: [number, { due: number; fn: () => void }] | undefined;
      for (const entry of this.#timers) {
        if (entry[1].due > target) continue;
        if (next === undefined || entry[1].due < next[1].due) next = entry;
      }
      if (next === undefined) break;
      this.#timers.delete(next[0]);
      this.#now = Math.max(this.#now, next[1].due);
      next[1].fn();
      await drain();
    }
    this.#now = target;
  }
}

async function drain(): Promise<void> {
  for (let i = 0; i < 20; i++) await Promise.resolve();
}

/** One seed's run; the broken rules, empty when it held. */
async function runSeed(seed: number): Promise<string[]> {
  const random = seeded(seed);
  const pick = <T>(items: readonly T[]): T =>
    items[Math.floor(random() * items.length)];
  const clock = new MicrotaskClock();
  const queue = new WorkQueue<string>({
    clock,
    agingMs: 50,
    backoff: { baseMs: BASE_MS, maxMs: MAX_MS },
  });
  const keys = Array.from(
    { length: 1 + Math.floor(random() * 12) },
    (_, i) => `k${i}`,
  );
  const workers = 2 + Math.floor(random() * 7);
  const broken: string[] = [];
  const held = new Map<string, number>(); // key → worker holding it
  /** Per key: an add since its last hand-out that is not yet served. */
  const pending = new Set<string>();
  /** Per key: hand-outs since its last add (more than 1 is a duplicate). */
  const handOuts = new Map<string, number>();
  /** The model of the delayed adds: the earliest pending one per key wins. */
  const delayed = new Map<string, { due: number; timer: unknown }>();
  const failures = new Map<string, number>();
  /** A failure's earliest allowed hand-out, unless another add came. */
  const notBefore = new Map<string, number>();
  let shutDown = false;
  let drainedAt: number | undefined;

  const steps = 200 + Math.floor(random() * 200);
  const shutDownAt = Math.floor(random() * steps * 1.5);
  const drain = random() < 0.5;
  let step = 0;

  const add = (key: string) => {
    pending.add(key);
    notBefore.delete(key);
    handOuts.set(key, 0);
  };
  /**
   * Models a delayed add, before the queue's own (so that at the same time
   * the model's runs first); false when an earlier one absorbs it.
   */
  const addLater = (key: string, ms: number): boolean => {
    const due = clock.now() + ms;
    const earlier = delayed.get(key);
    if (earlier !== undefined && earlier.due <= due) return false;
    if (earlier !== undefined) clock.clearTimeout(earlier.timer);
    const timer = clock.setTimeout(() => {
      delayed.delete(key);
      add(key);
    }, ms);
    delayed.set(key, { due, timer });
    return true;
  };

  const worker = async (id: number) => {
    for (;;) {
      const key = await queue.next();
      if (key === undefined) return;
      if (shutDown) broken.push(`${key} handed out after shutDown()`);
      const other = held.get(key);
      if (other !== undefined) {
        broken.push(`${key} handed to worker ${id} while ${other} held it`);
      }
      const earliest = notBefore.get(key);
      if (earliest !== undefined && clock.now() < earliest) {
        broken.push(
          `${key} retried at ${clock.now()} ms, before its backoff ended at ${earliest} ms`,
        );
      }
      notBefore.delete(key);
      held.set(key, id);
      pending.delete(key);
      const times = (handOuts.get(key) ?? 0) + 1;
      handOuts.set(key, times);
      if (times > 1) {
        broken.push(`${key} handed out ${times} times for one add`);
      }
      // Work of random length on the clock.
      const ms = Math.floor(random() * 30);
      if (ms > 0) {
        await new Promise<void>((resolve) => clock.setTimeout(resolve, ms));
      }
      const outcome = random();
      held.delete(key);
      if (!shutDown && outcome < 0.25) {
        const n = (failures.get(key) ?? 0) + 1;
        failures.set(key, n);
        const backoff = Math.min(BASE_MS * 2 ** (n - 1), MAX_MS);
        if (addLater(key, backoff) && !pending.has(key)) {
          notBefore.set(key, clock.now() + backoff);
        }
        queue.addRateLimited(key);
        if (queue.retries(key) !== n) {
          broken.push(`${key}: retries() is ${queue.retries(key)}, not ${n}`);
        }
      } else {
        failures.delete(key);
        queue.forget(key);
      }
      queue.done(key);
    }
  };

  const running = Array.from({ length: workers }, (_, i) => worker(i));
  let drained: Promise<void> | undefined;
  for (; step < steps; step++) {
    if (step === shutDownAt) {
      shutDown = true;
      for (const { timer } of delayed.values()) clock.clearTimeout(timer);
      delayed.clear();
      drained = queue.shutDown({ drain }).then(() => {
        drainedAt = clock.now();
        if (drain && held.size > 0) {
          broken.push(
            `drained shutDown() resolved while ${[...held.keys()]} were held`,
          );
        }
      });
    }
    const roll = random();
    const key = pick(keys);
    if (shutDown) {
      // Adds after shutdown are refused; nothing else to drive.
    } else if (roll < 0.35) {
      add(key);
      queue.add(key);
    } else if (roll < 0.5) {
      add(key);
      queue.add(key, { priority: "low" });
    } else if (roll < 0.65) {
      // A delayed add: pending from when it fires (tracked then).
      const ms = 1 + Math.floor(random() * 100);
      addLater(key, ms);
      queue.addAfter(key, ms);
    }
    await clock.tick(Math.floor(random() * 10));
  }
  // Quiet: let every timer run out and every worker finish what it holds.
  for (let rounds = 0; rounds < 10_000; rounds++) {
    if (clock.nextDue === undefined && held.size === 0) break;
    await clock.tick(
      clock.nextDue === undefined
        ? 1
        : Math.max(0, clock.nextDue - clock.now()),
    );
  }
  if (!shutDown) {
    for (const key of pending) {
      broken.push(`${key} was added after its last hand-out and never served`);
    }
    if (queue.length !== 0 || queue.processing.size !== 0) {
      broken.push(
        `quiet, but ${queue.length} keys wait and ${queue.processing.size} are held`,
      );
    }
    shutDown = true;
    drained = queue.shutDown({ drain: true });
  }
  await drained;
  await Promise.all(running);
  if (drain && drainedAt === undefined && shutDownAt < steps) {
    broken.push("a drained shutDown() never resolved");
  }
  if (clock.pendingTimers !== 0) {
    broken.push(`${clock.pendingTimers} timers left after shutdown`);
  }
  return broken;
}

const list = seedsToRun("QUEUE_PROPERTY", CI_SEEDS);

Deno.test(`WorkQueue keeps its rules under random schedules (${list.length} seeds)`, async () => {
  const failed: { seed: number; broken: string[] }[] = [];
  for (const seed of list) {
    const broken = await runSeed(seed);
    if (broken.length > 0) failed.push({ seed, broken });
  }
  assertSeedsHeld(failed, list.length, replay);
});
