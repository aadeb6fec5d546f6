/**
 * The error of an unusable option, thrown by the watchers, the debouncers
 * and by `ListWatch` (a layer below them), so it sits below both;
 * `./watcher` and the root export it.
 *
 * @module
 */

/**
 * Thrown by the watcher, `ListWatch`, `DebounceGroup` and `Debouncer`
 * constructors (and `DebounceGroup.member`) when the configuration is
 * unusable; `field` names the offending option, in the same words
 * wherever the option appears (`settle.maxWaitMs` of a watcher or of a
 * group). A `TypeError`, as for any unusable argument.
 *
 * @example An empty resource name
 * ```ts
 * import { Watcher, WatcherConfigError } from "@haptic/k8s-watcher";
 * import assert from "node:assert/strict";
 *
 * assert.throws(
 *   () => new Watcher({ gvr: { group: "", version: "v1", resource: "" }, indexBy: ["metadata.name"], onChange: () => {} }, {} as never),
 *   (e) => e instanceof WatcherConfigError && e.field === "gvr.resource",
 * );
 * ```
 */
export class WatcherConfigError extends TypeError {
  /** The option that was wrong, e.g. `gvr.resource`. */
  readonly field: string;

  /**
   * Creates the error; the message names the option.
   *
   * @example Naming the option
   * ```ts
   * import { WatcherConfigError } from "@haptic/k8s-watcher";
   * import assert from "node:assert/strict";
   *
   * const err = new WatcherConfigError("debounceInterval", "must be a positive number");
   * assert.equal(err.field, "debounceInterval");
   * assert.ok(err instanceof TypeError);
   * ```
   *
   * @param field The option that was wrong.
   * @param message What was wrong with it.
   * @param options The underlying parse error, if any.
   */
  constructor(field: string, message: string, options?: ErrorOptions) {
    super(`Invalid watcher config: ${field}: ${message}`, options);
    this.name = "WatcherConfigError";
    this.field = field;
  }
}
