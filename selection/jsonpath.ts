/**
 * JSONPath-lite: the small subset of JSONPath that index keys, ignored
 * fields and field selectors need, parsed once and evaluated without
 * allocation.
 *
 * @module
 */

/**
 * One step of a parsed {@linkcode JsonPath}: a map key, an array index, or
 * `[*]` (every array element or map value).
 *
 * @example The segments of a path
 * ```ts
 * import { JsonPath, type JsonPathSegment } from "@haptic/k8s-watcher/selection";
 * import assert from "node:assert/strict";
 *
 * const segments: readonly JsonPathSegment[] = new JsonPath("spec.rules[0]").segments;
 * assert.deepEqual(segments, [
 *   { kind: "key", key: "spec" },
 *   { kind: "key", key: "rules" },
 *   { kind: "index", index: 0 },
 * ]);
 * ```
 */
export type JsonPathSegment =
  | { readonly kind: "key"; readonly key: string }
  | { readonly kind: "index"; readonly index: number }
  | { readonly kind: "wildcard" };

/**
 * An expression that is not valid JSONPath-lite. Names the expression, the
 * 0-based character position and what was expected there.
 *
 * @example Where a path stops parsing
 * ```ts
 * import { JsonPath, JsonPathError } from "@haptic/k8s-watcher/selection";
 * import assert from "node:assert/strict";
 *
 * assert.throws(() => new JsonPath("metadata..name"), (err) => {
 *   assert(err instanceof JsonPathError);
 *   assert.equal(err.position, 9);
 *   assert.equal(
 *     err.message,
 *     'Cannot parse JSONPath "metadata..name": expected a field name at position 9, found "."',
 *   );
 *   return true;
 * });
 * ```
 */
export class JsonPathError extends Error {
  /** The expression as given. */
  readonly expression: string;
  /** 0-based index into `expression` where parsing failed. */
  readonly position: number;
  /** What the parser expected at `position`. */
  readonly expected: string;

  /**
   * Creates the error.
   *
   * @example Where and what was expected
   * ```ts
   * import { JsonPathError } from "@haptic/k8s-watcher/selection";
   * import assert from "node:assert/strict";
   *
   * const err = new JsonPathError("spec[", 5, "an index");
   * assert.equal(err.position, 5);
   * assert.equal(err.expected, "an index");
   * ```
   *
   * @param expression The expression as given.
   * @param position 0-based index where parsing failed.
   * @param expected What was expected there, e.g. `a field name`.
   */
  constructor(expression: string, position: number, expected: string) {
    const found = position < expression.length
      ? `"${expression[position]}"`
      : "the end of the expression";
    super(
      `Cannot parse JSONPath ${
        JSON.stringify(expression)
      }: expected ${expected} at position ${position}, found ${found}`,
    );
    this.name = "JsonPathError";
    this.expression = expression;
    this.position = position;
    this.expected = expected;
  }
}

/** Internal marker for `[*]`; keys are strings and indexes numbers. */
const WILDCARD: unique symbol = Symbol("wildcard");
type Step = string | number | typeof WILDCARD;
/** Returned by the recursive matchers when a branch has no match. */
const NONE: unique symbol = Symbol("none");

/**
 * A compiled JSONPath-lite expression.
 *
 * Accepted forms: dotted names (`a.b.c`), quoted keys (`a['key.with/dots']`,
 * `a["k"]`), array indexes (`a[0]`), the wildcard `[*]` (or `.*`) over array
 * elements and map values, an optional leading `.` or `$`, and kubectl's
 * `{.a.b}` wrapper. Dotted names may use letters, digits and `_-/:~+%`
 * (plus any non-ASCII character); `\` escapes any other character, as
 * kubectl does (`labels.app\.kubernetes\.io/name`). Inside quotes, `\`
 * escapes the next character. The expression must name at least one
 * segment; anything else throws {@linkcode JsonPathError} from the
 * constructor.
 *
 * Keys only match in (non-array) objects and indexes only in arrays;
 * inherited properties such as `constructor` never match.
 *
 * @example Keys, quoted keys and wildcards
 * ```ts
 * import { JsonPath } from "@haptic/k8s-watcher/selection";
 * import assert from "node:assert/strict";
 *
 * const ingress = {
 *   metadata: { name: "web", labels: { "app.kubernetes.io/name": "shop" } },
 *   spec: { rules: [{ host: "a.example" }, { host: "b.example" }] },
 * };
 * assert.equal(new JsonPath("metadata.name").get(ingress), "web");
 * assert.equal(new JsonPath("{.metadata.labels['app.kubernetes.io/name']}").get(ingress), "shop");
 * assert.equal(new JsonPath("$.spec.rules[1].host").get(ingress), "b.example");
 * assert.deepEqual(new JsonPath("spec.rules[*].host").getAll(ingress), ["a.example", "b.example"]);
 * assert.equal(new JsonPath("spec.tls").get(ingress), undefined);
 * ```
 */
export class JsonPath {
  /** The expression as given. */
  readonly expression: string;
  /** The parsed segments, in order. */
  readonly segments: readonly JsonPathSegment[];
  /** True when some segment is `[*]`, so the path may match several values. */
  readonly hasWildcard: boolean;
  #steps: Step[];
  // Keys also found on Object.prototype need an own-property check; the
  // others can be read directly, which keeps the common case a plain load.
  #ownCheck: boolean[];

  /**
   * Parses `expression`.
   *
   * @example Dotted, bracketed and kubectl-style paths
   * ```ts
   * import { JsonPath } from "@haptic/k8s-watcher/selection";
   * import assert from "node:assert/strict";
   *
   * const obj = { metadata: { labels: { "app.kubernetes.io/name": "shop" } } };
   * assert.equal(new JsonPath("metadata.labels['app.kubernetes.io/name']").get(obj), "shop");
   * assert.equal(new JsonPath("{.metadata.labels.missing}").get(obj), undefined);
   * assert.throws(() => new JsonPath("metadata..labels"));
   * ```
   *
   * @param expression A JSONPath-lite expression such as `metadata.name`.
   * @throws {JsonPathError} When the expression is empty or malformed.
   */
  constructor(expression: string) {
    if (typeof expression !== "string") {
      throw new JsonPathError(String(expression), 0, "a string expression");
    }
    this.expression = expression;
    const segments = parse(expression);
    this.segments = segments;
    this.#steps = segments.map((s) =>
      s.kind === "key" ? s.key : s.kind === "index" ? s.index : WILDCARD
    );
    this.#ownCheck = segments.map((s) =>
      s.kind === "key" && s.key in Object.prototype
    );
    this.hasWildcard = this.#steps.includes(WILDCARD);
  }

  /**
   * The first value the path reaches in `value` (depth-first, in array and
   * key order, for wildcards), or `undefined` when nothing matches. A JSON
   * `null` is a value and is returned as `null`.
   *
   * @param value Any JSON value, typically a Kubernetes object.
   * @returns The first match, or `undefined`.
   *
   * @example The first match
   * ```ts
   * import { JsonPath } from "@haptic/k8s-watcher/selection";
   * import assert from "node:assert/strict";
   *
   * const path = new JsonPath("spec.ports[*].name");
   * assert.equal(path.get({ spec: { ports: [{ port: 80 }, { name: "https" }] } }), "https");
   * ```
   */
  get(value: unknown): unknown {
    const steps = this.#steps;
    if (this.hasWildcard) {
      const found = first(steps, this.#ownCheck, 0, value);
      return found === NONE ? undefined : found;
    }
    const ownCheck = this.#ownCheck;
    let cur = value;
    for (let i = 0; i < steps.length; i++) {
      if (cur === null || typeof cur !== "object") return undefined;
      const step = steps[i];
      if (typeof step === "string") {
        if (Array.isArray(cur)) return undefined;
        if (ownCheck[i] && !Object.hasOwn(cur, step)) return undefined;
        cur = (cur as Record<string, unknown>)[step];
      } else {
        if (!Array.isArray(cur)) return undefined;
        cur = cur[step as number];
      }
    }
    return cur;
  }

  /**
   * Every value the path reaches in `value`, in array and key order. Without
   * a wildcard this holds at most one value.
   *
   * @param value Any JSON value, typically a Kubernetes object.
   * @returns The matches, possibly none.
   *
   * @example Every match
   * ```ts
   * import { JsonPath } from "@haptic/k8s-watcher/selection";
   * import assert from "node:assert/strict";
   *
   * const path = new JsonPath("data[*]");
   * assert.deepEqual(path.getAll({ data: { a: "1", b: "2" } }), ["1", "2"]);
   * ```
   */
  getAll(value: unknown): unknown[] {
    const out: unknown[] = [];
    if (this.hasWildcard) {
      collect(this.#steps, this.#ownCheck, 0, value, out);
    } else {
      const found = this.get(value);
      if (found !== undefined) out.push(found);
    }
    return out;
  }

  /**
   * The expression as given.
   *
   * @returns The source expression.
   *
   * @example The path as written
   * ```ts
   * import { JsonPath } from "@haptic/k8s-watcher/selection";
   * import assert from "node:assert/strict";
   *
   * assert.equal(String(new JsonPath("{.metadata.name}")), "{.metadata.name}");
   * ```
   */
  toString(): string {
    return this.expression;
  }
}

/** Reads one non-wildcard step; `NONE` when it does not apply to `cur`. */
function step(cur: unknown, s: string | number, ownCheck: boolean): unknown {
  if (cur === null || typeof cur !== "object") return NONE;
  if (typeof s === "string") {
    if (Array.isArray(cur)) return NONE;
    if (ownCheck && !Object.hasOwn(cur, s)) return NONE;
    const next = (cur as Record<string, unknown>)[s];
    return next === undefined ? NONE : next;
  }
  if (!Array.isArray(cur)) return NONE;
  const next = cur[s];
  return next === undefined ? NONE : next;
}

/** Values of an array or own values of an object, for `[*]`. */
function children(cur: unknown): unknown[] | undefined {
  if (cur === null || typeof cur !== "object") return undefined;
  return Array.isArray(cur) ? cur : Object.values(cur);
}

function first(
  steps: Step[],
  ownCheck: boolean[],
  from: number,
  value: unknown,
): unknown {
  let cur = value;
  for (let i = from; i < steps.length; i++) {
    const s = steps[i];
    if (s === WILDCARD) {
      const items = children(cur);
      if (items === undefined) return NONE;
      for (const item of items) {
        const found = first(steps, ownCheck, i + 1, item);
        if (found !== NONE) return found;
      }
      return NONE;
    }
    cur = step(cur, s, ownCheck[i]);
    if (cur === NONE) return NONE;
  }
  return cur === undefined ? NONE : cur;
}

function collect(
  steps: Step[],
  ownCheck: boolean[],
  from: number,
  value: unknown,
  out: unknown[],
): void {
  let cur = value;
  for (let i = from; i < steps.length; i++) {
    const s = steps[i];
    if (s === WILDCARD) {
      const items = children(cur);
      if (items === undefined) return;
      for (const item of items) collect(steps, ownCheck, i + 1, item, out);
      return;
    }
    cur = step(cur, s, ownCheck[i]);
    if (cur === NONE) return;
  }
  if (cur !== undefined) out.push(cur);
}

function isNameChar(c: number): boolean {
  return (c >= 97 && c <= 122) || // a-z
    (c >= 65 && c <= 90) || // A-Z
    (c >= 48 && c <= 57) || // 0-9
    c === 95 || c === 45 || c === 47 || // _ - /
    c === 58 || c === 126 || c === 43 || c === 37 || // : ~ + %
    c >= 128;
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

function parse(expr: string): JsonPathSegment[] {
  const n = expr.length;
  const segments: JsonPathSegment[] = [];
  const fail = (position: number, expected: string): never => {
    throw new JsonPathError(expr, position, expected);
  };
  let i = 0;
  const wrapped = expr[0] === "{";
  if (wrapped) i = 1;
  if (expr[i] === "$") {
    i++;
    if (
      i < n && expr[i] !== "." && expr[i] !== "[" &&
      !(wrapped && expr[i] === "}")
    ) {
      fail(i, '"." or "[" after "$"');
    }
  } else if (i < n && (isNameChar(expr.charCodeAt(i)) || expr[i] === "\\")) {
    i = parseName(expr, i, segments, fail);
  }
  let closed = false;
  while (i < n) {
    const c = expr[i];
    if (c === ".") {
      i++;
      if (expr[i] === "*") {
        segments.push({ kind: "wildcard" });
        i++;
      } else if (
        i < n && (isNameChar(expr.charCodeAt(i)) || expr[i] === "\\")
      ) {
        i = parseName(expr, i, segments, fail);
      } else {
        fail(i, "a field name");
      }
    } else if (c === "[") {
      i = parseBracket(expr, i + 1, segments, fail);
    } else if (wrapped && c === "}") {
      closed = true;
      i++;
      break;
    } else {
      fail(
        i,
        segments.length === 0
          ? "a field name"
          : wrapped
          ? '".", "[" or "}"'
          : '".", "[" or the end of the expression',
      );
    }
  }
  if (wrapped && !closed) fail(n, '"}"');
  if (i < n) fail(i, 'the end of the expression after "}"');
  if (segments.length === 0) fail(wrapped ? n - 1 : n, "a field name");
  return segments;
}

function parseName(
  expr: string,
  start: number,
  segments: JsonPathSegment[],
  fail: (position: number, expected: string) => never,
): number {
  let i = start;
  let key = "";
  let chunk = i;
  while (i < expr.length) {
    const c = expr.charCodeAt(i);
    if (c === 92) { // backslash: the next character is literal
      if (i + 1 >= expr.length) fail(i + 1, 'a character after "\\"');
      key += expr.slice(chunk, i) + expr[i + 1];
      i += 2;
      chunk = i;
    } else if (isNameChar(c)) {
      i++;
    } else {
      break;
    }
  }
  key += expr.slice(chunk, i);
  segments.push({ kind: "key", key });
  return i;
}

function parseBracket(
  expr: string,
  start: number,
  segments: JsonPathSegment[],
  fail: (position: number, expected: string) => never,
): number {
  const n = expr.length;
  let i = start;
  const c = expr[i];
  if (c === "'" || c === '"') {
    let key = "";
    let chunk = ++i;
    for (;;) {
      if (i >= n) fail(n, `a closing ${c} for the quote at position ${start}`);
      const d = expr[i];
      if (d === c) break;
      if (d === "\\") {
        if (i + 1 >= n) fail(i + 1, 'a character after "\\"');
        key += expr.slice(chunk, i) + expr[i + 1];
        i += 2;
        chunk = i;
      } else {
        i++;
      }
    }
    key += expr.slice(chunk, i);
    i++;
    segments.push({ kind: "key", key });
  } else if (c === "*") {
    i++;
    segments.push({ kind: "wildcard" });
  } else if (i < n && isDigit(expr.charCodeAt(i))) {
    while (i < n && isDigit(expr.charCodeAt(i))) i++;
    const digits = expr.slice(start, i);
    if (digits.length > 1 && digits[0] === "0") {
      fail(start, "an array index without leading zeros");
    }
    const index = Number(digits);
    if (!Number.isSafeInteger(index)) fail(start, "a smaller array index");
    segments.push({ kind: "index", index });
  } else {
    fail(
      i,
      c === "-"
        ? "a non-negative array index"
        : 'a quoted key, an array index or "*"',
    );
  }
  if (expr[i] !== "]") fail(i, '"]"');
  return i + 1;
}
