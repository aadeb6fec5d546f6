/**
 * Where a `Watcher`'s pending batch goes: to its own debounced `onChange`,
 * or to the `DebounceGroup` member it was given. Either way the sync rules
 * are the same: nothing is delivered while the initial list loads (unless
 * `callOnChangeDuringSync`), the initial-sync batch is delivered at once
 * and opens no debounce window, and `stop()` delivers what is pending.
 *
 * @module
 */
import type { KubeObject, Logger } from "../types.ts";
import type { Clock } from "../clock.ts";
import type { ChangeBatch } from "./change_batch.ts";
import type { BatchBuilder } from "./_batch_builder.ts";
import { DebounceScheduler } from "./_debounce_scheduler.ts";
import { attachSource, type GroupLink } from "./_group_link.ts";
import { changeCallbackFailedLine, write } from "../listwatch/_log_lines.ts";

/** What the watcher asks of wherever its batches go. */
export interface BatchOutlet {
  /** Enters (run start) or leaves (initial sync complete) sync mode. */
  setSyncMode(syncing: boolean): void;
  /** Delivers now (`forceSync`). */
  flush(): Promise<void>;
  /** Resolves once nothing runs or is scheduled. */
  idle(): Promise<void>;
  /** Delivers what is pending when `deliver`, then falls silent. */
  shutdown(deliver: boolean): Promise<void>;
}

/** Batches to the watcher's own debounced `onChange`. */
export function ownOutlet<T extends KubeObject>(
  builder: BatchBuilder<T>,
  options: {
    interval: number;
    onChange: (batch: ChangeBatch<T>) => void | Promise<void>;
    suppressDuringSync: boolean;
    clock: Clock | undefined;
    logger: Logger;
  },
): BatchOutlet {
  const { logger } = options;
  const scheduler = new DebounceScheduler<ChangeBatch<T>>({
    interval: options.interval,
    pending: builder,
    onChange: options.onChange,
    suppressDuringSync: options.suppressDuringSync,
    clock: options.clock,
    onFailure: (error, batch) =>
      write(logger, changeCallbackFailedLine(error, batch)),
  });
  builder.onRecord = scheduler.changed;
  return {
    setSyncMode: (syncing) => scheduler.setSyncMode(syncing),
    flush: () => scheduler.flush(),
    idle: () => scheduler.idle(),
    async shutdown(deliver) {
      if (deliver) await scheduler.flushPending();
      await scheduler.stop();
    },
  };
}

/** Batches to a `DebounceGroup` member, taken whole when the group fires. */
export function groupOutlet<T extends KubeObject>(
  builder: BatchBuilder<T>,
  member: object,
  suppressDuringSync: boolean,
): BatchOutlet {
  let syncing = false;
  let batchInitial = false;
  const link: GroupLink = attachSource<ChangeBatch<T>>(member, {
    get isEmpty() {
      return builder.isEmpty || (syncing && suppressDuringSync);
    },
    get isInitial() {
      return batchInitial || syncing;
    },
    take() {
      const batch = builder.take(batchInitial || syncing);
      batchInitial = false;
      return batch;
    },
  });
  builder.onRecord = () => {
    if (syncing) {
      batchInitial = true;
      if (suppressDuringSync) return;
    }
    link.changed();
  };
  return {
    setSyncMode(next) {
      if (next === syncing) return;
      syncing = next;
      if (!next && !builder.isEmpty) void link.deliverNow();
    },
    flush: () => link.flush(),
    idle: () => link.idle(),
    async shutdown(deliver) {
      if (deliver) await link.flush();
      link.detach();
    },
  };
}
