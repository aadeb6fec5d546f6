import type { Clock } from "../clock.ts";
import {
  invalidOptionsMessage,
  optionNamesProblem,
} from "../_internal/_option_checks.ts";
import type {
  Reactor,
  ReactorCall,
  ReactorHandle,
  ReactorVerb,
  WatchTap,
} from "./reactor.ts";

/** The verb of a request, as reactors and the request log name it. */
export type RequestVerb = Exclude<ReactorVerb, "any">;

/** What a request asks for, before any reactor sees it. */
export type CallInfo = Omit<ReactorCall, "serve" | "hold"> & {
  /** The resource type's `group/version/resource`, for resource requests. */
  gvrKey: string | undefined;
};

/** How the server answers a request itself. */
export interface ServerAnswers {
  /** The server's own handling, with a tap on a watch's stream. */
  serve(tap: WatchTap | undefined): Promise<Response>;
  /** A body that never comes. */
  hold(): Response;
}

interface Armed {
  reactor: Reactor;
  verbs: ReadonlySet<ReactorVerb> | undefined;
  gvrKey: string | undefined;
  remaining: number;
  until: number;
  hits: number;
  cancelled: boolean;
}

const VERBS: ReadonlySet<string> = new Set<ReactorVerb>([
  "get",
  "list",
  "watch",
  "create",
  "update",
  "patch",
  "delete",
  "deletecollection",
  "discovery",
  "any",
]);

/**
 * The reactors of a server, tried in order; the first that answers a
 * request is the only one that does.
 */
export class ReactorChain {
  #armed: Armed[] = [];
  #clock: Clock;

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /** Arms a reactor (first: before every other), its resource resolved to `gvrKey`. */
  add(
    reactor: Reactor,
    gvrKey: string | undefined,
    first: boolean,
  ): ReactorHandle {
    const verbs = reactor.verb === undefined ? undefined : new Set(
      typeof reactor.verb === "string" ? [reactor.verb] : reactor.verb,
    );
    const armed: Armed = {
      reactor,
      verbs: verbs?.has("any") ? undefined : verbs,
      gvrKey,
      remaining: reactor.times ?? Infinity,
      until: reactor.forMs !== undefined
        ? this.#clock.now() + reactor.forMs
        : Infinity,
      hits: 0,
      cancelled: false,
    };
    if (first) this.#armed.unshift(armed);
    else this.#armed.push(armed);
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

  /** The answer of the first reactor that answers, or the server's. */
  run(info: CallInfo, server: ServerAnswers): Promise<Response> {
    if (this.#armed.length === 0) return server.serve(undefined);
    const now = this.#clock.now();
    const { gvrKey, ...fields } = info;
    const call: ReactorCall = {
      ...fields,
      serve: (options) => server.serve(options?.watch),
      hold: () => server.hold(),
    };
    for (const armed of [...this.#armed]) {
      if (!isActive(armed, now)) continue;
      if (armed.verbs !== undefined && !armed.verbs.has(info.verb)) continue;
      if (armed.gvrKey !== undefined && armed.gvrKey !== gvrKey) continue;
      const { namespace, name } = armed.reactor;
      if (namespace !== undefined && namespace !== info.namespace) continue;
      if (name !== undefined && name !== info.name) continue;
      const answer = armed.reactor.react(call);
      if (answer === undefined) continue;
      // Counted before the answer settles, so that concurrent requests
      // cannot both take a reactor's last use.
      armed.remaining--;
      armed.hits++;
      this.#prune();
      return answer instanceof Response
        ? Promise.resolve(answer)
        : Promise.resolve(answer).then(checkedAnswer);
    }
    this.#prune();
    return server.serve(undefined);
  }

  /** Disarms every reactor. */
  clear(): void {
    for (const armed of this.#armed) armed.cancelled = true;
    this.#armed = [];
  }

  #prune(): void {
    const now = this.#clock.now();
    this.#armed = this.#armed.filter((a) => isActive(a, now));
  }
}

function isActive(armed: Armed, now: number): boolean {
  return !armed.cancelled && armed.remaining > 0 && now < armed.until;
}

/**
 * What an async `react` resolved to, when it is a Response. Passing is a
 * synchronous `undefined`: once a promise is returned the reactor has taken
 * the request (and a use of `times`), so anything else is its mistake,
 * answered as a throwing reactor's is (a 500 naming it).
 */
function checkedAnswer(answer: unknown): Response {
  if (answer instanceof Response) return answer;
  const what = answer === undefined || answer === null
    ? String(answer)
    : `a${typeof answer === "object" ? "n" : ""} ${typeof answer}`;
  throw new Error(
    `the reactor's react resolved to ${what}, not a Response (to pass, return undefined without a promise)`,
  );
}

/** The names a reactor takes. */
const REACTOR_NAMES: Readonly<Record<keyof Reactor, true>> = {
  react: true,
  verb: true,
  resource: true,
  namespace: true,
  name: true,
  times: true,
  forMs: true,
};

/** Throws a TypeError naming what is wrong with a reactor. */
export function checkReactor(reactor: Reactor): void {
  const bad = (what: string): never => {
    throw new TypeError(`Invalid reactor: ${what}`);
  };
  if (reactor === null || typeof reactor !== "object") {
    bad("expected an object");
  }
  const unknown = optionNamesProblem({
    known: REACTOR_NAMES,
    value: reactor,
    type: "Reactor",
  });
  if (unknown) throw new TypeError(invalidOptionsMessage("reactor", unknown));
  if (typeof reactor.react !== "function") bad("react must be a function");
  const verbs = typeof reactor.verb === "string" || reactor.verb === undefined
    ? [reactor.verb ?? "any"]
    : reactor.verb;
  if (!Array.isArray(verbs)) bad("verb must be a verb or an array of verbs");
  for (const verb of verbs) {
    if (!VERBS.has(verb)) bad(`unknown verb ${JSON.stringify(verb)}`);
  }
  for (const key of ["namespace", "name"] as const) {
    if (reactor[key] !== undefined && typeof reactor[key] !== "string") {
      bad(`${key} must be a string`);
    }
  }
  if (
    reactor.times !== undefined && reactor.times !== Infinity &&
    (!Number.isInteger(reactor.times) || reactor.times < 1)
  ) bad("times must be a positive integer or Infinity");
  if (
    reactor.forMs !== undefined &&
    (!Number.isFinite(reactor.forMs) || reactor.forMs <= 0)
  ) bad("forMs must be a positive number of milliseconds");
}
