/**
 * Two batches of one watcher as one: the `merge` of a `DebounceGroup` of
 * watchers' batches.
 *
 * @module
 */
import type { KubeObjectLike } from "../types.ts";
import type { ChangeBatch } from "./change_batch.ts";
// deno-lint-ignore no-unused-vars -- linked from the docs
import type { ChangedObjects } from "./change_batch.ts";
import { BatchBuilder } from "./_batch_builder.ts";

/**
 * Coalesces two batches of one watcher, `pending` first, into the batch a
 * caller would have received had they been one (the rules of
 * {@linkcode ChangedObjects}). The `merge` of a
 * `DebounceGroup<ChangeBatch>` whose members watchers feed through their
 * `group` option: a watcher hands its batch to the group whole, so the
 * group calls `merge` only for batches added by hand with `member.add()`.
 * The merged arrays hold `pending`'s objects first (its deleted, modified
 * and created, in that order), then `next`'s.
 *
 * @example A group for watchers
 * ```ts
 * import { type ChangeBatch, DebounceGroup, mergeChangeBatches } from "@haptic/k8s-watcher";
 *
 * const group = new DebounceGroup<ChangeBatch>({
 *   interval: 1_000,
 *   merge: mergeChangeBatches,
 *   onChange: (batches) => {
 *     for (const [name, batch] of batches) console.log(name, batch.total);
 *   },
 * });
 * await group.stop();
 * ```
 *
 * Typed by its batches, so that it is the `merge` of a group whose
 * members watch different types (`DebounceGroup<{ ingresses:
 * ChangeBatch<Ingress>; services: ChangeBatch<Service> }>`, or a union of
 * `ChangeBatch` types): the group merges only batches of one member.
 *
 * @typeParam B The batches, `ChangeBatch<T>` for objects of type `T`.
 * @param pending The earlier batch.
 * @param next The later batch.
 * @returns One batch with both, coalesced per object.
 */
export function mergeChangeBatches<B extends ChangeBatch<KubeObjectLike>>(
  pending: B,
  next: B,
): B {
  const builder = new BatchBuilder<KubeObjectLike>();
  for (const batch of [pending, next]) {
    const { created, modified, deleted } = batch.objects;
    // The initial list is counted, not listed.
    builder.createdInBulk(batch.created - created.length);
    // A replacement (deleted and created under one name) replays in order.
    for (const obj of deleted) builder.deleted(ns(obj), name(obj), obj);
    for (const m of modified) {
      builder.modified(ns(m.current), name(m.current), m.previous, m.current);
    }
    for (const obj of created) builder.created(ns(obj), name(obj), obj);
  }
  // Holds the objects of `pending` and `next`: of B's object type.
  return builder.take(pending.isInitialSync || next.isInitialSync) as B;
}

const ns = (obj: KubeObjectLike): string => obj.metadata?.namespace ?? "";
const name = (obj: KubeObjectLike): string => obj.metadata?.name ?? "";
