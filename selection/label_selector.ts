/**
 * Kubernetes label selectors: the string syntax (`app=web,tier in (a,b)`)
 * and the `metav1.LabelSelector` object shape, parsed once and matched
 * against label maps.
 *
 * @module
 */

/**
 * How one term of a label selector compares a label.
 *
 * @example Excluding values
 * ```ts
 * import type { LabelOperator } from "@haptic/k8s-watcher/selection";
 *
 * const op: LabelOperator = "NotIn";
 * ```
 */
export type LabelOperator =
  | "Equals"
  | "NotEquals"
  | "In"
  | "NotIn"
  | "Exists"
  | "DoesNotExist"
  | "GreaterThan"
  | "LessThan";

/**
 * One parsed term of a label selector.
 *
 * @example The parsed requirements
 * ```ts
 * import {
 *   type LabelRequirement,
 *   LabelSelector,
 * } from "@haptic/k8s-watcher/selection";
 * import assert from "node:assert/strict";
 *
 * const [term]: readonly LabelRequirement[] = new LabelSelector("tier in (web,api)").requirements;
 * assert.deepEqual(term, { key: "tier", operator: "In", values: ["api", "web"] });
 * ```
 */
export interface LabelRequirement {
  /** The label key. */
  readonly key: string;
  /** How the label is compared. */
  readonly operator: LabelOperator;
  /** The values compared with, sorted; empty for `Exists`/`DoesNotExist`. */
  readonly values: readonly string[];
}

/**
 * One entry of `matchExpressions` in a `metav1.LabelSelector`.
 *
 * @example One match expression
 * ```ts
 * import type { LabelSelectorRequirement } from "@haptic/k8s-watcher/selection";
 *
 * const expr: LabelSelectorRequirement = { key: "tier", operator: "In", values: ["web"] };
 * ```
 */
export interface LabelSelectorRequirement {
  /** The label key. */
  key: string;
  /**
   * The comparison: `In`, `NotIn`, `Exists` or `DoesNotExist`. Typed as
   * any string, as Kubernetes' own types (`V1LabelSelectorRequirement` of
   * `@kubernetes/client-node`) have it, so that their selectors fit as they
   * are; another operator is refused when the selector is built (a
   * `LabelSelectorError`; a `WatcherConfigError` naming `labelSelector`
   * from a watcher).
   */
  operator: LabelSelectorOperator;
  /** Values for `In`/`NotIn` (at least one); none for `Exists`/`DoesNotExist`. */
  values?: readonly string[];
}

/**
 * The operators of a `matchExpressions` entry, with any other string
 * accepted by the type (and refused at run time), so that an editor still
 * offers the four.
 *
 * @example An operator read from a spec
 * ```ts
 * import type { LabelSelectorOperator } from "@haptic/k8s-watcher/selection";
 *
 * const known: LabelSelectorOperator = "NotIn";
 * const fromSpec: LabelSelectorOperator = String("Exists");
 * console.log(known, fromSpec);
 * ```
 */
export type LabelSelectorOperator =
  | "In"
  | "NotIn"
  | "Exists"
  | "DoesNotExist"
  | (string & Record<never, never>);

/**
 * The `metav1.LabelSelector` shape used in Kubernetes specs; every part must
 * hold (an empty object selects everything).
 *
 * @example Labels and expressions, as in a Deployment
 * ```ts
 * import type { LabelSelectorObject } from "@haptic/k8s-watcher/selection";
 *
 * const selector: LabelSelectorObject = {
 *   matchLabels: { app: "web" },
 *   matchExpressions: [{ key: "tier", operator: "NotIn", values: ["canary"] }],
 * };
 * ```
 */
export interface LabelSelectorObject {
  /** Labels that must be present with exactly these values. */
  matchLabels?: Record<string, string>;
  /** Further requirements. */
  matchExpressions?: readonly LabelSelectorRequirement[];
}

/**
 * A label selector that could not be parsed. `selector` is the input (the
 * object form as JSON), `position` the 0-based character offset of the
 * problem in a string selector, and `term` the offending term or field.
 *
 * @example An unclosed set
 * ```ts
 * import {
 *   LabelSelector,
 *   LabelSelectorError,
 * } from "@haptic/k8s-watcher/selection";
 * import assert from "node:assert/strict";
 *
 * assert.throws(
 *   () => new LabelSelector("tier in (web"),
 *   (err) => err instanceof LabelSelectorError && err.position === 12,
 * );
 * ```
 */
export class LabelSelectorError extends Error {
  /** The selector as given (object selectors as JSON). */
  readonly selector: string;
  /** Character offset of the problem in a string selector. */
  readonly position: number | undefined;
  /** The offending term, key or field. */
  readonly term: string | undefined;

  /**
   * Creates the error.
   *
   * @example An unclosed set, with its position
   * ```ts
   * import { LabelSelectorError } from "@haptic/k8s-watcher/selection";
   * import assert from "node:assert/strict";
   *
   * const err = new LabelSelectorError("tier in (web", "expected )", { position: 12 });
   * assert.equal(err.position, 12);
   * assert.match(err.message, /at position 12/);
   * ```
   *
   * @param selector The selector as given.
   * @param problem What is wrong.
   * @param options Where it is wrong.
   */
  constructor(
    selector: string,
    problem: string,
    options?: { position?: number; term?: string },
  ) {
    if (options === undefined) options = {};
    const where = options.position !== undefined
      ? ` at position ${options.position}`
      : options.term !== undefined
      ? ` in ${options.term}`
      : "";
    super(
      `Invalid label selector ${JSON.stringify(selector)}: ${problem}${where}`,
    );
    this.name = "LabelSelectorError";
    this.selector = selector;
    this.position = options.position;
    this.term = options.term;
  }
}

/**
 * A parsed label selector. Construct it from the Kubernetes string syntax:
 * `key=value` (or `==`), `key!=value`, `key in (a,b)`, `key notin (a)`,
 * `key` (exists), `!key` (does not exist), `key>1`, `key<1`, terms separated
 * by commas, all of which must hold. The empty string selects everything.
 *
 * As in Kubernetes, `key!=value` and `notin` also match objects without the
 * label, and `key=` selects an empty value. Stricter than Kubernetes, an
 * empty value list `in ()` is rejected.
 *
 * @example Equality, sets and absence
 * ```ts
 * import { LabelSelector } from "@haptic/k8s-watcher/selection";
 * import assert from "node:assert/strict";
 *
 * const sel = new LabelSelector("app=web, tier notin (canary), !legacy");
 * assert.ok(sel.matches({ app: "web", tier: "prod" }));
 * assert.ok(!sel.matches({ app: "web", tier: "canary" }));
 * assert.ok(!sel.matches(undefined));
 * assert.equal(sel.toString(), "app=web,!legacy,tier notin (canary)");
 * ```
 */
export class LabelSelector {
  /** The terms, sorted by key. */
  readonly requirements: readonly LabelRequirement[];
  #compiled: readonly CompiledRequirement[];
  #string: string | undefined;

  /**
   * Parses a selector string.
   *
   * @example Parsing kubectl's syntax
   * ```ts
   * import { LabelSelector } from "@haptic/k8s-watcher/selection";
   * import assert from "node:assert/strict";
   *
   * const selector = new LabelSelector("app=web,tier in (api,web),!legacy");
   * assert.equal(selector.requirements.length, 3);
   * assert.ok(selector.matches({ app: "web", tier: "api" }));
   * ```
   *
   * @param selector The Kubernetes label selector syntax.
   * @throws {LabelSelectorError} When the selector is malformed.
   */
  constructor(selector: string) {
    const prebuilt = prebuiltRequirements;
    prebuiltRequirements = undefined;
    this.requirements = prebuilt ?? sortByKey(new Parser(selector).parse());
    this.#compiled = this.requirements.map(compile);
  }

  /**
   * Builds a selector from the `metav1.LabelSelector` object shape.
   *
   * @example From a metav1.LabelSelector object
   * ```ts
   * import { LabelSelector } from "@haptic/k8s-watcher/selection";
   * import assert from "node:assert/strict";
   *
   * const sel = LabelSelector.fromObject({
   *   matchLabels: { app: "web" },
   *   matchExpressions: [{ key: "tier", operator: "Exists" }],
   * });
   * assert.equal(sel.toString(), "app=web,tier");
   * ```
   *
   * @param object `matchLabels` and `matchExpressions`.
   * @returns The selector.
   * @throws {LabelSelectorError} When a key, value or operator is invalid.
   */
  static fromObject(object: LabelSelectorObject): LabelSelector {
    const source = safeJson(object);
    const reqs: LabelRequirement[] = [];
    const fail = (problem: string, term: string): never => {
      throw new LabelSelectorError(source, problem, { term });
    };
    if (object === null || typeof object !== "object") {
      fail("expected an object with matchLabels or matchExpressions", "");
    }
    const { matchLabels, matchExpressions } = object;
    if (matchLabels !== undefined && matchLabels !== null) {
      if (typeof matchLabels !== "object" || Array.isArray(matchLabels)) {
        fail("expected a map of strings", "matchLabels");
      }
      for (const [key, value] of Object.entries(matchLabels)) {
        const where = `matchLabels[${JSON.stringify(key)}]`;
        checkKey(key, (p) => fail(p, where));
        if (typeof value !== "string") fail("expected a string value", where);
        checkValue(value, (p) => fail(p, where));
        reqs.push({ key, operator: "Equals", values: [value] });
      }
    }
    if (matchExpressions !== undefined && matchExpressions !== null) {
      if (!Array.isArray(matchExpressions)) {
        fail("expected an array", "matchExpressions");
      }
      matchExpressions.forEach((expr, i) => {
        const where = `matchExpressions[${i}]`;
        if (expr === null || typeof expr !== "object") {
          fail("expected an object", where);
        }
        const { key, operator, values = [] } = expr;
        if (typeof key !== "string") fail("expected a string key", where);
        checkKey(key, (p) => fail(p, where));
        if (!Array.isArray(values)) {
          fail("expected values to be an array", where);
        }
        switch (operator) {
          case "In":
          case "NotIn":
            if (values.length === 0) {
              fail(`operator ${operator} needs at least one value`, where);
            }
            for (const v of values) {
              if (typeof v !== "string") fail("expected string values", where);
              checkValue(v, (p) => fail(p, where));
            }
            reqs.push({ key, operator, values: uniqueSorted(values) });
            break;
          case "Exists":
          case "DoesNotExist":
            if (values.length > 0) {
              fail(`operator ${operator} takes no values`, where);
            }
            reqs.push({ key, operator, values: [] });
            break;
          default:
            fail(
              `unknown operator ${
                JSON.stringify(operator)
              } (expected In, NotIn, Exists or DoesNotExist)`,
              where,
            );
        }
      });
    }
    prebuiltRequirements = sortByKey(reqs);
    return new LabelSelector("");
  }

  /**
   * True when the selector has no terms and so selects everything.
   *
   * @example An empty selector selects everything
   * ```ts
   * import { LabelSelector } from "@haptic/k8s-watcher/selection";
   * import assert from "node:assert/strict";
   *
   * assert.equal(new LabelSelector("").isEmpty, true);
   * assert.equal(new LabelSelector("").matches({ any: "labels" }), true);
   * assert.equal(new LabelSelector("app=web").isEmpty, false);
   * ```
   */
  get isEmpty(): boolean {
    return this.#compiled.length === 0;
  }

  /**
   * Whether a label map satisfies every term. Missing labels count as an
   * empty map.
   *
   * @example Matching an object's labels
   * ```ts
   * import { LabelSelector } from "@haptic/k8s-watcher/selection";
   * import assert from "node:assert/strict";
   *
   * const selector = new LabelSelector("tier notin (canary),!legacy");
   * assert.equal(selector.matches({ tier: "prod" }), true);
   * assert.equal(selector.matches({ tier: "canary" }), false);
   * assert.equal(selector.matches({ tier: "prod", legacy: "" }), false);
   * assert.equal(selector.matches(undefined), true); // no labels: no tier, no legacy
   * ```
   *
   * @param labels An object's `metadata.labels`.
   * @returns Whether the object is selected.
   */
  matches(labels: Record<string, string> | undefined): boolean {
    const compiled = this.#compiled;
    for (let i = 0; i < compiled.length; i++) {
      const req = compiled[i];
      const value = labels !== undefined && labels !== null &&
          Object.hasOwn(labels, req.key)
        ? labels[req.key]
        : undefined;
      if (!req.test(value)) return false;
    }
    return true;
  }

  /**
   * The canonical string form: terms sorted by key, values sorted, `==`
   * written as `=`. Parsing it gives an equal selector.
   *
   * @example The canonical form the server is sent
   * ```ts
   * import { LabelSelector } from "@haptic/k8s-watcher/selection";
   * import assert from "node:assert/strict";
   *
   * assert.equal(String(new LabelSelector("tier in (web, api) , app = shop")), "app=shop,tier in (api,web)");
   * ```
   *
   * @returns The selector string (empty when it selects everything).
   */
  toString(): string {
    return this.#string ??= this.requirements.map(formatRequirement).join(",");
  }
}

/**
 * Validates a label selector in either form and returns the string to send
 * as the `labelSelector` query parameter. A string is returned unchanged
 * once it parses; an object is rendered in canonical form.
 *
 * @example Canonical query strings
 * ```ts
 * import { formatLabelSelector } from "@haptic/k8s-watcher/selection";
 * import assert from "node:assert/strict";
 *
 * assert.equal(formatLabelSelector("app = web"), "app = web");
 * assert.equal(
 *   formatLabelSelector({ matchExpressions: [{ key: "tier", operator: "In", values: ["b", "a"] }] }),
 *   "tier in (a,b)",
 * );
 * assert.throws(() => formatLabelSelector("app in ()"));
 * ```
 *
 * @param selector A selector string or a `metav1.LabelSelector` object.
 * @returns The selector as a string.
 * @throws {LabelSelectorError} When the selector is malformed.
 */
export function formatLabelSelector(
  selector: string | LabelSelectorObject,
): string {
  if (typeof selector === "string") {
    new Parser(selector).parse();
    return selector;
  }
  return LabelSelector.fromObject(selector).toString();
}

/** Hands already-validated terms from `fromObject` to the constructor. */
let prebuiltRequirements: LabelRequirement[] | undefined;

// ---------------------------------------------------------------------------
// Matching

interface CompiledRequirement {
  key: string;
  test(value: string | undefined): boolean;
}

function compile(req: LabelRequirement): CompiledRequirement {
  const { key, values } = req;
  switch (req.operator) {
    case "Equals": {
      const v = values[0];
      return { key, test: (x) => x === v };
    }
    case "NotEquals": {
      const v = values[0];
      return { key, test: (x) => x !== v };
    }
    case "In": {
      if (values.length === 1) {
        const v = values[0];
        return { key, test: (x) => x === v };
      }
      const set = new Set(values);
      return { key, test: (x) => x !== undefined && set.has(x) };
    }
    case "NotIn": {
      const set = new Set(values);
      return { key, test: (x) => x === undefined || !set.has(x) };
    }
    case "Exists":
      return { key, test: (x) => x !== undefined };
    case "DoesNotExist":
      return { key, test: (x) => x === undefined };
    case "GreaterThan": {
      const n = Number(values[0]);
      return { key, test: (x) => x !== undefined && parseInteger(x) > n };
    }
    case "LessThan": {
      const n = Number(values[0]);
      return { key, test: (x) => x !== undefined && parseInteger(x) < n };
    }
  }
}

const INTEGER = /^[+-]?\d+$/;

/** A label value as an integer, or NaN (which compares false) when it is not one. */
function parseInteger(value: string): number {
  return INTEGER.test(value) ? Number(value) : NaN;
}

function formatRequirement(req: LabelRequirement): string {
  switch (req.operator) {
    case "Equals":
      return `${req.key}=${req.values[0]}`;
    case "NotEquals":
      return `${req.key}!=${req.values[0]}`;
    case "In":
      return `${req.key} in (${req.values.join(",")})`;
    case "NotIn":
      return `${req.key} notin (${req.values.join(",")})`;
    case "Exists":
      return req.key;
    case "DoesNotExist":
      return `!${req.key}`;
    case "GreaterThan":
      return `${req.key}>${req.values[0]}`;
    case "LessThan":
      return `${req.key}<${req.values[0]}`;
  }
}

function sortByKey(reqs: LabelRequirement[]): LabelRequirement[] {
  // Array.prototype.sort is stable, so terms on one key keep their order.
  return reqs.sort((a, b) => a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
}

function uniqueSorted(values: readonly string[]): string[] {
  return [...new Set(values)].sort();
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

// ---------------------------------------------------------------------------
// Validation (k8s.io/apimachinery/pkg/util/validation)

const NAME_PART = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const DNS_SUBDOMAIN =
  /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

function checkKey(key: string, fail: (problem: string) => never): void {
  const slash = key.indexOf("/");
  const name = slash < 0 ? key : key.slice(slash + 1);
  if (slash >= 0) {
    const prefix = key.slice(0, slash);
    if (prefix.length === 0) {
      fail(`key ${JSON.stringify(key)} has an empty prefix`);
    }
    if (prefix.length > 253 || !DNS_SUBDOMAIN.test(prefix)) {
      fail(
        `key prefix ${
          JSON.stringify(prefix)
        } must be a lowercase DNS subdomain of at most 253 characters`,
      );
    }
  }
  if (name.length === 0) fail(`key ${JSON.stringify(key)} has an empty name`);
  if (name.length > 63 || !NAME_PART.test(name)) {
    fail(
      `key ${
        JSON.stringify(key)
      } must be at most 63 alphanumeric characters, '-', '_' or '.', starting and ending with an alphanumeric character`,
    );
  }
}

function checkValue(value: string, fail: (problem: string) => never): void {
  if (value.length > 63 || !LABEL_VALUE.test(value)) {
    fail(
      `value ${
        JSON.stringify(value)
      } must be empty or at most 63 alphanumeric characters, '-', '_' or '.', starting and ending with an alphanumeric character`,
    );
  }
}

// ---------------------------------------------------------------------------
// Parsing (the grammar of k8s.io/apimachinery/pkg/labels/selector.go)

type TokenKind =
  | "identifier"
  | "in"
  | "notin"
  | "!"
  | "=" // "=" or "=="
  | "!="
  | ">"
  | "<"
  | "("
  | ")"
  | ","
  | "end";

interface Token {
  kind: TokenKind;
  text: string;
  position: number;
}

const SPECIAL = new Set(["!", "=", "(", ")", ",", "<", ">"]);
const WHITESPACE = /\s/;

function tokenize(input: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < input.length) {
    const ch = input[i];
    if (WHITESPACE.test(ch)) {
      i++;
      continue;
    }
    const start = i;
    if (SPECIAL.has(ch)) {
      const two = input.slice(i, i + 2);
      if (two === "!=" || two === "==") {
        tokens.push({
          kind: two === "!=" ? "!=" : "=",
          text: two,
          position: start,
        });
        i += 2;
      } else {
        tokens.push({ kind: ch as TokenKind, text: ch, position: start });
        i++;
      }
      continue;
    }
    while (
      i < input.length && !SPECIAL.has(input[i]) && !WHITESPACE.test(input[i])
    ) i++;
    const text = input.slice(start, i);
    const kind: TokenKind = text === "in"
      ? "in"
      : text === "notin"
      ? "notin"
      : "identifier";
    tokens.push({ kind, text, position: start });
  }
  tokens.push({ kind: "end", text: "end of selector", position: input.length });
  return tokens;
}

class Parser {
  #input: string;
  #tokens: Token[];
  #pos = 0;

  constructor(input: string) {
    if (typeof input !== "string") {
      throw new LabelSelectorError(
        safeJson(input),
        `expected a string, got ${typeof input}`,
      );
    }
    this.#input = input;
    this.#tokens = tokenize(input);
  }

  parse(): LabelRequirement[] {
    const reqs: LabelRequirement[] = [];
    if (this.#peek().kind === "end") return reqs;
    for (;;) {
      reqs.push(this.#requirement());
      const tok = this.#next();
      if (tok.kind === "end") return reqs;
      if (tok.kind !== ",") this.#fail(tok, "expected ',' or end of selector");
    }
  }

  #requirement(): LabelRequirement {
    let negated = false;
    if (this.#peek().kind === "!") {
      this.#next();
      negated = true;
    }
    const keyTok = this.#next();
    if (keyTok.kind !== "identifier") {
      this.#fail(keyTok, "expected a label key");
    }
    const key = keyTok.text;
    checkKey(key, (problem) => this.#fail(keyTok, problem));
    const after = this.#peek();
    if (negated) {
      if (after.kind !== "," && after.kind !== "end") {
        this.#fail(after, `expected ',' or end of selector after !${key}`);
      }
      return { key, operator: "DoesNotExist", values: [] };
    }
    if (after.kind === "," || after.kind === "end") {
      return { key, operator: "Exists", values: [] };
    }
    const opTok = this.#next();
    switch (opTok.kind) {
      case "=":
        return { key, operator: "Equals", values: [this.#exactValue(true)] };
      case "!=":
        return { key, operator: "NotEquals", values: [this.#exactValue(true)] };
      case ">":
      case "<": {
        const valueTok = this.#peek();
        const value = this.#exactValue(false);
        if (!INTEGER.test(value) || !Number.isSafeInteger(Number(value))) {
          this.#fail(valueTok, `expected an integer after '${opTok.text}'`);
        }
        return {
          key,
          operator: opTok.kind === ">" ? "GreaterThan" : "LessThan",
          values: [value],
        };
      }
      case "in":
      case "notin":
        return {
          key,
          operator: opTok.kind === "in" ? "In" : "NotIn",
          values: this.#valueList(opTok.text),
        };
      default:
        return this.#fail(
          opTok,
          `unknown operator ${
            JSON.stringify(opTok.text)
          }, expected =, ==, !=, in, notin, > or <`,
          false,
        );
    }
  }

  /** A single value; absent (end or ',') means the empty value when allowed. */
  #exactValue(emptyAllowed: boolean): string {
    const tok = this.#peek();
    if (tok.kind === "," || tok.kind === "end") {
      if (emptyAllowed) return "";
      this.#fail(tok, "expected a value");
    }
    this.#next();
    // "in"/"notin" are keywords only where an operator is expected.
    if (
      tok.kind !== "identifier" && tok.kind !== "in" && tok.kind !== "notin"
    ) {
      this.#fail(tok, "expected a value");
    }
    checkValue(tok.text, (problem) => this.#fail(tok, problem));
    return tok.text;
  }

  #valueList(operator: string): string[] {
    const open = this.#next();
    if (open.kind !== "(") this.#fail(open, `expected '(' after ${operator}`);
    if (this.#peek().kind === ")") {
      this.#fail(this.#peek(), `expected at least one value in ${operator} ()`);
    }
    const values: string[] = [];
    for (;;) {
      const tok = this.#next();
      if (
        tok.kind !== "identifier" && tok.kind !== "in" && tok.kind !== "notin"
      ) {
        this.#fail(tok, "expected a value");
      }
      checkValue(tok.text, (problem) => this.#fail(tok, problem));
      values.push(tok.text);
      const sep = this.#next();
      if (sep.kind === ")") return uniqueSorted(values);
      if (sep.kind !== ",") {
        this.#fail(
          sep,
          sep.kind === "end"
            ? "unbalanced parentheses, expected ')'"
            : "expected ',' or ')'",
        );
      }
    }
  }

  #peek(): Token {
    return this.#tokens[this.#pos];
  }

  #next(): Token {
    const tok = this.#tokens[this.#pos];
    if (tok.kind !== "end") this.#pos++;
    return tok;
  }

  #fail(tok: Token, problem: string, showFound = true): never {
    const found = tok.kind === "end" || !showFound
      ? ""
      : ` (found ${JSON.stringify(tok.text)})`;
    throw new LabelSelectorError(this.#input, `${problem}${found}`, {
      position: tok.position,
      term: tok.kind === "end" ? undefined : tok.text,
    });
  }
}
