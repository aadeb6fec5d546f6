/**
 * `listWatchTransition` under random answer sequences: a seeded property
 * test of the pure state table. Each seed drives the table as `ListWatch`
 * does, one request at a time, against a model server whose
 * resourceVersion only grows, in `"list"` or `"stream"` initial-list mode.
 * The answers are drawn at random: pages (continued or not, now and then
 * not a list), events, bookmarks, ERROR events, a watch opening or ending
 * (at once or later), 410 Gone, other HTTP errors (with or without
 * Retry-After), broken streams, undecodable lines, timeouts (no first
 * byte, a silent list or stream, the initial stream's deadline), and now
 * and then an input that belongs to no request in flight (a stale timer,
 * a late answer). Invariants:
 * - at most one request in flight: the state's phase is the request the
 *   driver performs; an input of no request in flight changes nothing and
 *   asks for nothing; an answer that ends the request asks for exactly the
 *   next one (the loop never stalls); an event other than ERROR never
 *   starts another request;
 * - the resourceVersion never goes backwards: a watch resumes from no
 *   older a version than the previous watch, the last list, or any event
 *   or bookmark it has passed on;
 * - a relist after every 410: the next request that is not a backoff is a
 *   list from the start (or an initial stream), and no watch resumes
 *   before that list has completed.
 *
 * `TRANSITION_SEED=<n>` runs seed n only (a failure prints that line);
 * `TRANSITION_SEEDS=<count>` runs seeds 1 to count.
 */
import assert from "node:assert/strict";
import {
  initialListWatchState,
  listWatchTransition,
} from "./_list_watch_transition.ts";
import type {
  ListWatchCommand,
  ListWatchContext,
  ListWatchInput,
  ListWatchState,
} from "./_transition_types.ts";
import { FirstByteTimeoutError, ListTimeoutError } from "./list_watch_types.ts";
import { ApiError } from "../client/api_error.ts";
import { JsonLinesError } from "../client/json_lines.ts";
import {
  assertSeedsHeld,
  SeededRandom,
  seedsToRun,
} from "../testing/_seeded_random.ts";

const FILE = "listwatch/_list_watch_transition_property_test.ts";
const DEFAULT_SEEDS = 300;
const STEPS = 400;
const PATH = "/api/v1/namespaces/default/configmaps";

function replay(seed: number): string {
  return `TRANSITION_SEED=${seed} deno test -A ${FILE}`;
}

/** The request the driver performs, as `ListWatch` performs them. */
type Request =
  | { readonly kind: "none" }
  | { readonly kind: "list"; readonly continued: boolean }
  | { readonly kind: "watch"; readonly initial: boolean; opened: boolean }
  | { readonly kind: "backoff" };

/** The request a command starts. */
function requestOf(command: ListWatchCommand): Request {
  switch (command.type) {
    case "list":
      return { kind: "list", continued: command.query.has("continue") };
    case "watch":
      return { kind: "watch", initial: command.initialStream, opened: false };
    case "backoff":
      return { kind: "backoff" };
  }
}

/** The request a state says is in flight. */
function phaseRequest(state: ListWatchState): Request["kind"] {
  switch (state.phase) {
    case "idle":
      return "none";
    case "listing":
      return "list";
    case "streamingInitial":
    case "watching":
      return "watch";
    case "backingOff":
      return "backoff";
  }
}

/** The input types each request can produce; the rest are stray for it. */
const ANSWERS: Record<Request["kind"], readonly ListWatchInput["type"][]> = {
  none: ["start"],
  list: ["listPage", "listFailed"],
  watch: [
    "watchOpened",
    "watchEvent",
    "watchEnded",
    "watchFailed",
    "idleTimeout",
    "initialStreamDeadline",
  ],
  backoff: ["backoffElapsed"],
};

/** Inputs after which the request in flight is over. */
const ENDS = new Set<ListWatchInput["type"]>([
  "start",
  "listPage",
  "listFailed",
  "watchEnded",
  "watchFailed",
  "idleTimeout",
  "initialStreamDeadline",
  "backoffElapsed",
]);

const ALL_INPUT_TYPES = Object.values(ANSWERS).flat();

/**
 * Whether the request in flight can produce `type`: the initial stream's
 * deadline ends with its initial events (`ListWatch` stops that timer).
 */
function answers(
  request: Request,
  state: ListWatchState,
  type: ListWatchInput["type"],
): boolean {
  if (type === "initialStreamDeadline") {
    return request.kind === "watch" && state.phase === "streamingInitial";
  }
  return ANSWERS[request.kind].includes(type);
}

/** A Status body, as an ERROR event or a failed request carries it. */
function status(code: number, reason: string) {
  return { kind: "Status", status: "Failure", code, reason };
}

/** An HTTP error other than 410, drawn at random. */
function otherHttpError(rng: SeededRandom): ApiError {
  const [code, reason] = rng.pick(
    [
      [500, "InternalError"],
      [503, "ServiceUnavailable"],
      [429, "TooManyRequests"],
      [401, "Unauthorized"],
      [403, "Forbidden"],
      [400, "BadRequest"],
      [404, "NotFound"],
      [422, "Invalid"],
      [408, "Timeout"],
      [504, "Timeout"],
    ] as const,
  );
  return new ApiError({
    code,
    status: status(code, reason),
    retryAfterSeconds: code === 429 && rng.chance(0.5)
      ? rng.int(1, 10)
      : undefined,
  });
}

const GONE = () => new ApiError({ code: 410, status: status(410, "Gone") });

/** A request that failed without an HTTP answer, or timed out. */
function transportError(rng: SeededRandom): unknown {
  switch (rng.int(0, 4)) {
    case 0:
      return new TypeError("error sending request: connection reset");
    case 1:
      return new FirstByteTimeoutError(PATH, 30_000);
    case 2:
      return new ListTimeoutError(PATH, 180_000);
    case 3:
      return new JsonLinesError("invalid-json", "<html>502 Bad Gateway");
    default:
      return "a thrown string";
  }
}

/** What one seed broke, and how far it got. */
interface SeedResult {
  readonly broken: string[];
  readonly coverage: Set<string>;
}

/** Runs one seed; the invariants it broke (empty when none). */
function runSeed(seed: number): SeedResult {
  const rng = new SeededRandom(seed);
  const coverage = new Set<string>();
  const broken: string[] = [];
  const time = { now: 0 };
  const context: ListWatchContext = {
    path: PATH,
    pageSize: rng.pick([1, 2, 500]),
    random: rng.next,
    now: () => time.now,
  };
  const initialList = rng.chance(0.5) ? "list" : "stream";
  let state: ListWatchState = initialListWatchState({ initialList });
  let request: Request = { kind: "none" };

  // The model server: its resourceVersion only grows; a list is a
  // snapshot at the version it started at.
  let serverRv = rng.int(1, 50);
  let snapshotRv: number | undefined;
  let names = 0;
  const newObject = (rv: number) => ({
    kind: "ConfigMap",
    metadata: {
      namespace: "default",
      name: `cm-${rng.int(0, 5)}-${names++}`,
      resourceVersion: String(rv),
    },
  });

  // What the invariants remember.
  /** The newest version passed on or resumed from. */
  let highWater = 0;
  /** A 410 was answered: the next request (not a backoff) must relist. */
  let relistDue = false;
  /** Relisted after a 410: no watch resumes until the list completes. */
  let listingAfterGone = false;
  let lastWatchRv = 0;

  for (let step = 0; step < STEPS && broken.length === 0; step++) {
    time.now += rng.chance(0.3) ? rng.int(1_000, 60_000) : rng.int(0, 500);
    const input = rng.chance(0.08)
      ? strayInput(rng, request, state)
      : answer(rng, request, state);
    if (input === undefined) continue;
    const at = `step ${step} (${state.phase}, ${request.kind}) ${
      describe(input)
    }`;
    const stray = !answers(request, state, input.type);
    coverage.add(stray ? `stray ${input.type}` : describe(input));

    const before: ListWatchState = state;
    const result = listWatchTransition(state, input, context);
    state = result.state;
    const command = result.command;

    // At most one request in flight.
    if (stray) {
      if (
        command !== undefined || result.outputs.length > 0 || state !== before
      ) {
        broken.push(`${at}: an input of no request in flight changed the loop`);
      }
      continue;
    }
    if (ENDS.has(input.type) && command === undefined) {
      broken.push(`${at}: the request ended and no next one was asked for`);
    }
    if (
      input.type === "watchEvent" && command !== undefined &&
      !isErrorEvent(input)
    ) {
      broken.push(`${at}: an event that is no ERROR started a request`);
    }
    if (command !== undefined) {
      request = requestOf(command);
      coverage.add(`command ${command.type}`);
    } else if (input.type === "watchOpened" && request.kind === "watch") {
      request.opened = true;
    }
    if (phaseRequest(state) !== request.kind) {
      broken.push(
        `${at}: the state is ${state.phase} while the request in flight is ${request.kind}`,
      );
    }

    // The resourceVersion never goes backwards.
    for (const output of result.outputs) {
      if (output.type === "listed") {
        const rv = Number(output.resourceVersion);
        if (rv < highWater) {
          broken.push(`${at}: listed at ${rv}, after ${highWater}`);
        }
        highWater = Math.max(highWater, rv);
        listingAfterGone = false;
        coverage.add(output.initial ? "listed (initial)" : "listed (relist)");
      } else if (output.type === "event") {
        const rv = Number(output.object.metadata.resourceVersion);
        if (rv < highWater) {
          broken.push(`${at}: passed on an event at ${rv}, after ${highWater}`);
        }
        highWater = Math.max(highWater, rv);
      }
    }
    if (input.type === "watchEvent" && state.phase === "watching") {
      // A bookmark moves the loop on too.
      highWater = Math.max(highWater, Number(state.resourceVersion));
    }
    if (command?.type === "watch" && !command.initialStream) {
      const rv = Number(command.query.get("resourceVersion"));
      if (rv < highWater || rv < lastWatchRv) {
        broken.push(
          `${at}: watches from ${rv}, after ${
            Math.max(highWater, lastWatchRv)
          }`,
        );
      }
      lastWatchRv = rv;
    }

    // A relist after every 410.
    if (
      listingAfterGone && command?.type === "watch" && !command.initialStream
    ) {
      broken.push(`${at}: after a 410 a watch resumed before the relist ended`);
    }
    if (isGone(input)) {
      coverage.add(`410 during ${before.phase}`);
      relistDue = true;
      // The server compacted: its history restarts later.
      serverRv += rng.int(1, 100);
    }
    if (relistDue && command !== undefined && command.type !== "backoff") {
      if (!isRelist(command)) {
        broken.push(`${at}: after a 410 the loop ${continues(command)}`);
      }
      relistDue = false;
      listingAfterGone = true;
    }
  }
  return { broken, coverage };

  /** An answer the request in flight can give, drawn at random. */
  function answer(
    rng: SeededRandom,
    request: Request,
    state: ListWatchState,
  ): ListWatchInput | undefined {
    switch (request.kind) {
      case "none":
        return { type: "start" };
      case "backoff":
        return { type: "backoffElapsed" };
      case "list":
        return listAnswer(rng, request);
      case "watch":
        return watchAnswer(rng, request, state);
    }
  }

  function listAnswer(
    rng: SeededRandom,
    request: Extract<Request, { kind: "list" }>,
  ): ListWatchInput {
    const roll = rng.next();
    if (roll < 0.08) {
      return { type: "listFailed", error: GONE() };
    }
    if (roll < 0.16) {
      return { type: "listFailed", error: otherHttpError(rng) };
    }
    if (roll < 0.22) {
      return { type: "listFailed", error: transportError(rng) };
    }
    if (roll < 0.25) {
      return { type: "listPage", list: rng.pick([{}, { items: 3 }, null]) };
    }
    if (!request.continued || snapshotRv === undefined) {
      serverRv += rng.int(0, 3);
      snapshotRv = serverRv;
    }
    const rv = snapshotRv;
    const more = rng.chance(0.4);
    if (!more) snapshotRv = undefined;
    const items = Array.from(
      { length: rng.int(0, 3) },
      () => newObject(rng.int(1, rv)),
    );
    return {
      type: "listPage",
      list: {
        kind: "ConfigMapList",
        metadata: more
          ? { resourceVersion: String(rv), continue: `page-${rng.int(1, 9)}` }
          : { resourceVersion: String(rv) },
        items,
      },
    };
  }

  function watchAnswer(
    rng: SeededRandom,
    request: Extract<Request, { kind: "watch" }>,
    state: ListWatchState,
  ): ListWatchInput {
    if (!request.opened) {
      const roll = rng.next();
      if (roll < 0.06) return { type: "watchFailed", error: GONE() };
      if (roll < 0.12) {
        return { type: "watchFailed", error: otherHttpError(rng) };
      }
      if (roll < 0.18) {
        return { type: "watchFailed", error: transportError(rng) };
      }
      return { type: "watchOpened" };
    }
    const roll = rng.next();
    if (roll < 0.04) return { type: "watchEnded" };
    if (roll < 0.07) {
      return { type: "watchFailed", error: transportError(rng) };
    }
    if (roll < 0.09) {
      return { type: "idleTimeout", idleMs: rng.int(1, 600_000) };
    }
    if (roll < 0.11 && state.phase === "streamingInitial") {
      return { type: "initialStreamDeadline", afterMs: rng.int(1, 600_000) };
    }
    if (roll < 0.14) {
      return {
        type: "watchEvent",
        event: { type: "ERROR", object: GONE_STATUS },
      };
    }
    if (roll < 0.16) {
      const code = rng.pick([500, 429, 403, 400]);
      return {
        type: "watchEvent",
        event: { type: "ERROR", object: status(code, "Other") },
      };
    }
    if (roll < 0.18) {
      return {
        type: "watchEvent",
        event: rng.pick([null, "text", { type: "WHAT", object: {} }, {
          type: "ADDED",
          object: { kind: "ConfigMap" },
        }]),
      };
    }
    const initial = state.phase === "streamingInitial";
    // The end of the initial events carries the snapshot's version.
    const end = initial && rng.chance(0.12);
    if (end || rng.chance(0.15)) {
      if (!end) serverRv += rng.int(0, 2);
      const metadata = end
        ? {
          resourceVersion: String(serverRv),
          annotations: { "k8s.io/initial-events-end": "true" },
        }
        : { resourceVersion: String(serverRv) };
      return {
        type: "watchEvent",
        event: { type: "BOOKMARK", object: { kind: "ConfigMap", metadata } },
      };
    }
    if (initial) {
      // The initial events carry each object's own version, in no order.
      return {
        type: "watchEvent",
        event: { type: "ADDED", object: newObject(rng.int(1, serverRv)) },
      };
    }
    serverRv += 1;
    return {
      type: "watchEvent",
      event: {
        type: rng.pick(["ADDED", "MODIFIED", "DELETED"]),
        object: newObject(serverRv),
      },
    };
  }
}

const GONE_STATUS = status(410, "Expired");

/** An input no request in flight can have produced. */
function strayInput(
  rng: SeededRandom,
  request: Request,
  state: ListWatchState,
): ListWatchInput | undefined {
  const types = ALL_INPUT_TYPES.filter((t) => !answers(request, state, t));
  const type = rng.pick(types);
  switch (type) {
    case "start":
      return { type };
    case "listPage":
      return {
        type,
        list: { metadata: { resourceVersion: "1" }, items: [] },
      };
    case "listFailed":
    case "watchFailed":
      return { type, error: GONE() };
    case "watchOpened":
    case "watchEnded":
    case "backoffElapsed":
      return { type };
    case "watchEvent":
      return { type, event: { type: "ERROR", object: GONE_STATUS } };
    case "idleTimeout":
      return { type, idleMs: 1 };
    case "initialStreamDeadline":
      return { type, afterMs: 1 };
  }
}

/** Whether a request lists from the start (a page 1 or an initial stream). */
function isRelist(command: ListWatchCommand): boolean {
  return command.type === "list"
    ? !command.query.has("continue")
    : command.type === "watch" && command.initialStream;
}

/** What a request that is no relist does instead, for messages. */
function continues(command: ListWatchCommand): string {
  return command.type === "list"
    ? "asks for the next page instead of relisting"
    : "resumes its watch instead of relisting";
}

function isErrorEvent(input: ListWatchInput): boolean {
  return input.type === "watchEvent" &&
    (input.event as { type?: unknown } | null)?.type === "ERROR";
}

function isGone(input: ListWatchInput): boolean {
  if (input.type === "listFailed" || input.type === "watchFailed") {
    return input.error instanceof ApiError && input.error.code === 410;
  }
  return isErrorEvent(input) &&
    (input as { event: { object: { code?: unknown } } }).event.object.code ===
      410;
}

/** An input, short, for messages and coverage. */
function describe(input: ListWatchInput): string {
  switch (input.type) {
    case "listFailed":
    case "watchFailed": {
      const error = input.error;
      const what = error instanceof ApiError
        ? String(error.code)
        : error instanceof Error
        ? error.name
        : typeof error;
      return `${input.type} ${what}`;
    }
    case "watchEvent": {
      const event = input.event as
        | { type?: unknown; object?: { code?: unknown } }
        | null;
      const type = typeof event?.type === "string" ? event.type : "junk";
      return type === "ERROR"
        ? `watchEvent ERROR ${event?.object?.code}`
        : `watchEvent ${type}`;
    }
    case "listPage": {
      const list = input.list as
        | { metadata?: { continue?: string } }
        | null;
      return list?.metadata === undefined
        ? "listPage malformed"
        : list.metadata.continue === undefined
        ? "listPage last"
        : "listPage continued";
    }
    default:
      return input.type;
  }
}

const seeds = seedsToRun("TRANSITION", DEFAULT_SEEDS);

Deno.test(`listWatchTransition keeps its invariants under random answers (${seeds.length} seeds)`, () => {
  const failed: { seed: number; broken: string[] }[] = [];
  const coverage = new Set<string>();
  for (const seed of seeds) {
    const result = runSeed(seed);
    for (const c of result.coverage) coverage.add(c);
    if (result.broken.length > 0) {
      failed.push({ seed, broken: result.broken });
    }
  }
  assertSeedsHeld(failed, seeds.length, replay);
  if (seeds.length === 1) return;
  // The answers the invariants are about were drawn, in every phase.
  for (
    const what of [
      "410 during listing",
      "410 during watching",
      "410 during streamingInitial",
      "watchEvent ERROR 410",
      "listPage continued",
      "listPage malformed",
      "watchEvent BOOKMARK",
      "watchEnded",
      "idleTimeout",
      "initialStreamDeadline",
      "listed (relist)",
      "command backoff",
      "stray backoffElapsed",
      "stray listPage",
    ]
  ) {
    assert.ok(coverage.has(what), `no seed drew ${what}`);
  }
});
