// Shared by the leader election tests: replicas with their own network link
// and clock, over one FakeApiServer, and a check that runs at the instant
// any replica starts leading.
import type { Clock, TimerHandle } from "../clock.ts";
import { FetchClient } from "../client/fetch_client.ts";
import type { RequestOptions, RestClient } from "../client/rest_client.ts";
import { delay } from "../_internal/_time.ts";
import type { KubeObject, Logger } from "../types.ts";
import {
  FakeApiServer,
  FakeClock,
  mockFetch,
  RecordingLogger,
} from "../testing/mod.ts";
import { LeaderElector, type LeaderElectorConfig } from "./leader_elector.ts";

export const LEASE = { namespace: "haptic", name: "haptic-leader" };

/**
 * A clock over a shared FakeClock that runs `rate` times as fast: what a
 * node whose oscillator is off sees. Its origin is offset too, to show that
 * no elector compares timestamps across nodes.
 */
export class SkewedClock implements Clock {
  readonly #base: FakeClock;
  readonly #rate: number;
  readonly #baseStart: number;
  readonly #start: number;

  constructor(base: FakeClock, rate: number, offsetMs = 0) {
    this.#base = base;
    this.#rate = rate;
    this.#baseStart = base.now();
    this.#start = base.now() + offsetMs;
  }

  now(): number {
    return this.#start + (this.#base.now() - this.#baseStart) * this.#rate;
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    return this.#base.setTimeout(fn, Math.max(0, ms) / this.#rate);
  }

  clearTimeout(handle: TimerHandle): void {
    this.#base.clearTimeout(handle);
  }
}

/** How a replica's requests fare on their way to the API server. */
export type LinkState = "up" | "503" | "unreachable" | "stall";

/**
 * One replica's path to the API server. "up" reaches the cluster; "503"
 * reaches a proxy that answers every request with 503 ServiceUnavailable;
 * "unreachable" gets no connection at all; "stall" reaches a proxy that
 * never answers. Every answer goes through a real FetchClient, so the
 * elector sees the errors it would see in production.
 */
export class ReplicaLink implements RestClient {
  state: LinkState = "up";
  /** Holds each request until the promise it returns resolves. */
  gate: ((opts: RequestOptions) => Promise<void>) | undefined;
  /** Milliseconds (of the API server's clock) on the way there and back. */
  latency: (opts: RequestOptions) => { there: number; back: number } = () => ({
    there: 0,
    back: 0,
  });
  readonly #clients: Record<LinkState, FetchClient>;
  readonly #clock: Clock;

  constructor(clients: Record<LinkState, FetchClient>, clock: Clock) {
    this.#clients = clients;
    this.#clock = clock;
  }

  async performRequest(opts: RequestOptions): Promise<never> {
    // The route is taken when the request leaves, whatever the gate changes.
    const client = this.#clients[this.state];
    const { there, back } = this.latency(opts);
    await this.gate?.(opts);
    const clock = this.#clock;
    const signal = opts.abortSignal;
    if (there > 0) await delay(there, { clock, signal });
    const answer = await client.performRequest(opts);
    if (back > 0) await delay(back, { clock, signal });
    return answer as never;
  }
}

/**
 * A gate for {@linkcode ReplicaLink.gate} that holds writes (POST, PUT)
 * until `count` of them wait, then lets them all go: writes based on the
 * same read, arriving at the same instant.
 */
export function writeBarrier(
  count: number,
): (opts: RequestOptions) => Promise<void> {
  let waiting: (() => void)[] = [];
  return (opts) => {
    if (opts.method !== "POST" && opts.method !== "PUT") {
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      waiting.push(resolve);
      if (waiting.length < count) return;
      for (const release of waiting) release();
      waiting = [];
    });
  };
}

/** One replica: its elector, link, clock and what its callbacks saw. */
export interface Replica {
  identity: string;
  elector: LeaderElector;
  link: ReplicaLink;
  clock: Clock;
  /** `started`, `stopped`, `leader:<id>`, in call order. */
  calls: string[];
  done: Promise<void>;
}

/** Settings for {@linkcode Cluster.replica}. */
export interface ReplicaOptions extends Partial<LeaderElectorConfig> {
  identity: string;
  /** Clock rate relative to the API server's (default 1). */
  rate?: number;
  random?: () => number;
  start?: boolean;
}

/**
 * A FakeApiServer on a FakeClock and the proxies a {@linkcode ReplicaLink}
 * fails through: what every replica test (electors, shard rings) runs on.
 */
export class FaultNetwork implements AsyncDisposable {
  readonly clock: FakeClock;
  readonly server: FakeApiServer;
  readonly #failing: FakeApiServer;
  readonly #stalling: FakeApiServer;
  readonly #mocks: Disposable[];
  readonly #clients: Record<LinkState, FetchClient>;

  constructor(options: { now?: number } = {}) {
    this.clock = new FakeClock({ now: options.now ?? 1_700_000_000_000 });
    this.server = new FakeApiServer({
      clock: this.clock,
      initialResourceVersion: 100,
    });
    this.#failing = new FakeApiServer({
      clock: this.clock,
      url: "http://failing-proxy.fake",
    });
    this.#failing.injectFault({ kind: "status", code: 503, times: 1e9 });
    this.#stalling = new FakeApiServer({
      clock: this.clock,
      url: "http://stalling-proxy.fake",
    });
    this.#stalling.injectFault({ kind: "stall", times: 1e9 });
    this.#mocks = [
      mockFetch(this.server),
      mockFetch(this.#failing),
      mockFetch(this.#stalling),
    ];
    this.#clients = {
      up: new FetchClient({ server: this.server.url }),
      "503": new FetchClient({ server: this.#failing.url }),
      unreachable: new FetchClient({ server: "http://unreachable.fake" }),
      stall: new FetchClient({ server: this.#stalling.url }),
    };
  }

  /** A new link, "up" until its state is set. */
  link(): ReplicaLink {
    return new ReplicaLink(this.#clients, this.clock);
  }

  /**
   * Moves time by `ms` from timer to timer, calling `check` after each
   * step: every change a replica makes happens at a timer or in the
   * promise chains settled after it.
   */
  async run(ms: number, check: () => void = () => {}): Promise<void> {
    const end = this.clock.now() + ms;
    for (;;) {
      const remaining = end - this.clock.now();
      const next = this.clock.nextDue ?? Infinity;
      await this.clock.tick(
        Math.min(Math.max(next - this.clock.now(), 0), remaining),
      );
      check();
      if (remaining <= 0) return;
    }
  }

  /** Awaits `promise` while moving time (up to a minute). */
  async whileMoving<T>(promise: Promise<T>): Promise<T> {
    let settled = false;
    const tracked = promise.finally(() => settled = true);
    for (let i = 0; i < 600 && !settled; i++) await this.clock.tick(100);
    return await tracked;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    for (const client of Object.values(this.#clients)) client.close();
    for (const server of [this.server, this.#failing, this.#stalling]) {
      await server.close();
    }
    for (const mock of this.#mocks) mock[Symbol.dispose]();
  }
}

/**
 * A FakeApiServer, the proxies the links fail through, and the replicas.
 * `violations` lists every instant at which a replica started leading
 * while another still reported `isLeader()`.
 */
export class Cluster implements AsyncDisposable {
  readonly clock: FakeClock;
  readonly server: FakeApiServer;
  readonly logger: RecordingLogger = new RecordingLogger();
  readonly replicas: Replica[] = [];
  readonly violations: string[] = [];
  readonly #network: FaultNetwork;

  constructor(options: { now?: number } = {}) {
    this.#network = new FaultNetwork(options);
    this.clock = this.#network.clock;
    this.server = this.#network.server;
  }

  /** Adds (and by default starts) a replica. */
  replica(options: ReplicaOptions): Replica {
    const { identity, rate = 1, random, start = true, ...config } = options;
    const clock = rate === 1 ? this.clock : new SkewedClock(this.clock, rate);
    const link = this.#network.link();
    const calls: string[] = [];
    const replica: Replica = {
      identity,
      link,
      clock,
      calls,
      done: Promise.resolve(),
      elector: new LeaderElector(
        {
          lease: LEASE,
          identity,
          onStartedLeading: () => {
            calls.push("started");
          },
          onStoppedLeading: () => {
            calls.push("stopped");
          },
          onNewLeader: (id) => {
            calls.push(`leader:${id}`);
          },
          ...config,
        },
        link,
        {
          clock,
          logger: this.#checkingLogger(),
          random: random ?? (() => 0.5),
        },
      ),
    };
    this.replicas.push(replica);
    if (start) replica.done = replica.elector.start();
    return replica;
  }

  /** Starts one replica per identity and waits until one of them leads. */
  async elect(identities: string[]): Promise<Replica[]> {
    const replicas = identities.map((identity) => this.replica({ identity }));
    await this.until(() => this.leaders().length === 1, {
      maxMs: 0,
      what: "a leader",
    });
    return replicas;
  }

  /** The replicas that report `isLeader()` now. */
  leaders(): Replica[] {
    return this.replicas.filter((r) => r.elector.isLeader());
  }

  /** The Lease as stored, or `undefined`. */
  lease(): KubeObject | undefined {
    return this.server.list("leases", LEASE.namespace)
      .find((l) => l.metadata.name === LEASE.name);
  }

  /** The Lease's `spec`. */
  spec(): Record<string, unknown> {
    return (this.lease()?.spec ?? {}) as Record<string, unknown>;
  }

  /**
   * Moves time from timer to timer until `predicate` holds; returns how long
   * that took, or throws after `maxMs`.
   */
  async until(
    predicate: () => boolean,
    options: { maxMs: number; what: string },
  ): Promise<number> {
    const start = this.clock.now();
    await this.clock.tick(0);
    while (!predicate()) {
      const remaining = start + options.maxMs - this.clock.now();
      if (remaining <= 0) {
        throw new Error(
          `${options.what}: not reached within ${options.maxMs} ms`,
        );
      }
      const next = this.clock.nextDue ?? Infinity;
      await this.clock.tick(
        Math.min(Math.max(next - this.clock.now(), 0), remaining),
      );
    }
    return this.clock.now() - start;
  }

  /**
   * Moves time by `ms` from timer to timer (every change of leadership
   * happens at a timer or in the promise chains settled after it), calling
   * `check` after each step.
   */
  run(ms: number, check: () => void = () => {}): Promise<void> {
    return this.#network.run(ms, check);
  }

  /**
   * Awaits `promise` while moving time (up to a minute), for what waits on
   * the fake clock: a release whose request stalls until its timeout,
   * callbacks that wind down on timers.
   */
  whileMoving<T>(promise: Promise<T>): Promise<T> {
    return this.#network.whileMoving(promise);
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.whileMoving(
      Promise.all(this.replicas.map((r) => r.elector.stop())),
    );
    await this.#network[Symbol.asyncDispose]();
  }

  /** Records every log line, and checks exclusivity when a term starts. */
  #checkingLogger(): Logger {
    const logger = this.logger;
    return {
      debug: (m, f) => logger.debug(m, f),
      warn: (m, f) => logger.warn(m, f),
      error: (m, f) => logger.error(m, f),
      info: (message, fields) => {
        logger.info(message, fields);
        if (message !== "Started leading") return;
        const leaders = this.leaders().map((r) => r.identity);
        if (leaders.length > 1) {
          this.violations.push(
            `at ${this.clock.now()}: ${fields?.identity} started leading while ${
              leaders.join(", ")
            } reported isLeader()`,
          );
        }
      },
    };
  }
}
