/**
 * The cut before the parse changes nothing: a seeded differential test of
 * `_json.ts`. Each seed writes random watch lines and LIST bodies (Pod-
 * like objects and random ones, `managedFields` at its place and elsewhere:
 * inside strings, in other objects, at other depths, as an escaped key;
 * escapes, unicode, lone surrogates, duplicate keys, every kind of
 * whitespace) and adversarial variants of them (truncated, a character
 * deleted, inserted or replaced). Each text is parsed with and without the
 * cut, then the paths are removed from the parsed objects as `ignoreFields`
 * removes them: the results must be deep-equal, in the same key order, and
 * a text that fails must fail with the same error.
 *
 * `PARSE_CUT_SEED=<n>` runs seed n only (a failure prints that line);
 * `PARSE_CUT_SEEDS=<count>` or `=<from>-<to>` runs other seeds.
 */
import assert from "node:assert/strict";
import {
  cutJson,
  jsonCut,
  parseJson,
  parseJsonCut,
  parseWatchLine,
} from "../_internal/_json.ts";
import { buildPruneTrie, prune, type PruneNode } from "../selection/_prune.ts";

/** Seeds run by default (in CI): 1 to this. */
const CI_SEEDS = 300;
const FILE = "tests/json_cut_fuzz_test.ts";
/** Texts per seed, half of them mutated. */
const TEXTS = 40;

function env(name: string): string | undefined {
  try {
    return Deno.env.get(name) || undefined;
  } catch {
    return undefined; // No env permission: the defaults.
  }
}

function seeds(): number[] {
  const one = env("PARSE_CUT_SEED");
  if (one !== undefined) return [Number(one)];
  const more = env("PARSE_CUT_SEEDS");
  const [from, to] = more === undefined
    ? [1, CI_SEEDS]
    : more.includes("-")
    ? more.split("-").map(Number)
    : [1, Number(more)];
  if (!(Number.isInteger(from) && Number.isInteger(to) && from <= to)) {
    throw new Error(`PARSE_CUT_SEEDS must be a count or from-to, got ${more}`);
  }
  return Array.from({ length: to - from + 1 }, (_, i) => from + i);
}

/** mulberry32: small, seeded, good enough to pick cases. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Random = () => number;
const int = (r: Random, n: number) => Math.floor(r() * n);
const pick = <T>(r: Random, list: readonly T[]): T => list[int(r, list.length)];

/** The paths a seed cuts: managedFields always, sometimes more. */
const PATH_SETS: readonly (readonly string[][])[] = [
  [["metadata", "managedFields"]],
  [["metadata", "managedFields"], ["metadata", "annotations"]],
  [["metadata", "managedFields"], ["status"]],
  [["metadata"]],
  [["metadata", "managedFields"], ["spec", "x", "y"]],
  [["metadata", "managedFields"], ["metadata", 'managed"Fields']],
];

const KEYS = [
  "metadata",
  "managedFields",
  "object",
  "items",
  "type",
  "name",
  "annotations",
  "status",
  "spec",
  "x",
  "y",
  "__proto__",
  "managedfields",
  "managedFields ",
  'managed"Fields',
  "meta\\data",
  "ключ",
  "😀",
  "",
];

const STRINGS = [
  "",
  "managedFields",
  '"managedFields":[1]',
  '{"metadata":{"managedFields":[]}}',
  "\\",
  '\\"',
  "\u0000\u001f",
  "\u2028\u2029",
  "\ud800",
  "\udc00x",
  "😀",
  "ünïcödé",
  "/",
  "}]{[,:",
  "1234",
];

/** A random JSON value as a tree the writer below turns into text. */
type Tree =
  | { kind: "object"; entries: [string, Tree][] }
  | { kind: "array"; items: Tree[] }
  | { kind: "raw"; text: string }
  | { kind: "string"; value: string };

function randomScalar(r: Random): Tree {
  switch (int(r, 8)) {
    case 0:
      return { kind: "raw", text: pick(r, ["true", "false", "null"]) };
    case 1:
      return {
        kind: "raw",
        text: pick(r, [
          "0",
          "-0",
          "1",
          "-12",
          "3.25",
          "1e5",
          "-2.5E-3",
          "1E+2",
        ]),
      };
    case 2:
      return { kind: "raw", text: String(int(r, 1e6)) };
    default:
      return { kind: "string", value: pick(r, STRINGS) };
  }
}

function randomTree(r: Random, depth: number): Tree {
  if (depth <= 0 || r() < 0.3) return randomScalar(r);
  if (r() < 0.35) {
    const items: Tree[] = [];
    for (let n = int(r, 4); n > 0; n--) items.push(randomTree(r, depth - 1));
    return { kind: "array", items };
  }
  const entries: [string, Tree][] = [];
  for (let n = int(r, 5); n > 0; n--) {
    entries.push([pick(r, KEYS), randomTree(r, depth - 1)]);
  }
  return { kind: "object", entries };
}

/** A Pod-like object: metadata with managedFields (sometimes twice). */
function podTree(r: Random): Tree {
  const managed: Tree = {
    kind: "array",
    items: Array.from({ length: 1 + int(r, 3) }, () => ({
      kind: "object",
      entries: [
        ["manager", { kind: "string", value: pick(r, STRINGS) }],
        ["operation", { kind: "string", value: "Update" }],
        ["fieldsV1", randomTree(r, 4)],
      ],
    } as Tree)),
  };
  const meta: [string, Tree][] = [
    ["name", { kind: "string", value: `pod-${int(r, 100)}` }],
    ["namespace", { kind: "string", value: "default" }],
    ["resourceVersion", { kind: "string", value: String(int(r, 1e5)) }],
    ["labels", randomTree(r, 2)],
    ["annotations", randomTree(r, 2)],
  ];
  if (r() < 0.1) {
    // managedFields first, then a broken member last: `X,}` is not `X}`.
    return {
      kind: "object",
      entries: [["metadata", {
        kind: "object",
        entries: [["managedFields", managed], [RAW, {
          kind: "raw",
          text: pick(r, BROKEN),
        }]],
      }]],
    };
  }
  const at = int(r, meta.length + 1);
  meta.splice(at, 0, ["managedFields", managed]);
  if (r() < 0.15) meta.push(["managedFields", randomTree(r, 2)]);
  // A broken member right after managedFields: `,}` must not become `}`.
  if (r() < 0.1) {
    meta.splice(at + 1, 0, [RAW, { kind: "raw", text: pick(r, BROKEN) }]);
  }
  if (r() < 0.1) meta.push([pick(r, KEYS), randomTree(r, 2)]);
  const entries: [string, Tree][] = [
    ["kind", { kind: "string", value: "Pod" }],
    ["apiVersion", { kind: "string", value: "v1" }],
    ["metadata", { kind: "object", entries: meta }],
    ["spec", randomTree(r, 3)],
    ["status", randomTree(r, 3)],
  ];
  if (r() < 0.3) {
    const i = int(r, entries.length), j = int(r, entries.length);
    [entries[i], entries[j]] = [entries[j], entries[i]];
  }
  if (r() < 0.1) entries.push(["metadata", randomTree(r, 3)]);
  return { kind: "object", entries };
}

/** An entry with this key is written as its raw value's text alone. */
const RAW = "\u0000raw";
const BROKEN = ["", " ", "}", ",", "1", '"k"', '"k":', '"k" 1', "]"];

const WS = ["", "", "", " ", "  ", "\t", "\r", " \r\t "];

/** Writes `tree` with random whitespace and random (valid) escapes. */
function write(r: Random, tree: Tree, spaced: boolean): string {
  const w = () => spaced ? pick(r, WS) : "";
  switch (tree.kind) {
    case "raw":
      return tree.text;
    case "string":
      return quote(r, tree.value);
    case "array":
      return `[${w()}${
        tree.items.map((t) => write(r, t, spaced)).join(`${w()},${w()}`)
      }${w()}]`;
    case "object":
      return `{${w()}${
        tree.entries.map(([k, v]) =>
          k === RAW
            ? write(r, v, spaced)
            : `${quote(r, k)}${w()}:${w()}${write(r, v, spaced)}`
        ).join(`${w()},${w()}`)
      }${w()}}`;
  }
}

function quote(r: Random, s: string): string {
  if (r() < 0.85) return JSON.stringify(s);
  // Escape some characters another way: \u0022, \/, \u0046 for "F".
  let out = '"';
  for (const ch of s) {
    const code = ch.charCodeAt(0);
    if (ch === '"') out += r() < 0.5 ? '\\"' : "\\u0022";
    else if (ch === "\\") out += r() < 0.5 ? "\\\\" : "\\u005C";
    else if (ch === "/" && r() < 0.5) out += "\\/";
    else if (code < 0x20 || ch.length > 1 || r() < 0.2) {
      for (let i = 0; i < ch.length; i++) {
        out += "\\u" + ch.charCodeAt(i).toString(16).padStart(4, "0");
      }
    } else out += ch;
  }
  return out + '"';
}

const NOISE = [
  '"',
  "\\",
  "{",
  "}",
  "[",
  "]",
  ",",
  ":",
  " ",
  "\u0000",
  "x",
  "1",
  "\n",
  "\u00a0",
  "e",
  "-",
  ".",
  "0",
  "\u000b",
  "\f",
  "t",
  "n",
];

/** An adversarial variant: truncated, or one character changed. */
function mutate(r: Random, text: string): string {
  const at = int(r, text.length + 1);
  switch (int(r, 8)) {
    case 4: {
      // After a comma, where a member must follow: `,}` is not `}`.
      const commas = [...text.matchAll(/,/g)].map((m) => m.index);
      if (commas.length === 0) return text.slice(0, at);
      const c = pick(r, commas) + 1;
      const end = r() < 0.5 ? c : text.indexOf(pick(r, ["}", "]", ","]), c);
      return text.slice(0, c) + pick(r, NOISE) +
        text.slice(end < 0 ? c : end);
    }
    case 0:
      return text.slice(0, at);
    case 1:
      return text.slice(0, at) + text.slice(at + 1);
    case 2:
      return text.slice(0, at) + pick(r, NOISE) + text.slice(at);
    case 3:
      return text.slice(0, at) + pick(r, NOISE) + text.slice(at + 1);
    default: {
      // Inside or just around managedFields, where it hurts most: at one
      // of its structural characters, digits or literals.
      const m = text.indexOf("managedFields");
      if (m < 0) return text.slice(0, at);
      const places: number[] = [];
      const window = text.slice(m - 3, m + 600);
      for (const hit of window.matchAll(/[{}[\],:0-9"tfn ]/g)) {
        places.push(Math.max(0, m - 3) + hit.index);
      }
      const near = places.length > 0 ? pick(r, places) : m;
      switch (int(r, 6)) {
        case 5: {
          // A literal misspelt: `nul`, `nulll`, `tru`, `fals`, `nUll`…
          const literals = [...window.matchAll(/true|false|null/g)];
          if (literals.length === 0) return text.slice(0, near);
          const hit = pick(r, literals);
          const from = Math.max(0, m - 3) + hit.index;
          const wrong = pick(r, [
            "nul",
            "nulll",
            "nUll",
            "tru",
            "truee",
            "fals",
            "n1ll",
            "nu",
          ]);
          return text.slice(0, from) + wrong + text.slice(from + hit[0].length);
        }
        case 4: {
          // A bracket of the other kind: `{…]` is not `{…}`.
          const swap: Record<string, string> = {
            "{": "[",
            "[": "{",
            "}": "]",
            "]": "}",
          };
          const brackets = places.filter((p) => text[p] in swap);
          if (brackets.length === 0) return text.slice(0, near);
          const b = pick(r, brackets);
          return text.slice(0, b) + swap[text[b]] + text.slice(b + 1);
        }
        case 0:
          return text.slice(0, near);
        case 1:
          return text.slice(0, near) + text.slice(near + 1);
        case 2:
          return text.slice(0, near) + pick(r, NOISE) + text.slice(near);
        default:
          return text.slice(0, near) + pick(r, NOISE) + text.slice(near + 1);
      }
    }
  }
}

function randomText(r: Random, list: boolean): string {
  const spaced = r() < 0.5;
  const object = () => r() < 0.7 ? podTree(r) : randomTree(r, 5);
  let tree: Tree;
  if (list) {
    const entries: [string, Tree][] = [
      ["kind", { kind: "string", value: "PodList" }],
      ["metadata", {
        kind: "object",
        entries: [["resourceVersion", { kind: "string", value: "9" }]],
      }],
      ["items", {
        kind: "array",
        items: Array.from(
          { length: int(r, 5) },
          () => r() < 0.1 ? randomScalar(r) : object(),
        ),
      }],
    ];
    if (r() < 0.2) entries.reverse();
    if (r() < 0.05) entries.push(["items", randomTree(r, 3)]);
    tree = { kind: "object", entries };
  } else {
    const entries: [string, Tree][] = [
      ["type", {
        kind: "string",
        value: pick(r, ["ADDED", "MODIFIED", "DELETED", "BOOKMARK", "ERROR"]),
      }],
      ["object", r() < 0.05 ? randomScalar(r) : object()],
    ];
    if (r() < 0.2) entries.reverse();
    if (r() < 0.05) entries.push(["object", object()]);
    if (r() < 0.05) {
      entries.push(["type", {
        kind: "string",
        value: pick(r, ["ERROR", "ADDED"]),
      }]);
    }
    tree = { kind: "object", entries };
  }
  const pad = spaced ? pick(r, WS) : "";
  return pad + write(r, tree, spaced) + (spaced ? pick(r, WS) : "");
}

/** What `ignoreFields` does after the parse, at the cut's place. */
function removeAtPlace(
  value: unknown,
  trie: PruneNode,
  list: boolean,
): unknown {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return value;
  }
  const out = { ...value as Record<string, unknown> };
  if (list) {
    if (Array.isArray(out.items)) {
      out.items = out.items.map((item) =>
        item !== null && typeof item === "object" && !Array.isArray(item)
          ? prune(trie, item)
          : item
      );
    }
  } else if (
    // The loop prunes the objects of these events only.
    ["ADDED", "MODIFIED", "DELETED"].includes(out.type as string) &&
    out.object !== null && typeof out.object === "object" &&
    !Array.isArray(out.object)
  ) {
    out.object = prune(trie, out.object);
  }
  return out;
}

type Outcome = { value: unknown; text: string } | { error: string };

function outcome(
  parse: () => unknown,
  trie: PruneNode,
  list: boolean,
): Outcome {
  try {
    const value = removeAtPlace(parse(), trie, list);
    return { value, text: JSON.stringify(value) };
  } catch (error) {
    return { error: `${(error as Error).name}: ${(error as Error).message}` };
  }
}

interface Counts {
  texts: number;
  cut: number;
  failed: number;
}

function runSeed(seed: number, counts: Counts): string | undefined {
  const r = rng(seed);
  const paths = pick(r, PATH_SETS);
  const plan = jsonCut(paths)!;
  const trie = buildPruneTrie(
    paths.map((p) => p.map((key) => ({ kind: "key" as const, key }))),
  )!;
  for (let n = 0; n < TEXTS; n++) {
    const list = r() < 0.3;
    let text = randomText(r, list);
    if (n % 2 === 1) text = mutate(r, text);
    if (r() < 0.1) text = mutate(r, text);
    const node = list ? plan.list : plan.line;
    const expected = outcome(() => parseJson(text), trie, list);
    const actual = outcome(
      () => list ? parseJsonCut(text, plan.list) : parseWatchLine(text, plan),
      trie,
      list,
    );
    counts.texts++;
    if (cutJson(text, node) !== undefined) counts.cut++;
    if ("error" in expected) counts.failed++;
    try {
      assert.deepEqual(actual, expected);
      if ("value" in expected && "value" in actual) {
        assert.deepStrictEqual(actual.value, expected.value);
      }
    } catch (error) {
      return `text ${n} (${list ? "LIST body" : "watch line"}, paths ${
        JSON.stringify(paths)
      }): ${JSON.stringify(text)}\n${(error as Error).message}`;
    }
  }
  return undefined;
}

const list = seeds();

Deno.test(
  `Cutting before the parse gives what parsing then removing gives (${
    list.length > 1 ? `seeds ${list[0]} to ${list.at(-1)}` : `seed ${list[0]}`
  })`,
  () => {
    const counts: Counts = { texts: 0, cut: 0, failed: 0 };
    const failed: string[] = [];
    for (const seed of list) {
      const problem = runSeed(seed, counts);
      if (problem !== undefined) {
        failed.push(
          `seed ${seed}: replay with PARSE_CUT_SEED=${seed} deno test -A ${FILE}\n${problem}`,
        );
      }
    }
    assert.deepEqual(failed, [], failed.join("\n\n"));
    if (list.length > 1) {
      // The cases reach what they are for: texts cut, and texts that fail.
      assert.ok(counts.cut > counts.texts / 5, JSON.stringify(counts));
      assert.ok(counts.failed > counts.texts / 5, JSON.stringify(counts));
    }
  },
);

Deno.test("The cut finds the path at its place only", () => {
  const plan = jsonCut([["metadata", "managedFields"]])!;
  const line = (object: string) => `{"type":"ADDED","object":${object}}`;
  // Cut: at its place, first, last, alone, beside whitespace, escaped key.
  for (
    const [object, cut] of [
      [
        '{"metadata":{"managedFields":[{"a":1}],"name":"a"}}',
        '{"metadata":{"name":"a"}}',
      ],
      [
        '{"metadata":{"name":"a","managedFields":[]}}',
        '{"metadata":{"name":"a"}}',
      ],
      ['{"metadata":{"managedFields":null}}', '{"metadata":{}}'],
      [
        '{ "metadata" : { "name" : "a" , "managedFields" : [ ] } }',
        '{ "metadata" : { "name" : "a"  } }',
      ],
      [
        '{"metadata":{"managed\\u0046ields":[],"name":"a"}}',
        '{"metadata":{"name":"a"}}',
      ],
    ]
  ) {
    assert.equal(cutJson(line(object), plan.line), line(cut));
  }
  // Not cut: inside a string, at another depth, in another object, invalid.
  for (
    const object of [
      '{"name":"\\"metadata\\":{\\"managedFields\\":[]}"}',
      '{"spec":{"metadata":{"managedFields":[]}}}',
      '{"metadata":{"labels":{"managedFields":"x"}}}',
      '{"metadata":{"managedFields":[1,]}}',
      '{"metadata":{"managedFields":[01]}}',
      '{"metadata":{"managedFields":"\u0001"}}',
      '{"metadata":{"managedFields":[],}}',
    ]
  ) {
    assert.equal(cutJson(line(object), plan.line), undefined, object);
  }
  assert.equal(
    cutJson(
      '{"items":[{"metadata":{"managedFields":[]}},{"metadata":{"a":1,"managedFields":{}}}]}',
      plan.list,
    ),
    '{"items":[{"metadata":{}},{"metadata":{"a":1}}]}',
  );
});

Deno.test("A line the cut would make valid fails as it is", () => {
  const plan = jsonCut([["metadata", "managedFields"]])!;
  const text = '{"object":{"metadata":{"managedFields":[}]}}}';
  assert.throws(() => parseJsonCut(text, plan.line), SyntaxError);
  let expected = "";
  try {
    JSON.parse(text);
  } catch (error) {
    expected = (error as Error).message;
  }
  assert.throws(() => parseJsonCut(text, plan.line), { message: expected });
});
