/**
 * What the bench server and its clients share: the clock, the latency
 * annotation, and the control routes under `/_bench/`.
 *
 * @module
 */

/** Annotation carrying the server's send time in latency and stamped flood events. */
export const SENT_AT = "bench.haptic.dev/sent-at";

/**
 * Wall-clock milliseconds with sub-millisecond resolution, comparable
 * between processes on one machine (up to the offset that
 * {@linkcode clockOffset} measures).
 */
export function now(): number {
  return performance.timeOrigin + performance.now();
}

/** What the next contender meets. */
export interface ScenarioRequest {
  /** Pods in the list (a prefix of the server's data set). */
  objects: number;
  /**
   * What the next watch does: nothing, the pre-built flood, the flood with
   * each event's send time in `SENT_AT`, or isolated events on request.
   */
  watch: "idle" | "flood" | "stampedFlood" | "latency";
}

/** Server-side record of the current scenario. */
export interface ScenarioStats {
  objects: number;
  watch: string;
  floodStartedAt?: number;
  floodSentAt?: number;
  floodEvents: number;
  lists: number;
  watches: number;
  /** Lists and watches answered in the metadata-only form. */
  metadataLists: number;
  metadataWatches: number;
  /** Bytes sent in list and in watch answers. */
  listBytes: number;
  watchBytes: number;
  listLimits: (number | null)[];
  latencySent: number;
}

async function call(server: string, path: string): Promise<unknown> {
  const res = await fetch(`${server}${path}`, { method: "POST" });
  const body = await res.json() as { error?: string };
  if (!res.ok || body.error) {
    throw new Error(`Bench server ${path} failed: ${body.error ?? res.status}`);
  }
  return body;
}

/** Sets the scenario for the next contender. */
export async function setScenario(
  server: string,
  request: ScenarioRequest,
): Promise<void> {
  await call(
    server,
    `/_bench/scenario?objects=${request.objects}&watch=${request.watch}`,
  );
}

/** What the server recorded for the current scenario. */
export async function scenarioStats(server: string): Promise<ScenarioStats> {
  return await call(server, "/_bench/stats") as ScenarioStats;
}

/**
 * Asks the server to send `count` isolated events, `gapMs` apart, once the
 * contender's watch is open (retrying for up to `waitMs` until it is).
 */
export async function requestIsolatedEvents(
  server: string,
  count: number,
  gapMs: number,
  waitMs = 10_000,
): Promise<void> {
  const until = now() + waitMs;
  for (;;) {
    try {
      await call(server, `/_bench/latency?count=${count}&gap=${gapMs}`);
      return;
    } catch (error) {
      if (now() > until) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

/**
 * Server clock minus ours, from the round trip with the smallest delay
 * (NTP-style); close to zero on one machine, measured rather than assumed.
 */
export async function clockOffset(
  server: string,
  rounds = 15,
): Promise<number> {
  let best = Infinity;
  let offset = 0;
  for (let i = 0; i < rounds; i++) {
    const t0 = now();
    const res = await fetch(`${server}/_bench/now`);
    const { now: serverNow } = await res.json() as { now: number };
    const t1 = now();
    if (t1 - t0 < best) {
      best = t1 - t0;
      offset = serverNow - (t0 + t1) / 2;
    }
  }
  return offset;
}
