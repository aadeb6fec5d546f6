/**
 * Conditions on an object's status (`meta.k8s.io/v1` `Condition`): the
 * list a controller keeps in `status.conditions` to say what it observed.
 *
 * @module
 */

/** A condition's status. */
export type ConditionStatus = "True" | "False" | "Unknown";

/**
 * One entry of `status.conditions` (`meta.k8s.io/v1` `Condition`).
 *
 * @example A Ready condition
 * ```ts
 * import type { Condition } from "@haptic/k8s-watcher/controller";
 *
 * const ready: Condition = {
 *   type: "Ready",
 *   status: "True",
 *   observedGeneration: 3,
 *   lastTransitionTime: "2026-01-01T00:00:00Z",
 *   reason: "Reconciled",
 *   message: "",
 * };
 * ```
 */
export interface Condition {
  /** The condition's type, in CamelCase (`Ready`, `Available`). */
  type: string;
  /** Whether it holds. */
  status: ConditionStatus;
  /** The `metadata.generation` the controller acted on. */
  observedGeneration?: number;
  /** When `status` last changed (RFC 3339, in seconds). */
  lastTransitionTime: string;
  /** Why, in CamelCase, for machines. */
  reason: string;
  /** Why, for people; may be empty. */
  message: string;
}

/**
 * What {@linkcode setCondition} is given: a condition whose
 * `lastTransitionTime` is optional (set from `now` when the status changes)
 * and whose `message` defaults to empty.
 */
export type ConditionInput =
  & Omit<Condition, "lastTransitionTime" | "message">
  & { lastTransitionTime?: string; message?: string };

/**
 * Thrown by {@linkcode setCondition} for a condition the API server would
 * refuse; {@linkcode ConditionError.field} names the field.
 *
 * @example A status that is not True, False or Unknown
 * ```ts
 * import { ConditionError, setCondition } from "@haptic/k8s-watcher/controller";
 * import assert from "node:assert/strict";
 *
 * assert.throws(
 *   () => setCondition([], { type: "Ready", status: "true" as "True", reason: "Ok" }, Date.now()),
 *   (e: unknown) => e instanceof ConditionError && e.field === "status",
 * );
 * ```
 */
export class ConditionError extends TypeError {
  /** The condition's field that was wrong. */
  readonly field: string;
  /**
   * Creates the error.
   *
   * @example
   * ```ts
   * import { ConditionError } from "@haptic/k8s-watcher/controller";
   *
   * const e = new ConditionError("reason", "must be CamelCase, got \"not ok\"");
   * console.log(e.message); // Invalid condition: reason: must be CamelCase, got "not ok"
   * ```
   *
   * @param field The condition's field.
   * @param message What was wrong with it.
   */
  constructor(field: string, message: string) {
    super(`Invalid condition: ${field}: ${message}`);
    this.name = "ConditionError";
    this.field = field;
  }
}

/**
 * The condition of `type` in `conditions`, or `undefined`.
 *
 * @example Is the object ready?
 * ```ts
 * import { findCondition } from "@haptic/k8s-watcher/controller";
 *
 * const status = {
 *   conditions: [{
 *     type: "Ready",
 *     status: "True" as const,
 *     lastTransitionTime: "2026-01-01T00:00:00Z",
 *     reason: "Reconciled",
 *     message: "",
 *   }],
 * };
 * console.log(findCondition(status.conditions, "Ready")?.status === "True"); // true
 * ```
 *
 * @param conditions An object's `status.conditions` (may be absent).
 * @param type The condition's type.
 * @returns The condition, if present.
 */
export function findCondition(
  conditions: readonly Condition[] | undefined,
  type: string,
): Condition | undefined {
  return conditions?.find((c) => c.type === type);
}

// The API's rules for `reason` and `type` (a qualified name's last part is
// what most types are); checked here so a bad condition fails where it is
// made, not as a 422 from the status write.
const REASON = /^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$/;
const TYPE =
  /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$/;

/**
 * A new list with `condition` set: added when its type is absent; else
 * `reason`, `message` and `observedGeneration` are updated, and
 * `lastTransitionTime` changes only when `status` does (to the given
 * `lastTransitionTime`, or `now`). The list's order is kept; the input is
 * not changed.
 *
 * @example Ready once reconciled; a later reconcile keeps the transition time
 * ```ts
 * import { setCondition } from "@haptic/k8s-watcher/controller";
 * import assert from "node:assert/strict";
 *
 * let conditions = setCondition([], {
 *   type: "Ready",
 *   status: "True",
 *   reason: "Reconciled",
 *   observedGeneration: 1,
 * }, Date.UTC(2026, 0, 1));
 * conditions = setCondition(conditions, {
 *   type: "Ready",
 *   status: "True",
 *   reason: "Reconciled",
 *   observedGeneration: 2,
 * }, Date.UTC(2026, 0, 2));
 * assert.equal(conditions[0].lastTransitionTime, "2026-01-01T00:00:00Z");
 * assert.equal(conditions[0].observedGeneration, 2);
 * ```
 *
 * @param conditions The current `status.conditions` (may be absent).
 * @param condition The condition to set.
 * @param now The time of a transition: milliseconds since the epoch (a
 * `Clock`'s `now()`) or a `Date`.
 * @returns The new list.
 * @throws {ConditionError} When a field is one the API server would refuse.
 */
export function setCondition(
  conditions: readonly Condition[] | undefined,
  condition: ConditionInput,
  now: number | Date,
): Condition[] {
  check(condition);
  const list = [...(conditions ?? [])];
  const at = list.findIndex((c) => c.type === condition.type);
  const old = at < 0 ? undefined : list[at];
  const transitioned = old === undefined || old.status !== condition.status;
  const next: Condition = {
    type: condition.type,
    status: condition.status,
    ...(condition.observedGeneration === undefined
      ? {}
      : { observedGeneration: condition.observedGeneration }),
    lastTransitionTime: transitioned
      ? condition.lastTransitionTime ?? rfc3339(now)
      : old.lastTransitionTime,
    reason: condition.reason,
    message: condition.message ?? "",
  };
  if (at < 0) list.push(next);
  else list[at] = next;
  return list;
}

function check(c: ConditionInput): void {
  if (typeof c.type !== "string" || c.type.length > 316 || !TYPE.test(c.type)) {
    throw new ConditionError(
      "type",
      `must be a qualified name such as Ready or example.com/Ready, got ${
        JSON.stringify(c.type)
      }`,
    );
  }
  if (c.status !== "True" && c.status !== "False" && c.status !== "Unknown") {
    throw new ConditionError(
      "status",
      `must be True, False or Unknown, got ${JSON.stringify(c.status)}`,
    );
  }
  if (
    typeof c.reason !== "string" || c.reason.length > 1024 ||
    !REASON.test(c.reason)
  ) {
    throw new ConditionError(
      "reason",
      `must be CamelCase (a letter, then letters, digits, _ , or :), got ${
        JSON.stringify(c.reason)
      }`,
    );
  }
  if (c.message !== undefined && typeof c.message !== "string") {
    throw new ConditionError("message", "must be a string");
  }
  if (
    c.observedGeneration !== undefined &&
    (!Number.isSafeInteger(c.observedGeneration) || c.observedGeneration < 0)
  ) {
    throw new ConditionError(
      "observedGeneration",
      `must be a non-negative integer, got ${c.observedGeneration}`,
    );
  }
}

/** The API's `Time`: RFC 3339 in whole seconds, UTC. */
function rfc3339(now: number | Date): string {
  const ms = typeof now === "number" ? now : now.getTime();
  if (!Number.isFinite(ms)) {
    throw new ConditionError("lastTransitionTime", `now is not a time: ${now}`);
  }
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
}
