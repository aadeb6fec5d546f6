/**
 * What alive and ready mean, as lists of named checks: the part of the
 * health endpoints with no HTTP in it.
 *
 * - Alive: no loop wedged. A running loop shows progress (bytes of a LIST
 *   body, an opened watch, an event or bookmark) at least once per idle
 *   timeout, since a silent watch is resumed then, and a failure it retries
 *   shows it turning too, the wait before the retry (a backoff, however
 *   long a `Retry-After` makes it) included; one with none of these for
 *   twice its idle timeout is stuck
 *   (a callback it waits on never returned, a client that ignores aborts).
 *   Restarting the process is what helps then, and only then. So is a
 *   Watcher whose `onChange` runs that long while changes wait behind it:
 *   its loop goes on reading, and nothing else sees delivery stop.
 * - Ready: every watcher synced, every tracked resource synced, and, when
 *   asked, this replica leading.
 *
 * @module
 */
import type { Clock } from "../clock.ts";
import type { WatcherHealth } from "../watcher/watcher_health.ts";
import type { IndexSynchronizationTracker } from "../indextracker/index_synchronization_tracker.ts";
import type { LeaderElector } from "../leaderelection/leader_elector.ts";
import type { ControllerHealth } from "../controller/controller.ts";

/** One named check and, when it failed, why. */
export interface Check {
  readonly name: string;
  /** `undefined` when the check passed. */
  readonly failure: string | undefined;
}

/** What the checks read. */
export interface CheckSources {
  readonly watchers: ReadonlyArray<
    readonly [name: string, source: { health(): WatcherHealth }]
  >;
  readonly tracker:
    | Pick<IndexSynchronizationTracker, "resourceNames" | "isResourceSynced">
    | undefined;
  readonly elector: Pick<LeaderElector, "health"> | undefined;
  readonly controllers: ReadonlyArray<
    readonly [name: string, source: { health(): ControllerHealth }]
  >;
  readonly readyOnlyWhenLeading: boolean;
  readonly clock: Clock;
}

/**
 * The liveness checks. `firstSeen` remembers, per loop, when it was first
 * seen running without any progress or failure yet: the silence is counted
 * from then, never from earlier than it is known to have lasted.
 */
export function livenessChecks(
  sources: CheckSources,
  firstSeen: Map<string, number>,
): Check[] {
  const now = sources.clock.now();
  const checks: Check[] = [];
  const watched: [key: string, health: WatcherHealth][] = sources.watchers
    .map(([name, source]) => [`watcher/${name}`, source.health()]);
  for (const [name, controller] of sources.controllers) {
    const stores = controller.health().watchers;
    for (const store in stores) {
      watched.push([`controller/${name}/${store}`, stores[store]]);
    }
  }
  for (const [key, health] of watched) {
    if (health.state !== "running") {
      checks.push({ name: key, failure: undefined });
      continue;
    }
    const loops = health.namespaces === undefined
      ? [["", health] as const]
      : Object.entries(health.namespaces);
    const stuck: string[] = [];
    for (const [namespace, loop] of loops) {
      const seen = `${key}\0${namespace}`;
      // A scheduled wait before a retry is not silence: it counts as
      // progress until it ends.
      let since = latest(
        latest(loop.lastActivityTime, loop.lastError?.time),
        loop.retryAt,
      );
      if (since === undefined) {
        since = firstSeen.get(seen) ?? now;
        firstSeen.set(seen, since);
      }
      const silentMs = now - since;
      if (silentMs > 2 * health.idleTimeoutMs) {
        stuck.push(
          `${
            namespace === "" ? "" : `namespace ${namespace}: `
          }no progress for ${
            seconds(silentMs)
          }, more than twice its idle timeout (${
            seconds(health.idleTimeoutMs)
          })`,
        );
      }
    }
    const hung = hungDelivery(health, now);
    if (hung !== undefined) stuck.push(hung);
    checks.push({
      name: key,
      failure: stuck.length === 0 ? undefined : stuck.join("; "),
    });
  }
  return checks;
}

/**
 * Why a Watcher's delivery is stuck: its `onChange` has run for more than
 * twice the idle timeout while changes wait behind it. The loop goes on
 * reading meanwhile, so only this shows it. A long call with nothing
 * waiting holds nothing up.
 */
function hungDelivery(health: WatcherHealth, now: number): string | undefined {
  const delivery = health.delivery;
  const since = delivery?.callbackRunningSince;
  if (since === undefined || delivery!.undelivered === 0) return undefined;
  const runningMs = now - since;
  if (runningMs <= 2 * health.idleTimeoutMs) return undefined;
  return `onChange running for ${seconds(runningMs)} with ${
    delivery!.undelivered
  } change${
    delivery!.undelivered === 1 ? "" : "s"
  } waiting, more than twice its idle timeout (${
    seconds(health.idleTimeoutMs)
  })`;
}

/** The readiness checks. */
export function readinessChecks(sources: CheckSources): Check[] {
  const checks: Check[] = [];
  for (const [name, source] of sources.watchers) {
    checks.push({
      name: `watcher/${name}`,
      failure: notSynced(source.health()),
    });
  }
  const tracker = sources.tracker;
  if (tracker !== undefined) {
    for (const name of tracker.resourceNames) {
      checks.push({
        name: `tracker/${name}`,
        failure: tracker.isResourceSynced(name) ? undefined : "not synced",
      });
    }
  }
  for (const [name, controller] of sources.controllers) {
    const health = controller.health();
    checks.push({
      name: `controller/${name}`,
      // Ready once synced, leading or a warm standby.
      failure: health.state === "stopped"
        ? "stopped"
        : health.synced
        ? undefined
        : "not synced",
    });
  }
  const elector = sources.elector;
  if (elector !== undefined) {
    const { leading, leader } = elector.health();
    checks.push({
      name: "leader",
      failure: leading || !sources.readyOnlyWhenLeading
        ? undefined
        : `not leading (${
          leader === undefined ? "no holder seen" : `${leader} leads`
        })`,
    });
  }
  return checks;
}

/** Why a watcher is not ready, or `undefined` when it is. */
function notSynced(health: WatcherHealth): string | undefined {
  if (health.synced) return undefined;
  if (health.state === "idle") return "not started";
  if (health.state === "stopped") return "stopped";
  const waiting = health.namespaces === undefined
    ? []
    : Object.entries(health.namespaces).filter(([, loop]) => !loop.synced);
  const where = waiting.length === 0
    ? ""
    : ` (namespace${waiting.length === 1 ? "" : "s"} ${
      waiting.map(([namespace]) => namespace).join(", ")
    })`;
  const error = health.lastError === undefined
    ? ""
    : `; last error: ${describe(health.lastError.error)}`;
  return `not synced${where}${error}`;
}

/** An error's first line, short enough for a probe's body. */
function describe(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  const line = text.split("\n", 1)[0];
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}

function seconds(ms: number): string {
  return `${Math.round(ms / 1000)} s`;
}

/** The later of two times, either possibly unknown. */
function latest(
  a: number | undefined,
  b: number | undefined,
): number | undefined {
  return a === undefined || (b !== undefined && b > a) ? b : a;
}
