/**
 * Where watchers find the running source of their form: by the form's key
 * (`_source_form.ts`), the client object being one of its fields.
 *
 * @module
 */
import type { KubeObject, KubeObjectLike } from "../types.ts";
import type { SharedSource } from "./_shared_source.ts";

/** The running (or starting) sources, by form key; closed ones leave. */
const running = new Map<string, SharedSource<KubeObject>>();

/**
 * The running (or starting) source of `key`, made with `make` and
 * registered when there is none. A source unregisters itself when its last
 * consumer leaves (see `releaseSource`).
 */
export function acquireSource<T extends KubeObjectLike>(
  key: string,
  make: () => SharedSource<T>,
): SharedSource<T> {
  const source = running.get(key);
  if (source !== undefined && !source.closed) {
    return source as unknown as SharedSource<T>;
  }
  const made = make();
  running.set(key, made as unknown as SharedSource<KubeObject>);
  return made;
}

/** Unregisters `source` (its last consumer left). */
export function releaseSource(key: string, source: object): void {
  if (running.get(key) === source) running.delete(key);
}
