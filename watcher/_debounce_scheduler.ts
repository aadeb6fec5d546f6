/**
 * When a debounced callback fires: the timing rules the `Debouncer`, the
 * `DebounceGroup` and the `Watcher` share, apart from what their batches
 * hold. Each of them keeps its own pending batch (counts, member batches,
 * per-object changes) behind {@linkcode PendingBatch} and calls
 * {@linkcode DebounceScheduler.changed} after adding to it. A failed call's
 * retry ({@linkcode CallbackRetry}, the `SingleWatcher`'s too) is here.
 *
 * @module
 */
import { type Clock, systemClock, type TimerHandle } from "../clock.ts";
import type { DebounceSettle } from "./debounce_settle.ts";

/** What a scheduler delivers: a batch that is taken whole at each call. */
export interface PendingBatch<B> {
  /** Whether nothing waits (no call is made for an empty batch unless flushed). */
  readonly isEmpty: boolean;
  /**
   * Takes what waits as one batch and starts an empty one.
   *
   * @param isInitialSync Whether the batch belongs to the initial sync.
   */
  take(isInitialSync: boolean): B;
  /**
   * Whether the batch just taken opens a refractory window; absent means
   * it does. A group whose call carries only initial-sync batches says no.
   */
  readonly lastOpensWindow?: boolean;
  /**
   * Whether timed calls wait although something is pending: a group
   * waiting for a member watcher's initial list. A flush delivers anyway;
   * whoever ends the wait calls `deliverInitial()`.
   */
  readonly held?: boolean;
  /**
   * Whether the batch is held back for a moment (it reads as empty then):
   * a retry that falls due meanwhile waits as long again.
   */
  readonly holding?: boolean;
  /**
   * The call of the batch taken last has ended. `retry`: it threw or
   * rejected, and its changes go back into the pending batch, before those
   * that came since, for the next call. A pending batch without `ended`
   * lets a failed batch go, and is not retried.
   */
  ended?(retry: boolean): void;
}

/** Options of a {@linkcode DebounceScheduler}. */
export interface DebounceSchedulerOptions<B> {
  /** Refractory period in milliseconds (leading edge); checked by the caller. Unused with `settle`. */
  interval: number;
  /** Settle mode instead of the leading edge; checked by the caller. */
  settle?: DebounceSettle | undefined;
  /** The batch being collected. */
  pending: PendingBatch<B>;
  /** Receives each batch; calls never overlap. */
  onChange: (batch: B) => void | Promise<void>;
  /** Reports a throwing or rejecting `onChange` (must not throw). */
  onFailure: (error: unknown, batch: B) => void;
  /**
   * A call starts that carries again what a failed call did not deliver
   * (counted as a retry; must not throw).
   */
  onRetry?: () => void;
  /** When `true` (the default), nothing fires in sync mode except a flush. */
  suppressDuringSync?: boolean;
  /** Time source. Defaults to the system clock. */
  clock?: Clock | undefined;
}

/**
 * Leading edge with a refractory period, or settle mode (see
 * `DebounceSettle`), never-overlapping calls, and a sync mode: see
 * `Debouncer` for the rules in full. The batch that leaving sync mode fires
 * (the initial sync) does not open a refractory window, so the first change
 * after the initial sync fires at once.
 *
 * A failed call (with a pending batch that takes it back, `ended`): its
 * batch waits for the next call, which a change schedules as any other;
 * without one, a retry fires after 1 s, 2 s, … 60 s (`CallbackRetry`).
 * The first call to succeed ends the retries.
 */
export class DebounceScheduler<B> {
  /** The interval, settle rule and callbacks, read where they are used. */
  readonly #options: Readonly<DebounceSchedulerOptions<B>>;
  readonly #pending: PendingBatch<B>;
  readonly #suppressDuringSync: boolean;
  readonly #clock: Clock;
  readonly #retry: CallbackRetry;

  /** Whether a change in the pending batch was recorded in sync mode. */
  #batchInitial = false;
  #syncing = false;
  #stopped = false;
  #lastFire = -Infinity;
  /** Settle mode: when the first change the pending batch carries came. */
  #firstChange: number | undefined;
  /** Settle mode: when the latest change came. */
  #lastChange = 0;
  #timer: TimerHandle | undefined;
  /** A leading-edge fire is queued as a microtask. */
  #queued = false;
  /** `onChange` is executing synchronously (guards against re-entry). */
  #calling = false;
  /** The current call, until it has settled. */
  #running: Promise<void> | undefined;
  #idleWaiters: (() => void)[] = [];
  /** The last call failed: its batch waits in the pending one again. */
  #failing = false;
  /** A change was added since the last call took the batch. */
  #fresh = false;
  /** Whether the last call opened a refractory window (its retry does too). */
  #lastOpened = true;
  /** No retry timer any more (stopping: the last flush carries the batch). */
  #retriesEnded = false;

  constructor(options: DebounceSchedulerOptions<B>) {
    this.#options = { ...options };
    this.#pending = options.pending;
    this.#suppressDuringSync = options.suppressDuringSync ?? true;
    this.#clock = options.clock ?? systemClock;
    this.#retry = new CallbackRetry(this.#clock, this.#retryDue);
  }

  /** Whether records are ignored (after {@linkcode stop}). */
  get stopped(): boolean {
    return this.#stopped;
  }

  /** Whether sync mode is on. */
  get isSyncing(): boolean {
    return this.#syncing;
  }

  /** Whether changes are waiting for the next call. */
  get hasPending(): boolean {
    return !this.#pending.isEmpty;
  }

  /** Something was added to the pending batch: schedule it. (Bound.) */
  changed = (): void => {
    this.#fresh = true;
    if (
      this.#options.settle !== undefined && !this.#stopped &&
      !(this.#syncing && this.#suppressDuringSync)
    ) {
      // Only the times move: a timer armed for an earlier time finds, when
      // it fires, that the quiet period started again (#due re-arms it),
      // so a burst of thousands of events sets no timer per event.
      const now = this.#clock.now();
      this.#firstChange ??= now;
      this.#lastChange = now;
    }
    this.#schedule();
  };

  /** Arms the timer (or queues a fire) for what is pending, unless one is. */
  #schedule(): void {
    if (this.#syncing) {
      this.#batchInitial = true;
      if (this.#suppressDuringSync) return;
    }
    if (
      this.#timer !== undefined || this.#queued || this.#busy() ||
      this.#stopped || this.#pending.held === true ||
      // Only a failed batch waits: its retry timer delivers it.
      (this.#failing && !this.#fresh)
    ) {
      return;
    }
    const wait = this.#dueAt() - this.#clock.now();
    if (wait <= 0) {
      this.#queued = true;
      queueMicrotask(this.#due);
    } else {
      this.#timer = this.#clock.setTimeout(this.#due, wait);
    }
  }

  /** When the pending batch falls due (a call running may delay it). */
  #dueAt(): number {
    const settle = this.#options.settle;
    if (settle === undefined) return this.#lastFire + this.#options.interval;
    if (this.#firstChange === undefined) {
      // Pending since before the times were kept (sync mode): from now.
      this.#firstChange = this.#lastChange = this.#clock.now();
    }
    return Math.min(
      this.#lastChange + settle.quietMs,
      this.#firstChange + settle.maxWaitMs,
    );
  }

  /**
   * Enters or leaves sync mode. Leaving fires what accumulated at once,
   * without opening a refractory window; an empty batch is not sent.
   */
  setSyncMode(syncing: boolean): void {
    if (syncing === this.#syncing) return;
    this.#syncing = syncing;
    if (syncing) {
      if (this.#suppressDuringSync) {
        this.#cancelScheduled();
        // What is pending now goes out with the initial sync, at once.
        this.#firstChange = undefined;
      }
    } else if (!this.#pending.isEmpty) {
      // Never rejects; the batch is delivered as soon as calls allow.
      void this.deliverInitial();
    }
  }

  /** Fires now with whatever accumulated, even nothing, once no call runs. */
  flush(): Promise<void> {
    return this.#flush(true, true);
  }

  /** Fires now when something waits once no call runs. */
  flushPending(): Promise<void> {
    return this.#flush(false, true);
  }

  /**
   * Like {@linkcode flushPending}, for the batch of an initial sync: it
   * opens no refractory window.
   */
  deliverInitial(): Promise<void> {
    return this.#flush(false, false);
  }

  /**
   * No retry timer from now on: a stop has begun, whose last flush carries
   * a failed batch once more. A failed batch still waits in the pending
   * one, and changes are still scheduled.
   */
  endRetries(): void {
    this.#retriesEnded = true;
    this.#retry.cancel();
  }

  /**
   * Cancels what is scheduled (a retry too), waits for a running call;
   * then silence.
   */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#retry.cancel();
    this.#cancelScheduled();
    while (this.#busy()) await (this.#running ?? Promise.resolve());
  }

  /**
   * Resolves when no call is running and none is scheduled. A retry
   * waiting for its time does not count: it may wait for a minute.
   */
  idle(): Promise<void> {
    if (this.#isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  async #flush(evenEmpty: boolean, opensWindow: boolean): Promise<void> {
    while (this.#busy()) await (this.#running ?? Promise.resolve());
    if (this.#stopped || (!evenEmpty && this.#pending.isEmpty)) return;
    await this.#start(opensWindow);
  }

  #due = (): void => {
    this.#timer = undefined;
    this.#queued = false;
    if (
      this.#stopped || this.#busy() || this.#pending.isEmpty ||
      this.#pending.held === true ||
      (this.#syncing && this.#suppressDuringSync)
    ) {
      // Stale: stopped, suppressed or held since, taken by a flush, or a
      // call is running (#ended schedules what is left once it ends).
      if (this.#pending.isEmpty) this.#firstChange = undefined;
      this.#notifyIdle();
      return;
    }
    if (this.#options.settle !== undefined) {
      const wait = this.#dueAt() - this.#clock.now();
      if (wait > 0) {
        // A change came since the timer was armed: quiet starts again.
        this.#timer = this.#clock.setTimeout(this.#due, wait);
        return;
      }
    }
    void this.#start(true);
  };

  /** The retry timer: deliver the failed batch, unless something else will. */
  #retryDue = (): void => {
    const pending = this.#pending;
    // A call running carries the batch; leaving sync mode or the end of a
    // group's wait delivers it.
    if (
      this.#stopped || this.#busy() || pending.held === true ||
      (this.#syncing && this.#suppressDuringSync)
    ) return;
    if (pending.holding === true) {
      // Waiting as long again keeps it to its time, as for a watcher whose
      // loop waits meanwhile and may bring a change that takes it along.
      if (!this.#retriesEnded) this.#retry.again();
      return;
    }
    if (pending.isEmpty) {
      // Coalesced away by later changes: nothing is left to retry.
      this.#failing = false;
      return;
    }
    void this.#start(this.#lastOpened);
  };

  #start(opensWindow: boolean): Promise<void> {
    this.#cancelTimer();
    this.#retry.cancel();
    const { onChange, onFailure, onRetry } = this.#options;
    if (this.#failing) onRetry?.();
    const batch = this.#pending.take(this.#batchInitial || this.#syncing);
    this.#batchInitial = false;
    this.#fresh = false;
    // Before onChange runs: a change it makes starts the next wait.
    this.#firstChange = undefined;
    this.#lastOpened = opensWindow && this.#pending.lastOpensWindow !== false;
    if (this.#lastOpened) this.#lastFire = this.#clock.now();
    let result: void | Promise<void> = undefined;
    let failed = false;
    this.#calling = true;
    try {
      result = onChange(batch);
    } catch (error) {
      failed = true;
      onFailure(error, batch);
    } finally {
      this.#calling = false;
    }
    const running = Promise.resolve(result)
      .then(() => failed, (error) => {
        onFailure(error, batch);
        return true;
      })
      .then(this.#ended);
    this.#running = running;
    return running;
  }

  #ended = (failed: boolean): void => {
    this.#running = undefined;
    const pending = this.#pending;
    const retry = failed && !this.#stopped && pending.ended !== undefined;
    pending.ended?.(retry);
    this.#failing = retry;
    if (retry && !this.#retriesEnded) this.#retry.failed();
    else if (!failed) this.#retry.succeeded();
    // Changes recorded during the call are scheduled from here, since
    // changed() does nothing while busy; in settle mode from the times
    // they came, so one already due fires at once.
    if (!pending.isEmpty) this.#schedule();
    this.#notifyIdle();
  };

  #cancelTimer(): void {
    if (this.#timer !== undefined) {
      this.#clock.clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    // A queued microtask cannot be cancelled; #due finds nothing to do.
    this.#queued = false;
  }

  #cancelScheduled(): void {
    this.#cancelTimer();
    this.#notifyIdle();
  }

  #busy(): boolean {
    return this.#calling || this.#running !== undefined;
  }

  #isIdle(): boolean {
    return !this.#busy() && this.#timer === undefined && !this.#queued;
  }

  #notifyIdle(): void {
    if (this.#idleWaiters.length === 0 || !this.#isIdle()) return;
    const waiters = this.#idleWaiters;
    this.#idleWaiters = [];
    for (const resolve of waiters) resolve();
  }
}

// When a failed `onChange` is called again although nothing new came: 1 s
// after the failure, doubling with each failure in a row to at most 60 s,
// from 1 s again once a call succeeds. On the watcher's (or group's)
// clock, so a test's `FakeClock` drives it. Not jittered: one process
// retries its own callback, no crowd of clients hits one server.

/** The first wait after a failure, in milliseconds. */
export const RETRY_FIRST_MS = 1_000;
/** The longest wait between two attempts, in milliseconds. */
export const RETRY_MAX_MS = 60_000;

/** One callback's retry timer and the wait it is at. */
export class CallbackRetry {
  readonly #clock: Clock;
  readonly #fire: () => void;
  #next = RETRY_FIRST_MS;
  #last = RETRY_FIRST_MS;
  #timer: TimerHandle | undefined;

  /**
   * @param clock Where the timer runs.
   * @param fire What a retry does, once its wait is over.
   */
  constructor(clock: Clock, fire: () => void) {
    this.#clock = clock;
    this.#fire = fire;
  }

  /** Whether a retry waits for its time. */
  get armed(): boolean {
    return this.#timer !== undefined;
  }

  /** A call failed: retry after the next wait (replacing one armed). */
  failed(): void {
    const wait = this.#next;
    this.#next = Math.min(wait * 2, RETRY_MAX_MS);
    this.#arm(wait);
  }

  /** The retry could not fire when due: wait as long as last time again. */
  again(): void {
    this.#arm(this.#last);
  }

  /** A call succeeded: nothing to retry, and the next failure waits 1 s. */
  succeeded(): void {
    this.cancel();
    this.#next = RETRY_FIRST_MS;
  }

  #arm(wait: number): void {
    this.cancel();
    this.#last = wait;
    this.#timer = this.#clock.setTimeout(() => {
      this.#timer = undefined;
      this.#fire();
    }, wait);
  }

  /** Drops the armed retry, if any; the wait stays where it is. */
  cancel(): void {
    if (this.#timer === undefined) return;
    this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
