import {
  invalidOptionsMessage,
  optionNamesProblem,
} from "../_internal/_option_checks.ts";
import { breakBody, faultResponse } from "./_fault_responses.ts";
import type { FakeApiFault, FaultAction } from "./faults.ts";
import type { FakeWatchStream, Reactor, WatchTap } from "./reactor.ts";

/**
 * The reactor of a fault: what `FakeApiServer.injectFault(fault)` adds,
 * for a test that wants to put one first (`prependReactor`) or to spread
 * it into a reactor of its own.
 *
 * @example A 403 for every request in one namespace, until cancelled
 * ```ts
 * import { FakeApiServer, faultReactor } from "@haptic/k8s-watcher/testing";
 * import assert from "node:assert/strict";
 *
 * using server = new FakeApiServer();
 * const forbidden = server.prependReactor(
 *   faultReactor({ namespace: "locked", kind: "status", code: 403, times: Infinity }),
 * );
 * const res = await server.handle(new Request(`${server.url}/api/v1/namespaces/locked/pods`));
 * assert.equal(res.status, 403);
 * assert.equal((await res.json()).reason, "Forbidden");
 * forbidden.cancel();
 * ```
 *
 * @param fault What to match and what to do.
 * @returns The reactor.
 * @throws {TypeError} For an invalid fault.
 */
export function faultReactor(fault: FakeApiFault): Reactor {
  validate(fault);
  const reactor: Reactor = {
    verb: fault.verb ?? "any",
    times: fault.times ?? (fault.forMs !== undefined ? Infinity : 1),
    react: reaction(fault),
  };
  if (fault.resource !== undefined) reactor.resource = fault.resource;
  if (fault.namespace !== undefined) reactor.namespace = fault.namespace;
  if (fault.forMs !== undefined) reactor.forMs = fault.forMs;
  return reactor;
}

function reaction(action: FaultAction): Reactor["react"] {
  switch (action.kind) {
    case "status":
      return () => faultResponse(action);
    case "stall":
      return (call) => call.hold();
    case "drop":
    case "truncate": {
      const after = action.afterEvents ?? 0;
      const tap = action.kind === "drop"
        ? endAfter(after)
        : truncateAfter(after);
      return async (call) =>
        call.verb === "watch"
          ? call.serve({ watch: tap })
          : breakBody(await call.serve(), action);
    }
  }
}

function endAfter(lines: number): WatchTap {
  return {
    sent: (stream) => {
      if (stream.lines >= lines) stream.end();
    },
  };
}

function truncateAfter(lines: number): WatchTap {
  return {
    sent: (stream) => {
      if (stream.lines < lines) return;
      const whole = brokenLine(stream);
      stream.write(whole.slice(0, Math.floor(whole.length / 2)));
      stream.end();
    },
  };
}

/** A whole event line whose first half the stream sends before it is cut. */
function brokenLine(stream: FakeWatchStream): string {
  const { kind, apiVersion } = stream.resource;
  return `${
    JSON.stringify({
      type: "MODIFIED",
      object: {
        kind,
        apiVersion,
        metadata: {
          name: "truncated",
          resourceVersion: stream.resourceVersion,
        },
      },
    })
  }\n`;
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

/** The names every fault takes, and those of each kind's action. */
const MATCH_NAMES = {
  verb: true,
  resource: true,
  namespace: true,
  times: true,
  forMs: true,
  kind: true,
} as const;
const ACTION_NAMES: Readonly<
  Record<FakeApiFault["kind"], Readonly<Record<string, true>>>
> = {
  status: { code: true, retryAfterSeconds: true, message: true, reason: true },
  drop: { afterEvents: true },
  truncate: { afterEvents: true },
  stall: {},
};

function validate(fault: FakeApiFault): void {
  const bad = (what: string) => {
    throw new TypeError(`Invalid fault ${JSON.stringify(fault)}: ${what}`);
  };
  if (fault === null || typeof fault !== "object") bad("expected an object");
  const unknown = optionNamesProblem({
    known: { ...MATCH_NAMES, ...ACTION_NAMES[fault.kind] },
    value: fault,
    type: "FakeApiFault",
  });
  if (unknown) throw new TypeError(invalidOptionsMessage("fault", unknown));
  if (fault.verb !== undefined && !VERBS.has(fault.verb)) {
    bad(`unknown verb ${JSON.stringify(fault.verb)}`);
  }
  if (
    fault.times !== undefined && fault.times !== Infinity &&
    (!Number.isInteger(fault.times) || fault.times < 1)
  ) bad("times must be a positive integer or Infinity");
  if (
    fault.forMs !== undefined &&
    (!Number.isFinite(fault.forMs) || fault.forMs <= 0)
  ) bad("forMs must be a positive number of milliseconds");
  if (fault.namespace !== undefined && typeof fault.namespace !== "string") {
    bad("namespace must be a string");
  }
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
