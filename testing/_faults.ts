import type { Clock } from "../clock.ts";
import type { Fault, FaultAction, FaultHandle, FaultVerb } from "./faults.ts";

/** The verb of a request, as faults and the request log name it. */
export type RequestVerb =
  | Exclude<FaultVerb, "any">
  | "deletecollection"
  | "discovery";

interface ArmedFault {
  action: FaultAction;
  verb: FaultVerb;
  gvrKey: string | undefined;
  remaining: number;
  until: number;
  hits: number;
  cancelled: boolean;
}

/** The armed faults of a server, matched in the order they were injected. */
export class FaultBook {
  #faults: ArmedFault[] = [];
  #clock: Clock;

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  inject(fault: Fault, gvrKey: string | undefined): FaultHandle {
    validate(fault);
    const armed: ArmedFault = {
      action: fault,
      verb: fault.verb ?? "any",
      gvrKey,
      remaining: fault.times ?? (fault.forMs !== undefined ? Infinity : 1),
      until: fault.forMs !== undefined
        ? this.#clock.now() + fault.forMs
        : Infinity,
      hits: 0,
      cancelled: false,
    };
    this.#faults.push(armed);
    const clock = this.#clock;
    return {
      get hits() {
        return armed.hits;
      },
      get active() {
        return isActive(armed, clock.now());
      },
      cancel: () => {
        armed.cancelled = true;
        this.#prune();
      },
    };
  }

  /** The action for a request, consuming one use of the first matching fault. */
  match(
    verb: RequestVerb,
    gvrKey: string | undefined,
  ): FaultAction | undefined {
    if (this.#faults.length === 0) return undefined;
    const now = this.#clock.now();
    for (const fault of this.#faults) {
      if (!isActive(fault, now)) continue;
      if (fault.verb !== "any" && fault.verb !== verb) continue;
      if (fault.gvrKey !== undefined && fault.gvrKey !== gvrKey) continue;
      fault.remaining--;
      fault.hits++;
      this.#prune();
      return fault.action;
    }
    this.#prune();
    return undefined;
  }

  clear(): void {
    for (const fault of this.#faults) fault.cancelled = true;
    this.#faults = [];
  }

  #prune(): void {
    const now = this.#clock.now();
    this.#faults = this.#faults.filter((f) => isActive(f, now));
  }
}

function isActive(fault: ArmedFault, now: number): boolean {
  return !fault.cancelled && fault.remaining > 0 && now < fault.until;
}

const VERBS = new Set([
  "list",
  "watch",
  "get",
  "create",
  "update",
  "patch",
  "delete",
  "any",
]);

function validate(fault: Fault): void {
  const bad = (what: string) => {
    throw new TypeError(`Invalid fault ${JSON.stringify(fault)}: ${what}`);
  };
  if (fault === null || typeof fault !== "object") bad("expected an object");
  if (fault.verb !== undefined && !VERBS.has(fault.verb)) {
    bad(`unknown verb ${JSON.stringify(fault.verb)}`);
  }
  if (
    fault.times !== undefined &&
    (!Number.isInteger(fault.times) || fault.times < 1)
  ) bad("times must be a positive integer");
  if (
    fault.forMs !== undefined &&
    (!Number.isFinite(fault.forMs) || fault.forMs <= 0)
  ) bad("forMs must be a positive number of milliseconds");
  switch (fault.kind) {
    case "status":
      if (
        !Number.isInteger(fault.code) || fault.code < 400 || fault.code > 599
      ) {
        bad("code must be an HTTP error code (400-599)");
      }
      if (
        fault.retryAfterSeconds !== undefined &&
        (!Number.isInteger(fault.retryAfterSeconds) ||
          fault.retryAfterSeconds < 0)
      ) bad("retryAfterSeconds must be a non-negative integer");
      break;
    case "drop":
    case "truncate":
      if (
        fault.afterEvents !== undefined &&
        (!Number.isInteger(fault.afterEvents) || fault.afterEvents < 0)
      ) bad("afterEvents must be a non-negative integer");
      break;
    case "stall":
      break;
    default:
      bad(
        `unknown kind ${
          JSON.stringify((fault as { kind: unknown }).kind)
        } (expected status, drop, truncate or stall)`,
      );
  }
}
