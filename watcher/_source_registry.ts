/**
 * Where watchers find the running source of their form: per client object,
 * by a key made of everything that decides what the source fetches and
 * stores, and how its loops run. Objects and functions in it (the
 * `transform`, clock, logger, jitter source) count by identity.
 *
 * @module
 */
import type { KubeObject, KubeObjectLike } from "../types.ts";
import type { SharedSource } from "./_shared_source.ts";

const byClient = new WeakMap<object, Map<string, SharedSource<KubeObject>>>();
const ids = new WeakMap<object, number>();
let nextId = 1;

/** A stable name for a value in a key: objects and functions by identity. */
export function identity(value: unknown): string | number | boolean | null {
  if (value === undefined) return null;
  if (
    (typeof value === "object" && value !== null) || typeof value === "function"
  ) {
    let id = ids.get(value);
    if (id === undefined) ids.set(value, id = nextId++);
    return `#${id}`;
  }
  return value as string | number | boolean;
}

/**
 * The running (or starting) source of `key` on `client`, made with `make`
 * and registered when there is none. A source unregisters itself when its
 * last consumer leaves (see `release`).
 */
export function acquireSource<T extends KubeObjectLike>(
  client: object,
  key: string,
  make: () => SharedSource<T>,
): SharedSource<T> {
  let sources = byClient.get(client);
  if (sources === undefined) byClient.set(client, sources = new Map());
  const running = sources.get(key);
  if (running !== undefined && !running.closed) {
    return running as unknown as SharedSource<T>;
  }
  const source = make();
  sources.set(key, source as unknown as SharedSource<KubeObject>);
  return source;
}

/** Unregisters `source` (its last consumer left). */
export function releaseSource(
  client: object,
  key: string,
  source: object,
): void {
  const sources = byClient.get(client);
  if (sources?.get(key) === source) sources.delete(key);
}
