import { type Clock, systemClock, type TimerHandle } from "../clock.ts";
import {
  assertOptionNames,
  durationProblem,
} from "../_internal/_option_checks.ts";
import { instrumentsOf, meterProblem } from "../_internal/_metrics.ts";
import type {
  Meter,
  ObservableCallback,
  ObservableCounter,
  ObservableGauge,
} from "../metrics/meter.ts";
import { nodeBuiltin } from "../_internal/_node_builtin.ts";

/**
 * How {@linkcode ProcessMetrics} samples the event loop.
 *
 * @example Sampling every 50 ms on a clock of the test's
 * ```ts
 * import type { ProcessMetricsOptions } from "@haptic/k8s-watcher/health";
 * import { FakeClock } from "@haptic/k8s-watcher/testing";
 *
 * const options: ProcessMetricsOptions = {
 *   clock: new FakeClock(),
 *   eventLoopIntervalMs: 50,
 * };
 * ```
 */
export interface ProcessMetricsOptions {
  /**
   * The clock the event loop's delay is measured on: a timer's lateness on
   * it.
   *
   * @default {systemClock}
   */
  clock?: Clock;
  /**
   * How often the event loop is sampled, in ms: positive, at most 2³¹−1.
   * A sample is one timer; a block longer than this always shows, one
   * shorter may fall between samples.
   *
   * @default {100}
   */
  eventLoopIntervalMs?: number;
}

const DEFAULT_EVENT_LOOP_INTERVAL_MS = 100;

type ObservableInstrument = ObservableGauge | ObservableCounter;

interface ProcessInstruments {
  cpu: ObservableInstrument;
  resident: ObservableGauge;
  startTime: ObservableGauge;
  openFds: ObservableGauge;
  maxFds: ObservableGauge;
  heapUsed: ObservableGauge;
  heapTotal: ObservableGauge;
  external: ObservableGauge;
  activeResources: ObservableGauge;
  lag: ObservableGauge;
  lagMax: ObservableGauge;
  lagMean: ObservableGauge;
}

function makeInstruments(meter: Meter): ProcessInstruments {
  const gauge = (name: string, description: string, unit?: string) =>
    meter.createObservableGauge(name, { description, unit });
  const cpu = {
    description: "User and system CPU time the process spent, in seconds",
    unit: "s",
  };
  return {
    // A meter without observable counters (the method is optional) gets
    // the value as a gauge, under the same name.
    cpu: meter.createObservableCounter?.("process_cpu_seconds", cpu) ??
      meter.createObservableGauge("process_cpu_seconds_total", cpu),
    resident: gauge(
      "process_resident_memory_bytes",
      "Resident memory size, in bytes",
      "By",
    ),
    startTime: gauge(
      "process_start_time_seconds",
      "When the process started, in seconds since the Unix epoch",
      "s",
    ),
    openFds: gauge("process_open_fds", "Open file descriptors (Linux)"),
    maxFds: gauge(
      "process_max_fds",
      "The soft limit of open file descriptors (Linux)",
    ),
    heapUsed: gauge(
      "nodejs_heap_size_used_bytes",
      "JavaScript heap in use, in bytes",
      "By",
    ),
    heapTotal: gauge(
      "nodejs_heap_size_total_bytes",
      "JavaScript heap allocated, in bytes",
      "By",
    ),
    external: gauge(
      "nodejs_external_memory_bytes",
      "Memory the engine holds outside the JavaScript heap, in bytes",
      "By",
    ),
    activeResources: gauge(
      "nodejs_active_resources_total",
      "Handles, requests and timers keeping the event loop alive (Node)",
    ),
    lag: gauge(
      "nodejs_eventloop_lag_seconds",
      "How late the event loop ran the latest sampling timer, in seconds",
      "s",
    ),
    lagMax: gauge(
      "nodejs_eventloop_lag_max_seconds",
      "The longest event loop delay since the previous scrape, in seconds",
      "s",
    ),
    lagMean: gauge(
      "nodejs_eventloop_lag_mean_seconds",
      "The mean event loop delay since the previous scrape, in seconds",
      "s",
    ),
  };
}

/**
 * The process's and the runtime's metrics, under the names Prometheus'
 * client libraries give them: `process_cpu_seconds_total`,
 * `process_resident_memory_bytes`, `process_start_time_seconds`,
 * `process_open_fds` and `process_max_fds` (Linux) as client_golang's
 * process collector; `nodejs_heap_size_used_bytes`,
 * `nodejs_heap_size_total_bytes`, `nodejs_external_memory_bytes`,
 * `nodejs_active_resources_total` (Node only: Deno and Bun do not list
 * their handles) and the event loop's delay, `nodejs_eventloop_lag_seconds`
 * and its `_max_` and `_mean_` since the previous scrape, as prom-client's
 * defaults; the same on Deno, Node and Bun, read through `node:process`.
 *
 * The event loop's delay is the lateness of a timer on `clock`, set every
 * `eventLoopIntervalMs`: a loop blocked by synchronous work runs it late by
 * as long. `LeaderElector` assumes an unblocked loop (a leader blocked past
 * its renew deadline cannot notice that it must stop), so an alert on
 * `nodejs_eventloop_lag_max_seconds` is the place to look first.
 *
 * Nothing runs until {@linkcode ProcessMetrics.start}; the other values are
 * read at each collection (a scrape). The timer does not keep the process
 * alive; {@linkcode ProcessMetrics.stop} clears it and removes the series.
 * Use one per process and meter.
 *
 * @example Beside the watchers' metrics, on `/metrics`
 * ```ts
 * import { ProcessMetrics } from "@haptic/k8s-watcher/health";
 * import { MetricsRegistry } from "@haptic/k8s-watcher/metrics";
 * import assert from "node:assert/strict";
 *
 * const registry = new MetricsRegistry();
 * using processMetrics = new ProcessMetrics(registry);
 * processMetrics.start();
 * assert.match(registry.render(), /^process_cpu_seconds_total \d/m);
 * assert.match(registry.render(), /^nodejs_eventloop_lag_seconds \d/m);
 * ```
 */
export class ProcessMetrics implements Disposable {
  readonly #instruments: ProcessInstruments;
  readonly #readings: ProcessReadings;
  readonly #delay: EventLoopDelay;
  readonly #callbacks: [ObservableInstrument, ObservableCallback][];
  #running = false;

  /**
   * Makes the instruments on `meter` (once per meter); nothing is sampled
   * or reported before {@linkcode ProcessMetrics.start}.
   *
   * @example On OpenTelemetry's meter, sampling every 250 ms
   * ```ts ignore
   * import { metrics } from "@opentelemetry/api";
   * import { ProcessMetrics } from "@haptic/k8s-watcher/health";
   *
   * new ProcessMetrics(metrics.getMeter("k8s-watcher"), {
   *   eventLoopIntervalMs: 250,
   * }).start();
   * ```
   *
   * @param meter Where the metrics go: a `MetricsRegistry`, or
   * OpenTelemetry's meter.
   * @param options The clock and the sampling interval.
   * @throws {TypeError} When `meter` is not a `Meter`, `options` has a name
   * it does not take, or `eventLoopIntervalMs` is not a positive number of
   * milliseconds up to 2³¹−1.
   */
  constructor(meter: Meter, options?: ProcessMetricsOptions) {
    const problem = meterProblem(meter);
    if (problem !== undefined) {
      throw new TypeError(`ProcessMetrics meter ${problem}`);
    }
    assertOptionNames(
      "ProcessMetrics options",
      OPTION_NAMES,
      options,
      "ProcessMetricsOptions",
    );
    const intervalMs = options?.eventLoopIntervalMs ??
      DEFAULT_EVENT_LOOP_INTERVAL_MS;
    const durationWrong = durationProblem(intervalMs);
    if (durationWrong !== undefined) {
      throw new TypeError(
        `Invalid ProcessMetrics options: eventLoopIntervalMs ${durationWrong}`,
      );
    }
    this.#instruments = instrumentsOf(meter, "process", makeInstruments);
    this.#readings = new ProcessReadings();
    this.#delay = new EventLoopDelay(options?.clock ?? systemClock, intervalMs);
    this.#callbacks = this.#observers();
  }

  /**
   * Starts sampling the event loop and reporting every series. Calling it
   * again while started does nothing.
   *
   * @example Started, then stopped
   * ```ts
   * import { ProcessMetrics } from "@haptic/k8s-watcher/health";
   * import { MetricsRegistry } from "@haptic/k8s-watcher/metrics";
   *
   * const processMetrics = new ProcessMetrics(new MetricsRegistry());
   * processMetrics.start();
   * processMetrics.stop();
   * ```
   */
  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#delay.start();
    for (const [instrument, callback] of this.#callbacks) {
      instrument.addCallback(callback);
    }
  }

  /**
   * Clears the sampling timer and stops reporting (the series go from the
   * next scrape on). Calling it again, or before a start, does nothing.
   *
   * @example Stopped with the program
   * ```ts
   * import { ProcessMetrics } from "@haptic/k8s-watcher/health";
   * import { MetricsRegistry } from "@haptic/k8s-watcher/metrics";
   * import assert from "node:assert/strict";
   *
   * const registry = new MetricsRegistry();
   * const processMetrics = new ProcessMetrics(registry);
   * processMetrics.start();
   * processMetrics.stop();
   * assert.equal(registry.render(), "");
   * ```
   */
  stop(): void {
    if (!this.#running) return;
    this.#running = false;
    this.#delay.stop();
    for (const [instrument, callback] of this.#callbacks) {
      instrument.removeCallback(callback);
    }
  }

  /**
   * Same as {@linkcode ProcessMetrics.stop}, for `using`.
   *
   * @example Stopped at the end of a block
   * ```ts
   * import { ProcessMetrics } from "@haptic/k8s-watcher/health";
   * import { MetricsRegistry } from "@haptic/k8s-watcher/metrics";
   *
   * {
   *   using processMetrics = new ProcessMetrics(new MetricsRegistry());
   *   processMetrics.start();
   * } // stopped here
   * ```
   */
  [Symbol.dispose](): void {
    this.stop();
  }

  /** Each instrument with the callback that observes it. */
  #observers(): [ObservableInstrument, ObservableCallback][] {
    const i = this.#instruments;
    const readings = this.#readings;
    const delay = this.#delay;
    const observe = (read: () => number | undefined): ObservableCallback => {
      return (result) => {
        const value = read();
        if (value !== undefined) result.observe(value);
      };
    };
    return [
      [i.cpu, observe(() => readings.cpuSeconds())],
      [i.resident, observe(() => readings.residentBytes())],
      [i.startTime, observe(() => readings.startTimeSeconds)],
      [i.openFds, observe(() => readings.openFds())],
      [i.maxFds, observe(() => readings.maxFds())],
      [i.heapUsed, observe(() => readings.heap().used)],
      [i.heapTotal, observe(() => readings.heap().total)],
      [i.external, observe(() => readings.heap().external)],
      [i.activeResources, observe(() => readings.activeResources())],
      [i.lag, observe(() => delay.last / 1000)],
      [i.lagMax, observe(() => delay.takeMax() / 1000)],
      [i.lagMean, observe(() => delay.takeMean() / 1000)],
    ];
  }
}

const OPTION_NAMES: Record<keyof ProcessMetricsOptions, true> = {
  clock: true,
  eventLoopIntervalMs: true,
};

// --- Readings: what the process tells of itself -----------------------------

// What the process tells of itself, read through `node:process` (a global
// on Deno 2, Node and Bun alike): CPU time, memory, start time, and, where
// the platform or the runtime tells, open file descriptors and active
// resources. Each read is cheap and synchronous, made at a scrape.

/** The part of Node's `process` read here (no Node types needed). */
interface ProcessLike {
  cpuUsage(): { user: number; system: number };
  memoryUsage: {
    (): { heapTotal: number; heapUsed: number; external: number };
    rss(): number;
  };
  uptime(): number;
  platform: string;
  versions: { bun?: string };
  getActiveResourcesInfo?: () => string[];
}

interface FsLike {
  readdirSync(path: string): unknown[];
  readFileSync(path: string, encoding: "utf8"): string;
}

const FD_DIR = "/proc/self/fd";
const LIMITS = "/proc/self/limits";

/** The process's readings, each `undefined` where it is not told. */
class ProcessReadings {
  readonly #process: ProcessLike;
  readonly #fs: FsLike | undefined;
  readonly #listsResources: boolean;
  /** Fixed for the process: its start, on the wall clock. */
  readonly startTimeSeconds: number;

  constructor() {
    const found = (globalThis as { process?: ProcessLike }).process;
    if (typeof found?.cpuUsage !== "function") {
      throw new TypeError(
        "ProcessMetrics needs node:process (a global on Deno 2, Node and Bun), and this runtime has none",
      );
    }
    this.#process = found;
    this.#fs = procFs(found.platform);
    // Deno and Bun answer getActiveResourcesInfo() with an empty list
    // whatever is open: no count is better than a wrong one.
    this.#listsResources = !("Deno" in globalThis) &&
      found.versions.bun === undefined &&
      typeof found.getActiveResourcesInfo === "function";
    this.startTimeSeconds = Date.now() / 1000 - found.uptime();
  }

  /** User and system CPU time, in seconds. */
  cpuSeconds(): number {
    const { user, system } = this.#process.cpuUsage();
    return (user + system) / 1e6;
  }

  residentBytes(): number {
    return this.#process.memoryUsage.rss();
  }

  /** The JavaScript heap, and memory the engine holds outside it. */
  heap(): { used: number; total: number; external: number } {
    const usage = this.#process.memoryUsage();
    return {
      used: usage.heapUsed,
      total: usage.heapTotal,
      external: usage.external,
    };
  }

  /** Open file descriptors, on Linux where `/proc/self/fd` may be read. */
  openFds(): number | undefined {
    try {
      return this.#fs?.readdirSync(FD_DIR).length;
    } catch {
      return undefined;
    }
  }

  /** The soft limit of open file descriptors, on Linux. */
  maxFds(): number | undefined {
    let limits: string | undefined;
    try {
      limits = this.#fs?.readFileSync(LIMITS, "utf8");
    } catch {
      return undefined;
    }
    const soft = limits && /^Max open files\s+(\d+)\s/m.exec(limits)?.[1];
    return soft ? Number(soft) : undefined;
  }

  /** Handles, requests and timers keeping the loop busy: Node tells. */
  activeResources(): number | undefined {
    return this.#listsResources
      ? this.#process.getActiveResourcesInfo!().length
      : undefined;
  }
}

/**
 * `node:fs` for `/proc/self`, on Linux only, and on Deno only with read
 * permission granted there already: a scrape must not ask at a prompt.
 */
function procFs(platform: string): FsLike | undefined {
  if (platform !== "linux") return undefined;
  const deno = (globalThis as {
    Deno?: {
      permissions: {
        querySync(descriptor: { name: "read"; path: string }): {
          state: string;
        };
      };
    };
  }).Deno;
  if (deno !== undefined) {
    const granted = [FD_DIR, LIMITS].every((path) =>
      deno.permissions.querySync({ name: "read", path }).state === "granted"
    );
    if (!granted) return undefined;
  }
  try {
    return nodeBuiltin<FsLike>("node:fs");
  } catch {
    return undefined;
  }
}

// --- Readings: the event loop's delay ---------------------------------------

// The event loop's delay, measured as the lateness of a timer on a
// `Clock`: a timer due in `intervalMs` that fires `d` ms after it was due
// waited `d` ms for the loop. The same on Deno, Node and Bun, where
// `node:perf_hooks`' `monitorEventLoopDelay` is not: its numbers differ
// between them (Node's include the sampling interval itself), and a
// `FakeClock` drives this one in tests.

/** Delays in ms: the latest sample's, and the longest and mean since taken. */
class EventLoopDelay {
  readonly #clock: Clock;
  readonly #intervalMs: number;
  #timer: TimerHandle | undefined;
  #due = 0;
  #last = 0;
  #maxSinceTaken: number | undefined;
  #meanSum = 0;
  #meanCount = 0;

  constructor(clock: Clock, intervalMs: number) {
    this.#clock = clock;
    this.#intervalMs = intervalMs;
  }

  /** Samples every interval from now on (again after a stop). */
  start(): void {
    if (this.#timer === undefined) this.#schedule();
  }

  /** No timer is left pending. */
  stop(): void {
    if (this.#timer === undefined) return;
    this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** The latest sample's delay. */
  get last(): number {
    return this.#last;
  }

  /** The longest delay since the last call (the latest one without samples since). */
  takeMax(): number {
    if (this.#maxSinceTaken === undefined) return this.#last;
    const max = this.#maxSinceTaken;
    this.#maxSinceTaken = undefined;
    return max;
  }

  /** The mean delay since the last call (the latest one without samples since). */
  takeMean(): number {
    if (this.#meanCount === 0) return this.#last;
    const mean = this.#meanSum / this.#meanCount;
    this.#meanSum = 0;
    this.#meanCount = 0;
    return mean;
  }

  #schedule(): void {
    this.#due = this.#clock.now() + this.#intervalMs;
    this.#timer = this.#clock.setTimeout(
      () => this.#sample(),
      this.#intervalMs,
    );
    unref(this.#timer, this.#clock);
  }

  #sample(): void {
    const delay = Math.max(0, this.#clock.now() - this.#due);
    this.#last = delay;
    this.#maxSinceTaken = Math.max(this.#maxSinceTaken ?? 0, delay);
    this.#meanSum += delay;
    this.#meanCount++;
    this.#schedule();
  }
}

/**
 * Lets the process exit while the timer is pending: a metrics sampler
 * must not keep a controller alive that has nothing else to do. Only the
 * system clock's timers are real; another clock's handle is left alone
 * (a number from a fake clock is not a Deno timer id).
 */
function unref(handle: TimerHandle, clock: Clock): void {
  const timer = handle as { unref?: () => void } | null;
  if (typeof timer?.unref === "function") {
    timer.unref();
    return;
  }
  if (clock === systemClock && typeof handle === "number") {
    (globalThis as { Deno?: { unrefTimer?(id: number): void } }).Deno
      ?.unrefTimer?.(handle);
  }
}
