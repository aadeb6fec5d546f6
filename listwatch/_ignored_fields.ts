/**
 * A loop's `ignoreFields`: the paths no object reaches the sink with. A
 * path of member names only (`metadata.managedFields`) is cut out of the
 * text before it is parsed, where that is exact (`_json.ts`); every
 * path is then removed from what was parsed, as the `Indexer` removes it
 * (a no-op walk where the cut took it already). A BOOKMARK's or an
 * ERROR's object is left as sent: the loop reads them.
 *
 * @module
 */
import { Indexer } from "../selection/indexer.ts";
import { JsonPath } from "../selection/jsonpath.ts";
import {
  isCutEvent,
  type JsonCut,
  jsonCut,
  parseJsonCut,
  parseWatchLine,
} from "../_internal/_json.ts";
import { wrapConfigError } from "../_internal/_option_checks.ts";
import type { KubeObject } from "../types.ts";

/** What the loop parses and prunes with, for one `ignoreFields`. */
export class IgnoredFields {
  readonly #indexer: Indexer;
  /** How a watch line is parsed: cut, where the paths allow it. */
  readonly parseLine: ((text: string) => unknown) | undefined;
  /** How a LIST body is parsed: cut, where the paths allow it. */
  readonly parseList: ((text: string) => unknown) | undefined;

  /**
   * `undefined` when there is nothing to ignore.
   *
   * @throws {WatcherConfigError} Naming `ignoreFields`: not an array of
   * JSONPath expressions, or one that would remove `metadata.name`,
   * `metadata.namespace` or `metadata.resourceVersion`.
   */
  static of(
    ignoreFields: readonly string[] | undefined,
  ): IgnoredFields | undefined {
    if (ignoreFields === undefined) return undefined;
    // The Indexer's checks, in the watchers' words.
    const indexer = wrapConfigError(
      "ignoreFields",
      () => new Indexer({ indexBy: ["metadata.name"], ignoreFields }),
    );
    if (indexer.ignoreFields.length === 0) return undefined;
    return new IgnoredFields(indexer);
  }

  private constructor(indexer: Indexer) {
    this.#indexer = indexer;
    const names: string[][] = [];
    for (const expression of indexer.ignoreFields) {
      const { segments } = new JsonPath(expression);
      if (segments.every((s) => s.kind === "key")) {
        names.push(segments.map((s) => (s as { key: string }).key));
      }
    }
    const cut: JsonCut | undefined = jsonCut(names);
    if (cut !== undefined) {
      this.parseLine = (text) => parseWatchLine(text, cut);
      this.parseList = (text) => parseJsonCut(text, cut.list);
    }
  }

  /** Removes the paths from the object of an ADDED, MODIFIED or DELETED event (the loop's own value). */
  event(event: unknown): void {
    if (!isCutEvent(event)) return;
    const e = event as { object: KubeObject };
    e.object = this.#indexer.filterFields(e.object);
  }

  /** The LIST answer with the paths removed from its items (a copy where any was). */
  list(list: unknown): unknown {
    if (list === null || typeof list !== "object") return list;
    const items = (list as { items?: unknown }).items;
    if (!Array.isArray(items)) return list;
    let out: unknown[] | undefined;
    for (let i = 0; i < items.length; i++) {
      const item = items[i];
      if (item === null || typeof item !== "object" || Array.isArray(item)) {
        continue;
      }
      const pruned = this.#indexer.filterFields(item);
      if (pruned === item) continue;
      out ??= items.slice();
      out[i] = pruned;
    }
    return out === undefined ? list : { ...list, items: out };
  }
}
