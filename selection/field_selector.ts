/**
 * Client-side field selectors over JSONPath-lite paths.
 *
 * @module
 */
import { JsonPath } from "./jsonpath.ts";
import { renderValue } from "../_internal/_objects.ts";

/**
 * A field selector comparison: `=` and `==` (equal) or `!=` (not equal).
 *
 * @example Not equal
 * ```ts
 * import type { FieldSelectorOperator } from "@haptic/k8s-watcher/selection";
 *
 * const op: FieldSelectorOperator = "!=";
 * ```
 */
export type FieldSelectorOperator = "=" | "==" | "!=";

/**
 * One `path<op>value` term of a {@linkcode FieldSelector}, with the value
 * unescaped.
 *
 * @example The parsed terms of a selector
 * ```ts
 * import {
 *   FieldSelector,
 *   type FieldSelectorTerm,
 * } from "@haptic/k8s-watcher/selection";
 * import assert from "node:assert/strict";
 *
 * const [term]: readonly FieldSelectorTerm[] = new FieldSelector("spec.ingressClassName!=nginx").terms;
 * assert.equal(term.path.expression, "spec.ingressClassName");
 * assert.equal(term.operator, "!=");
 * assert.equal(term.value, "nginx");
 * ```
 */
export interface FieldSelectorTerm {
  /** The field the term reads. */
  readonly path: JsonPath;
  /** How the field is compared. */
  readonly operator: FieldSelectorOperator;
  /** The value compared against the field's rendered string form. */
  readonly value: string;
}

/**
 * A malformed field selector. Names the selector and, when one term is at
 * fault, that term.
 *
 * @example A term without an operator
 * ```ts
 * import {
 *   FieldSelector,
 *   FieldSelectorError,
 * } from "@haptic/k8s-watcher/selection";
 * import assert from "node:assert/strict";
 *
 * assert.throws(() => new FieldSelector("metadata.name=web,spec.paused"), (err) => {
 *   assert(err instanceof FieldSelectorError);
 *   assert.equal(err.term, "spec.paused");
 *   return true;
 * });
 * ```
 */
export class FieldSelectorError extends Error {
  /** The selector as given. */
  readonly selector: string;
  /** The offending term as written, when one term is at fault. */
  readonly term: string | undefined;

  /**
   * Creates the error.
   *
   * @example The selector and the term at fault
   * ```ts
   * import { FieldSelectorError } from "@haptic/k8s-watcher/selection";
   * import assert from "node:assert/strict";
   *
   * const err = new FieldSelectorError("spec.paused", "spec.paused", "expected =, == or !=");
   * assert.equal(err.term, "spec.paused");
   * ```
   *
   * @param selector The selector as given.
   * @param term The offending term, if any.
   * @param problem What is wrong, e.g. `has no operator`.
   * @param options The underlying cause, such as a `JsonPathError`.
   */
  constructor(
    selector: string,
    term: string | undefined,
    problem: string,
    options?: ErrorOptions,
  ) {
    super(
      `Invalid field selector ${JSON.stringify(selector)}: ${
        term === undefined ? "" : `term ${JSON.stringify(term)} `
      }${problem}`,
      options,
    );
    this.name = "FieldSelectorError";
    this.selector = selector;
    this.term = term;
  }
}

interface CompiledTerm extends FieldSelectorTerm {
  readonly negate: boolean;
}

/**
 * A client-side field selector: comma-separated `path=value`,
 * `path==value` and `path!=value` terms that must all hold, as in
 * Kubernetes field selectors, but where `path` is any JSONPath-lite
 * expression (so `metadata.labels['app.kubernetes.io/name']=web` works;
 * commas and `=` inside brackets do not split terms).
 *
 * The field's first match is rendered as index keys are (strings as-is,
 * numbers via `String`, booleans as `true`/`false`, objects as JSON) and
 * compared with the value. A missing or `null` field does not match `=` and
 * does match `!=`. With a `[*]` path, `=` holds when any match equals the
 * value and `!=` when none does. As in Kubernetes, a value escapes `\`, `,`
 * and `=` with a backslash; whitespace around paths and values is ignored.
 * An empty (or blank) selector matches everything.
 *
 * @example Selecting by class and label, client-side
 * ```ts
 * import { FieldSelector } from "@haptic/k8s-watcher/selection";
 * import assert from "node:assert/strict";
 *
 * const selector = new FieldSelector(
 *   "spec.ingressClassName=haproxy,metadata.labels['app.kubernetes.io/name']!=legacy",
 * );
 * const ingress = {
 *   metadata: { name: "web", labels: { "app.kubernetes.io/name": "shop" } },
 *   spec: { ingressClassName: "haproxy" },
 * };
 * assert.equal(selector.matches(ingress), true);
 * assert.equal(selector.matches({ metadata: { name: "x" }, spec: {} }), false);
 * assert.equal(new FieldSelector("").matches(ingress), true);
 * ```
 */
export class FieldSelector {
  /** The parsed terms, in the order written. */
  readonly terms: readonly FieldSelectorTerm[];
  #terms: CompiledTerm[];

  /**
   * Parses `selector`.
   *
   * @example Any field, not only those the server can select
   * ```ts
   * import { FieldSelector } from "@haptic/k8s-watcher/selection";
   * import assert from "node:assert/strict";
   *
   * const selector = new FieldSelector("spec.ingressClassName=haproxy");
   * assert.equal(selector.matches({ metadata: { name: "a" }, spec: { ingressClassName: "haproxy" } }), true);
   * assert.equal(selector.matches({ metadata: { name: "b" }, spec: {} }), false);
   * ```
   *
   * @param selector Comma-separated terms, or `""` to match everything.
   * @throws {FieldSelectorError} On an empty term, a term without operator,
   * an empty or invalid path, or a badly escaped value.
   */
  constructor(selector: string) {
    if (typeof selector !== "string") {
      throw new FieldSelectorError(
        String(selector),
        undefined,
        `must be a string, got ${typeof selector}`,
      );
    }
    this.#terms = parse(selector);
    this.terms = this.#terms.map(({ path, operator, value }) => ({
      path,
      operator,
      value,
    }));
  }

  /**
   * True when there are no terms, so every object matches.
   *
   * @example A blank selector matches everything
   * ```ts
   * import { FieldSelector } from "@haptic/k8s-watcher/selection";
   * import assert from "node:assert/strict";
   *
   * assert.equal(new FieldSelector(" ").isEmpty, true);
   * ```
   */
  get isEmpty(): boolean {
    return this.#terms.length === 0;
  }

  /**
   * Whether every term holds for `obj`.
   *
   * @param obj The object to test.
   * @returns `true` when `obj` is selected.
   *
   * @example Matching numbers and booleans
   * ```ts
   * import { FieldSelector } from "@haptic/k8s-watcher/selection";
   * import assert from "node:assert/strict";
   *
   * const selector = new FieldSelector("spec.replicas==3,spec.paused!=true");
   * assert.equal(selector.matches({ metadata: { name: "a" }, spec: { replicas: 3 } }), true);
   * assert.equal(selector.matches({ metadata: { name: "b" }, spec: { replicas: 3, paused: true } }), false);
   * ```
   */
  matches(obj: unknown): boolean {
    const terms = this.#terms;
    for (let i = 0; i < terms.length; i++) {
      const term = terms[i];
      const path = term.path;
      let equal: boolean;
      if (path.hasWildcard) {
        equal = false;
        for (const v of path.getAll(obj)) {
          if (renderValue(v) === term.value) {
            equal = true;
            break;
          }
        }
      } else {
        equal = renderValue(path.get(obj)) === term.value;
      }
      if (equal === term.negate) return false;
    }
    return true;
  }

  /**
   * The selector in canonical form: the terms as parsed, values re-escaped,
   * joined by commas. Parsing it again gives an equivalent selector.
   *
   * @returns The canonical selector, `""` when empty.
   *
   * @example The normalized form
   * ```ts
   * import { FieldSelector } from "@haptic/k8s-watcher/selection";
   * import assert from "node:assert/strict";
   *
   * assert.equal(String(new FieldSelector(" a = b , c!=d\\,e ")), "a=b,c!=d\\,e");
   * ```
   */
  toString(): string {
    return this.#terms.map((t) =>
      `${t.path.expression}${t.operator}${escapeValue(t.value)}`
    ).join(",");
  }
}

function escapeValue(value: string): string {
  let out = "";
  for (const c of value) {
    out += c === "\\" || c === "," || c === "=" ? `\\${c}` : c;
  }
  return out;
}

/**
 * One pass over the selector: brackets and quotes are tracked in the path
 * (so `,` and `=` inside `['…']` stay in the path), escapes in the value.
 */
function parse(selector: string): CompiledTerm[] {
  const terms: CompiledTerm[] = [];
  if (selector.trim() === "") return terms;
  const n = selector.length;
  let i = 0;
  for (let number = 1;; number++) {
    const start = i;
    let depth = 0;
    let quote = "";
    let operator: FieldSelectorOperator | undefined;
    let opAt = -1;
    for (; i < n; i++) {
      const c = selector[i];
      if (quote !== "") {
        if (c === "\\") i++;
        else if (c === quote) quote = "";
      } else if (depth > 0) {
        if (c === "'" || c === '"') quote = c;
        else if (c === "[") depth++;
        else if (c === "]") depth--;
      } else if (c === "[") {
        depth++;
      } else if (c === "\\") {
        i++;
      } else if (c === ",") {
        break;
      } else if (c === "!" && selector[i + 1] === "=") {
        operator = "!=";
        opAt = i;
        break;
      } else if (c === "=") {
        operator = selector[i + 1] === "=" ? "==" : "=";
        opAt = i;
        break;
      }
    }
    if (operator === undefined) {
      const text = selector.slice(start, Math.min(i, n));
      if (text.trim() === "") {
        throw new FieldSelectorError(
          selector,
          undefined,
          `term ${number} is empty`,
        );
      }
      // An unclosed bracket swallows the rest of the selector: the path
      // error says more than a missing operator does.
      if (depth > 0) compilePath(selector, text, text.trim());
      throw new FieldSelectorError(
        selector,
        text,
        'has no operator: expected "=", "==" or "!="',
      );
    }
    // The value: up to the next unescaped comma.
    i = opAt + operator.length;
    let value = "";
    let chunk = i;
    const termText = (): string => {
      let end = i;
      while (end < n && selector[end] !== ",") {
        end += selector[end] === "\\" ? 2 : 1;
      }
      return selector.slice(start, Math.min(end, n));
    };
    for (; i < n; i++) {
      const c = selector[i];
      if (c === ",") break;
      if (c === "\\") {
        const next = selector[i + 1];
        if (next !== "\\" && next !== "," && next !== "=") {
          throw new FieldSelectorError(
            selector,
            termText(),
            next === undefined
              ? 'ends with an unfinished escape "\\"'
              : `has an invalid escape "\\${next}" in its value: only "\\\\", "\\," and "\\=" are allowed`,
          );
        }
        value += selector.slice(chunk, i) + next;
        i++;
        chunk = i + 1;
      } else if (c === "=") {
        throw new FieldSelectorError(
          selector,
          termText(),
          'has an unescaped "=" in its value: write "\\="',
        );
      }
    }
    value += selector.slice(chunk, i);
    const text = selector.slice(start, i);
    const expression = selector.slice(start, opAt).trim();
    if (expression === "") {
      throw new FieldSelectorError(selector, text, "has an empty path");
    }
    const path = compilePath(selector, text, expression);
    terms.push({
      path,
      operator,
      value: value.trim(),
      negate: operator === "!=",
    });
    if (i >= n) return terms;
    i++; // the comma
  }
}

function compilePath(
  selector: string,
  term: string,
  expression: string,
): JsonPath {
  try {
    return new JsonPath(expression);
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw new FieldSelectorError(
      selector,
      term,
      `has an invalid path: ${why[0].toLowerCase()}${why.slice(1)}`,
      { cause: err },
    );
  }
}
