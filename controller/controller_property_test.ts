/**
 * The Controller's rules under random schedules: a seeded property test.
 * Each seed runs a controller with 1 to 4 workers over Widgets, the
 * ConfigMaps they own and Secrets mapped to them, on the fake API server
 * and a fake clock, with random events, reconcile durations, failures,
 * `requeueAfter`s and, for some seeds, a stop part way. It checks:
 *
 * - never two reconciles of one key at the same time;
 * - once the world is quiet, every key's last reconcile saw the newest
 *   version of its object (or its absence);
 * - a retry comes no sooner than its backoff (10 ms doubling to 200 ms),
 *   and its attempt number counts the failures since the last success;
 * - any burst of events for a key during a successful reconcile costs at
 *   most one more reconcile (a reconcile that sees nothing new after one
 *   that succeeded, with no event in between, is one too many);
 * - nothing runs after `stop()` resolves.
 *
 * `CONTROLLER_PROPERTY_SEED=<n>` runs seed n only (a failure prints that
 * line); `CONTROLLER_PROPERTY_SEEDS=<count>` runs seeds 1 to count.
 *
 * @module
 */
import {
  assertSeedsHeld,
  seeded,
  seedsToRun,
} from "../testing/_seeded_random.ts";
import { settle } from "../testing/fake_clock.ts";
import {
  CONFIGMAPS,
  ControllerHarness,
  widget,
} from "./_controller_harness_test.ts";

const FILE = "controller/controller_property_test.ts";
const CI_SEEDS = 12;
const BASE_MS = 10;
const MAX_MS = 200;
const SECRETS = { group: "", version: "v1", resource: "secrets" };
const NAMES = ["w0", "w1", "w2", "w3", "w4", "w5"];

function replay(seed: number): string {
  return `CONTROLLER_PROPERTY_SEED=${seed} deno test -A ${FILE}`;
}

type Outcome = "success" | "failure" | "requeueAfter";

interface Attempt {
  key: string;
  attempt: number;
  saw: string | undefined;
  /** The versions of every object of its key it saw at its start. */
  seen: string;
  startSeq: number;
  start: number;
  endSeq?: number;
  end?: number;
  outcome?: Outcome;
  /** When the delayed add it asked for (a retry, a requeue) falls due. */
  due?: number;
}

/** One seed's run; the broken rules, empty when they held. */
async function runSeed(seed: number): Promise<string[]> {
  const random = seeded(seed);
  const pick = (n: number) => Math.floor(random() * n);
  const broken: string[] = [];
  await using h = new ControllerHarness({
    config: {
      owns: [{ gvr: CONFIGMAPS }],
      watches: [{
        gvr: SECRETS,
        map: (secret) => {
          const target = secret.metadata.labels?.widget;
          return target ? [`shop/${target}`] : [];
        },
      }],
      maxConcurrent: 1 + pick(4),
      queue: { backoff: { baseMs: BASE_MS, maxMs: MAX_MS } },
    },
  });
  let seq = 0;
  const attempts: Attempt[] = [];
  const events = new Map<string, number[]>(); // key → seqs of its events
  const running = new Set<string>();
  let chaos = true;
  let stoppedSeq: number | undefined;

  h.reconcile = async (key, context) => {
    const record: Attempt = {
      key,
      attempt: context.attempt,
      saw: context.get()?.metadata.resourceVersion,
      seen: [
        context.get(),
        context.store("configmaps").get("shop", `${context.name}-child`)[0],
        context.store("secrets").get("shop", `for-${context.name}`)[0],
      ].map((o) => o?.metadata.resourceVersion ?? "-").join(" "),
      startSeq: ++seq,
      start: h.clock.now(),
    };
    attempts.push(record);
    if (stoppedSeq !== undefined) {
      broken.push(`${key} started after stop() resolved`);
    }
    if (running.has(key)) broken.push(`${key} reconciled twice at once`);
    running.add(key);
    try {
      const ms = pick(30);
      if (ms > 0) {
        await new Promise<void>((resolve) => h.clock.setTimeout(resolve, ms));
      }
      const roll = random();
      if (chaos && roll < 0.2) {
        record.outcome = "failure";
        record.due = h.clock.now() +
          Math.min(BASE_MS * 2 ** (context.attempt - 1), MAX_MS);
        throw new Error("injected failure");
      }
      if (chaos && roll < 0.3) {
        record.outcome = "requeueAfter";
        const ms = 1 + pick(100);
        record.due = h.clock.now() + ms;
        return { requeueAfter: ms };
      }
      record.outcome = "success";
    } finally {
      running.delete(key);
      record.endSeq = ++seq;
      record.end = h.clock.now();
    }
  };

  const event = (key: string) => {
    let list = events.get(key);
    if (list === undefined) events.set(key, list = []);
    list.push(++seq);
  };
  const exists = (name: string) =>
    h.server.list("widgets", "shop").some((w) => w.metadata.name === name);

  const step = () => {
    const name = NAMES[pick(NAMES.length)];
    const key = `shop/${name}`;
    switch (pick(8)) {
      case 0:
      case 1:
      case 2: // a Widget: created, changed or deleted
        if (!exists(name)) h.server.create("widgets", widget("shop", name));
        else if (random() < 0.7) {
          h.server.patch("widgets", "shop", name, { spec: { size: pick(9) } });
        } else h.server.delete("widgets", "shop", name);
        event(key);
        return;
      case 3: { // a ConfigMap a Widget owns
        if (!exists(name)) return;
        const owner = h.server.get("widgets", "shop", name);
        const child = `${name}-child`;
        const there = h.server.list("configmaps", "shop").some((c) =>
          c.metadata.name === child
        );
        if (!there) {
          h.server.create("configmaps", {
            metadata: {
              namespace: "shop",
              name: child,
              ownerReferences: [{
                apiVersion: "example.com/v1",
                kind: "Widget",
                name,
                uid: owner.metadata.uid!,
                controller: true,
              }],
            },
          });
        } else if (random() < 0.5) {
          h.server.patch("configmaps", "shop", child, {
            data: { n: String(pick(9)) },
          });
        } else h.server.delete("configmaps", "shop", child);
        event(key);
        return;
      }
      case 4: { // a Secret mapped to a Widget's key
        const secret = `for-${name}`;
        const there = h.server.list("secrets", "shop").some((s) =>
          s.metadata.name === secret
        );
        if (!there) {
          h.server.create("secrets", {
            metadata: {
              namespace: "shop",
              name: secret,
              labels: { widget: name },
            },
          });
        } else h.server.delete("secrets", "shop", secret);
        event(key);
        return;
      }
      default:
        return;
    }
  };

  h.start();
  await settle();
  const stopAt = random() < 0.25 ? 10 + pick(40) : undefined;
  for (let i = 0; i < 60; i++) {
    step();
    await settle(2);
    if (random() < 0.5) await h.clock.tick(pick(40));
    if (i === stopAt) {
      // Draining: the reconciles in flight wait on the clock.
      let stopped = false;
      const stopping = h.controller.stop().then(() => stopped = true);
      while (!stopped) {
        await h.clock.tick(5);
        await settle(1);
      }
      await stopping;
      if (running.size > 0) {
        broken.push(`stop() resolved with ${[...running]} running`);
      }
      stoppedSeq = ++seq;
      for (let j = 0; j < 5; j++) {
        step();
        await h.clock.tick(MAX_MS);
        await settle(2);
      }
      return broken;
    }
  }

  // Quiet: no more events or injected outcomes; let every retry run out.
  chaos = false;
  for (let i = 0; i < 100; i++) {
    await h.clock.tick(MAX_MS);
    await settle(2);
    const health = h.controller.health();
    if (
      health.workers.active === 0 && health.queue.waiting === 0 &&
      h.clock.pendingTimers === 0
    ) break;
  }
  for (const name of NAMES) {
    const key = `shop/${name}`;
    const own = attempts.filter((a) => a.key === key);
    const last = own.at(-1);
    const newest = exists(name)
      ? h.server.get("widgets", "shop", name).metadata.resourceVersion
      : undefined;
    if (own.length === 0) {
      if (newest !== undefined) broken.push(`${key} never reconciled`);
      continue;
    }
    if (last!.saw !== newest) {
      broken.push(
        `${key}'s last reconcile saw ${last!.saw ?? "absent"}, newest is ${
          newest ?? "absent"
        }`,
      );
    }
    checkBackoff(key, own, events.get(key) ?? [], broken);
    checkBursts(key, own, events.get(key) ?? [], broken);
  }
  return broken;
}

/**
 * Whether a delayed add an earlier attempt asked for fell due between
 * `from` and `to`: the queue keeps the earliest of a key's delayed adds,
 * so an older retry or requeue can come before a newer backoff ends.
 */
function fellDue(earlier: Attempt[], from: number, to: number): boolean {
  return earlier.some((a) =>
    a.due !== undefined && a.due >= from && a.due <= to
  );
}

/**
 * After a failure, the next try waits its backoff unless an event came or
 * an older delayed add fell due.
 */
function checkBackoff(
  key: string,
  own: Attempt[],
  events: number[],
  broken: string[],
): void {
  for (let i = 1; i < own.length; i++) {
    const before = own[i - 1];
    const after = own[i];
    const expected = before.outcome === "failure" ? before.attempt + 1 : 1;
    if (after.attempt !== expected) {
      broken.push(
        `${key}: attempt ${after.attempt} after a ${before.outcome} of attempt ${before.attempt}`,
      );
    }
    if (before.outcome !== "failure") continue;
    // An event came in between when one was written after the failed try
    // began, or one written before reached the cache only after it began.
    const evented = after.seen !== before.seen ||
      events.some((e) => e > before.startSeq && e < after.startSeq) ||
      fellDue(own.slice(0, i - 1), before.start, after.start);
    const wait = after.start - before.end!;
    const backoff = Math.min(BASE_MS * 2 ** (before.attempt - 1), MAX_MS);
    if (!evented && wait < backoff) {
      broken.push(
        `${key}: retry of attempt ${before.attempt} after ${wait} ms, its backoff is ${backoff} ms`,
      );
    }
  }
}

/**
 * After a successful reconcile, until the next event for its key, at most
 * one more reconcile runs (for the events that came during it).
 */
function checkBursts(
  key: string,
  own: Attempt[],
  events: number[],
  broken: string[],
): void {
  for (let i = 0; i < own.length; i++) {
    const done = own[i];
    if (done.outcome !== "success") continue;
    const nextEvent = events.find((e) => e > done.endSeq!) ?? Infinity;
    const extra = own.filter((a) =>
      a.startSeq > done.endSeq! && a.startSeq < nextEvent
    );
    // The first is for the events during it (or written before it and
    // seen only after it began); each later one must be the retry or
    // requeue of the one before, or see something new.
    for (let j = 1; j < extra.length; j++) {
      const [prior, next] = [extra[j - 1], extra[j]];
      if (
        prior.outcome === "success" && next.seen === prior.seen &&
        !fellDue(
          own.filter((a) => a.startSeq < prior.startSeq),
          prior.start,
          next.start,
        )
      ) {
        broken.push(
          `${key}: a reconcile at seq ${next.startSeq} after one that succeeded, with nothing new`,
        );
      }
    }
  }
}

const list = seedsToRun("CONTROLLER_PROPERTY", CI_SEEDS);

Deno.test(`Controller keeps its rules under random schedules (${list.length} seeds)`, async () => {
  const failed: { seed: number; broken: string[] }[] = [];
  for (const seed of list) {
    const broken = await runSeed(seed);
    if (broken.length > 0) failed.push({ seed, broken });
  }
  assertSeedsHeld(failed, list.length, replay);
});
