/**
 * From a body's bytes to a value: its chunks read into one reused buffer
 * and copied as they come, JSON parsed without interning resourceVersions,
 * and the members `ignoreFields` removes cut out before the parse.
 *
 * ## Parsing
 *
 * `JSON.parse` for Kubernetes answers, without the slowdown that a large
 * store of them would otherwise bring to every later parse.
 *
 * V8's `JSON.parse` interns string values shorter than 10 characters in
 * its string table. A resourceVersion is such a string for the first
 * billion revisions, and a digit string is hashed as the number it spells,
 * so the resourceVersions a store keeps fill a run of neighbouring slots:
 * every key that `JSON.parse` interns afterwards and that hashes into the
 * run probes along it. With a million objects kept, a LIST page parsed 2.5
 * to 3 times slower than with none (bench/ANALYSIS.md, "Scale"). A JSON
 * escape makes a value longer in the text, not in the result: written as
 * `\u0031234`, the resourceVersion `"1234"` parses to the same string, and
 * V8 does not intern it.
 *
 * ## Cutting
 *
 * Cutting members out of JSON text before it is parsed: what `ignoreFields`
 * removes anyway (`metadata.managedFields`, about a third of a Pod's bytes)
 * then costs neither the parse nor the collector's work on what the parse
 * built.
 *
 * The cut is exact: parsing the cut text and then removing the paths gives
 * the same value as parsing the whole text and then removing them, and a
 * text that fails to parse fails the same way (the whole text is parsed
 * again for the error). Why that holds:
 *
 * - The scanner walks the text as JSON, left to right, respecting strings
 *   and escapes, and looks for a path only at its structural place (a
 *   member of the object it descended into, never inside a string or at
 *   another depth). It does not check what it skips: on a valid text it
 *   finds the right places; on an invalid one, the first error is before
 *   any cut (the cut text shares it, so it fails too), after it (the cut
 *   text fails there too), or inside a cut member, which the next point
 *   rules out.
 * - A member it cuts is checked to be exactly valid JSON (key, colon,
 *   value, and the comma it takes with it followed by the next key), so the
 *   parser's state after it is the one it had before it.
 * - Anything else unexpected (an unusual structure, a text that ends early,
 *   nesting deeper than 1024) cuts nothing: the whole text is parsed.
 * - A key that appears twice in one object is cut where the scanner meets
 *   it first; what `JSON.parse` keeps of the others, the removal after the
 *   parse removes. The removal always runs after the cut: the cut only
 *   saves it work.
 * - A watch line is cut only when its `type` comes before its `object` and
 *   is ADDED, MODIFIED or DELETED, and the type parsed is checked again (a
 *   second `type` may have changed it): a BOOKMARK's or an ERROR's object
 *   is the loop's to read, and is never cut nor pruned.
 *
 * @module
 */

/**
 * The bytes of a body as they arrive, copied at once into one buffer that
 * doubles when full. Copying on arrival is the point: a runtime's read may
 * hand out a small view of a larger buffer (Deno's `fetch` gives 4 KiB views
 * of 64 KiB buffers), and keeping those views until the body ended kept
 * sixteen times the body alive outside the JS heap (a 137 MB LIST held
 * 2.1 GB, and the process's RSS stayed there after it). And
 * {@linkcode chunkReader} reads every chunk into the same buffer.
 */
export class ByteBuffer {
  #bytes = new Uint8Array(0);
  #length = 0;

  /** How many bytes it holds. */
  get byteLength(): number {
    return this.#length;
  }

  /** Copies `chunk` in after what it holds; `chunk` is not kept. */
  push(chunk: Uint8Array): void {
    const length = this.#length + chunk.byteLength;
    if (length > this.#bytes.byteLength) {
      const grown = new Uint8Array(
        Math.max(length, 2 * this.#bytes.byteLength, MIN_CAPACITY),
      );
      grown.set(this.#bytes.subarray(0, this.#length));
      this.#bytes = grown;
    }
    this.#bytes.set(chunk, this.#length);
    this.#length = length;
  }

  /** What it holds, as a view that the next `push` may leave stale. */
  bytes(): Uint8Array {
    return this.#bytes.subarray(0, this.#length);
  }
}

/**
 * A reader of `stream` whose chunk is given up at the next read (its buffer
 * detached: read again, and the chunk is empty). On a byte stream (the body
 * of Deno's and Node's `fetch`) it reads into one reused 64 KiB buffer. A
 * default read of such a body allocates a new 64 KiB buffer for every
 * chunk, which on Deno holds about 4 KiB: reading 10,000 ConfigMaps in pages
 * of 500 from a real kube-apiserver, every chunk copied into a `ByteBuffer`,
 * took 598 ms that way and 534 ms this way (`response.text()`: 494 ms;
 * `bench/body_read_ab.ts`). On any other stream (Bun's bodies, Node's
 * `node:https` answers) it is the stream's default reader.
 */
export function chunkReader(
  stream: ReadableStream<Uint8Array>,
): ReadableStreamDefaultReader<Uint8Array> {
  const byob = byobReader(stream);
  if (byob === undefined) return stream.getReader();
  // The buffer goes to each read and comes back in its chunk; a read that
  // fails, is cancelled or overlaps another starts a new one.
  let spare: ArrayBuffer | undefined;
  const read = async (): Promise<ReadableStreamReadResult<Uint8Array>> => {
    const view = new Uint8Array(spare ?? new ArrayBuffer(READ_BYTES));
    spare = undefined;
    const result = await byob.read(view);
    if (result.value !== undefined) spare = result.value.buffer as ArrayBuffer;
    return result.done ? { done: true, value: undefined } : result;
  };
  return {
    get closed() {
      return byob.closed;
    },
    read,
    cancel: (reason?: unknown) => byob.cancel(reason),
    releaseLock: () => byob.releaseLock(),
  };
}

/** A BYOB reader of `stream`, or undefined where it is not a byte stream. */
export function byobReader(
  stream: ReadableStream<unknown>,
): ReadableStreamBYOBReader | undefined {
  try {
    return (stream as ReadableStream<Uint8Array>).getReader({ mode: "byob" });
  } catch {
    return undefined;
  }
}

/** How many bytes one read of a body asks for: a runtime's largest read. */
export const READ_BYTES = 64 * 1024;

/** A first buffer as large as one read of a runtime's body stream. */
const MIN_CAPACITY = 16 * 1024;

/**
 * A resourceVersion whose value begins with a digit; only the structure of
 * JSON can hold this text unescaped, so a match is always a key and the
 * start of its string value.
 */
const RESOURCE_VERSION_DIGIT = /("resourceVersion":\s*")(\d)/g;

/**
 * Parses `text` as `JSON.parse` does, to the same value, without interning
 * the digit strings of `resourceVersion` values.
 *
 * @throws {SyntaxError} Exactly what `JSON.parse(text)` throws.
 */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text.replace(RESOURCE_VERSION_DIGIT, "$1\\u003$2"));
  } catch {
    // The escape changes positions in the text: the error should name the
    // caller's own. The escaped text fails exactly when the original does.
    return JSON.parse(text);
  }
}

/** Where to cut, as a trie of member names; built by {@linkcode jsonCut}. */
export interface CutNode {
  /** The member reached here is cut out (its children are irrelevant). */
  readonly remove: boolean;
  /** Member names to look into, beside `nodes`. At most 30. */
  readonly names: readonly string[];
  readonly nodes: readonly CutNode[];
  /** For an array here: the node of each of its elements. */
  readonly each: CutNode | undefined;
  /** How many members the whole trie cuts; `Infinity` with an `each`. */
  readonly targets: number;
  /**
   * This member's value must be written as one of these texts for the
   * `guarded` members after it to be walked (a watch line's `type`).
   */
  readonly guard: readonly string[] | undefined;
  /** Walked only after a member with a `guard` it met. */
  readonly guarded: boolean;
}

/** The event types whose objects are cut (and pruned): never a BOOKMARK's or an ERROR's. */
export const CUT_EVENT_TYPES: readonly string[] = [
  "ADDED",
  "MODIFIED",
  "DELETED",
];

/** The two places a watch stream's objects come in. */
export interface JsonCut {
  /**
   * A watch line: `{"type":…,"object":{…}}`, the paths in `object` when
   * `type` comes first and is one of {@linkcode CUT_EVENT_TYPES}.
   */
  readonly line: CutNode;
  /** A LIST body: `{…,"items":[{…},…]}`, the paths in every item. */
  readonly list: CutNode;
}

/** Children per node, so that the scanner tracks them in one integer. */
const MAX_NAMES = 30;

interface MutableNode {
  remove: boolean;
  names: string[];
  nodes: MutableNode[];
  each: MutableNode | undefined;
  targets: number;
  guard: readonly string[] | undefined;
  guarded: boolean;
}

function node(): MutableNode {
  return {
    remove: false,
    names: [],
    nodes: [],
    each: undefined,
    targets: 0,
    guard: undefined,
    guarded: false,
  };
}

/**
 * The cuts for `paths`, each a list of member names from the object's root
 * (`["metadata", "managedFields"]`); `undefined` when there is none.
 */
export function jsonCut(
  paths: readonly (readonly string[])[],
): JsonCut | undefined {
  const root = node();
  let any = false;
  for (const path of paths) {
    if (path.length === 0) continue;
    let cur = root;
    let i = 0;
    for (; i < path.length && !cur.remove; i++) {
      let at = cur.names.indexOf(path[i]);
      if (at < 0) {
        if (cur.names.length >= MAX_NAMES) break;
        at = cur.names.push(path[i]) - 1;
        cur.nodes.push(node());
      }
      cur = cur.nodes[at];
    }
    if (i < path.length) continue;
    cur.remove = true;
    cur.names = [];
    cur.nodes = [];
    any = true;
  }
  if (!any) return undefined;
  const targets = countTargets(root);
  root.targets = targets;
  root.guarded = true;
  const type = node();
  type.guard = CUT_EVENT_TYPES.map((t) => JSON.stringify(t));
  const line = node();
  line.names.push("type", "object");
  line.nodes.push(type, root);
  line.targets = targets;
  const items = node();
  items.each = root;
  const list = node();
  list.names.push("items");
  list.nodes.push(items);
  list.targets = Infinity;
  return { line, list };
}

function countTargets(n: MutableNode): number {
  if (n.remove) return 1;
  let count = 0;
  for (const child of n.nodes) count += countTargets(child);
  return count;
}

/**
 * Parses `text` as `parseJson` does, without the members `at` cuts where
 * the cut is exact (see the module's documentation); the value is then
 * what parsing the whole text gives once those paths are removed from it.
 * `accept`, when given, must hold for the value parsed from a cut text,
 * else the whole text is parsed (a watch line whose `type` came twice).
 *
 * @throws {SyntaxError} Exactly what `JSON.parse(text)` throws.
 */
export function parseJsonCut(
  text: string,
  at: CutNode | undefined,
  accept?: (value: unknown) => boolean,
): unknown {
  const cut = at === undefined ? undefined : cutJson(text, at);
  if (cut === undefined) return parseJson(text);
  let value: unknown;
  try {
    value = parseJson(cut);
  } catch {
    // The error (and its position) is the whole text's.
    return parseJson(text);
  }
  return accept === undefined || accept(value) ? value : parseJson(text);
}

/**
 * Whether `event` is a watch event whose object is cut and pruned: its
 * `type` one of {@linkcode CUT_EVENT_TYPES}, its `object` an object.
 */
export function isCutEvent(event: unknown): boolean {
  if (event === null || typeof event !== "object") return false;
  const { type, object } = event as { type?: unknown; object?: unknown };
  return (type === "ADDED" || type === "MODIFIED" || type === "DELETED") &&
    object !== null && typeof object === "object" && !Array.isArray(object);
}

/** {@linkcode parseJsonCut} for a watch line. */
export function parseWatchLine(text: string, cut: JsonCut): unknown {
  return parseJsonCut(text, cut.line, isCutEvent);
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const LBRACE = 0x7b;
const RBRACE = 0x7d;
const LBRACKET = 0x5b;
const RBRACKET = 0x5d;

/** The scanner gave up: cut nothing. */
const BAIL = -1;
/** Nothing after this point needs cutting. */
const STOP = -2;

/** The state of one scan (the scanner is synchronous: one at a time). */
let cuts: number[] = [];
let remaining = 0;

/**
 * `text` without the members `at` cuts, or `undefined` when nothing was
 * cut (nothing found, or the scanner gave up).
 */
export function cutJson(text: string, at: CutNode): string | undefined {
  const i = ws(text, 0);
  if (text.charCodeAt(i) !== LBRACE) return undefined;
  cuts = [];
  remaining = at.targets;
  const end = walkObject(text, i, at, false);
  const found = cuts;
  cuts = [];
  if (end === BAIL || found.length === 0) return undefined;
  let out = "";
  let from = 0;
  for (let k = 0; k < found.length; k += 2) {
    out += text.slice(from, found[k]);
    from = found[k + 1];
  }
  return out + text.slice(from);
}

function addCut(start: number, end: number): void {
  const n = cuts.length;
  // A cut that starts where the last ended (two members in a row) joins it.
  if (n > 0 && cuts[n - 1] === start) cuts[n - 1] = end;
  else cuts.push(start, end);
}

/** JSON's whitespace only: space, tab, line feed, carriage return. */
function ws(text: string, i: number): number {
  while (true) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return i;
    i++;
  }
}

/**
 * Walks the object at `i` (its `{`), cutting what `at` says. `mustFinish`:
 * whoever called needs the object's end (to go on after it). Returns the
 * index after its `}`, `STOP` or `BAIL`.
 */
function walkObject(
  text: string,
  i: number,
  at: CutNode,
  mustFinish: boolean,
): number {
  i = ws(text, i + 1);
  if (text.charCodeAt(i) === RBRACE) return i + 1;
  const { names, nodes } = at;
  let unvisited = names.length;
  let visited = 0;
  let guardMet = false;
  /** Whether a member before this one stays (else a cut takes a comma after). */
  let kept = false;
  let comma = -1;
  while (true) {
    if (text.charCodeAt(i) !== QUOTE) return BAIL;
    const keyStart = i;
    const keyEnd = skipString(text, i);
    if (keyEnd < 0) return BAIL;
    const index = names.length === 0
      ? -1
      : nameAt(text, keyStart, keyEnd, names);
    if (index === BAIL_NAME) return BAIL;
    i = ws(text, keyEnd);
    if (text.charCodeAt(i) !== COLON) return BAIL;
    i = ws(text, i + 1);
    if (index < 0) {
      i = skipValue(text, i);
      if (i < 0) return BAIL;
      kept = true;
    } else {
      const child = nodes[index];
      const bit = 1 << index;
      if ((visited & bit) === 0) {
        visited |= bit;
        unvisited--;
      }
      if (child.remove) {
        // The key is valid: `nameAt` matched it as it is, or decoded it.
        const valueEnd = checkedValueEnd(text, i);
        if (valueEnd < 0) return BAIL;
        const after = ws(text, valueEnd);
        const c = text.charCodeAt(after);
        remaining--;
        if (kept) {
          addCut(comma, valueEnd);
        } else if (c === RBRACE) {
          addCut(keyStart, valueEnd);
        } else if (c === COMMA) {
          // The first member left: its comma goes with it, and the next
          // must be a member, as it had to be after the comma.
          const next = ws(text, after + 1);
          if (text.charCodeAt(next) !== QUOTE) return BAIL;
          addCut(keyStart, next);
          if (remaining === 0 || (!mustFinish && unvisited === 0)) return STOP;
          i = next;
          continue;
        } else {
          return BAIL;
        }
        i = after;
        if (remaining === 0 || (!mustFinish && unvisited === 0)) return STOP;
      } else {
        const c = text.charCodeAt(i);
        const finish = mustFinish || unvisited > 0;
        if (child.guarded && !guardMet) return BAIL;
        if (child.guard !== undefined) {
          const end = skipValue(text, i);
          if (end < 0) return BAIL;
          guardMet = child.guard.includes(text.slice(i, end));
          i = end;
        } else if (c === LBRACE && child.names.length > 0) {
          i = walkObject(text, i, child, finish);
        } else if (c === LBRACKET && child.each !== undefined) {
          i = walkArray(text, i, child.each);
        } else {
          i = skipValue(text, i);
        }
        if (i < 0) return i;
        if (!mustFinish && unvisited === 0) return STOP;
        kept = true;
      }
    }
    i = ws(text, i);
    const c = text.charCodeAt(i);
    if (c === COMMA) {
      comma = i;
      i = ws(text, i + 1);
      continue;
    }
    if (c === RBRACE) return i + 1;
    return BAIL;
  }
}

/** Walks the array at `i` (its `[`), each element under `each`. */
function walkArray(text: string, i: number, each: CutNode): number {
  i = ws(text, i + 1);
  if (text.charCodeAt(i) === RBRACKET) return i + 1;
  while (true) {
    i = text.charCodeAt(i) === LBRACE && each.names.length > 0
      ? walkObject(text, i, each, true)
      : skipValue(text, i);
    if (i < 0) return i;
    i = ws(text, i);
    const c = text.charCodeAt(i);
    if (c === COMMA) {
      i = ws(text, i + 1);
      continue;
    }
    if (c === RBRACKET) return i + 1;
    return BAIL;
  }
}

const BAIL_NAME = -2;

/**
 * The index in `names` of the key whose string spans `[start, end)`; -1
 * for another key; `BAIL_NAME` for an escape that does not decode.
 */
function nameAt(
  text: string,
  start: number,
  end: number,
  names: readonly string[],
): number {
  // Keys are short: look for a backslash in this one only (an indexOf
  // would run on to the next one, perhaps at the end of the text).
  let escaped = false;
  for (let j = start + 1; j < end - 1; j++) {
    if (text.charCodeAt(j) === BACKSLASH) {
      escaped = true;
      break;
    }
  }
  if (!escaped) {
    const length = end - start - 2;
    for (let k = 0; k < names.length; k++) {
      const name = names[k];
      if (name.length === length && text.startsWith(name, start + 1)) return k;
    }
    return -1;
  }
  // An escaped key (`"managed\u0046ields"`) names what it decodes to.
  let key: unknown;
  try {
    key = JSON.parse(text.slice(start, end));
  } catch {
    return BAIL_NAME;
  }
  return names.indexOf(key as string);
}

/**
 * The index after the string starting at `i` (its `"`), or `BAIL`. Not
 * checked: a quote with an odd number of backslashes before it is escaped.
 */
function skipString(text: string, i: number): number {
  let from = i + 1;
  while (true) {
    const q = text.indexOf('"', from);
    if (q < 0) return BAIL;
    let b = q - 1;
    while (text.charCodeAt(b) === BACKSLASH) b--;
    if (((q - 1 - b) & 1) === 0) return q + 1;
    from = q + 1;
  }
}

/** The index after the value at `i`, or `BAIL`; not checked. */
function skipValue(text: string, i: number): number {
  const first = text.charCodeAt(i);
  if (first === QUOTE) return skipString(text, i);
  if (first === LBRACE || first === LBRACKET) {
    let depth = 0;
    const n = text.length;
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === QUOTE) {
        i = skipString(text, i);
        if (i < 0) return BAIL;
        continue;
      }
      if (c === LBRACE || c === LBRACKET) depth++;
      else if (c === RBRACE || c === RBRACKET) {
        if (--depth === 0) return i + 1;
      }
      i++;
    }
    return BAIL;
  }
  // A number or a literal: up to what may follow a value.
  const n = text.length;
  let j = i;
  while (j < n) {
    const c = text.charCodeAt(j);
    if (
      c === COMMA || c === RBRACE || c === RBRACKET || c === 0x20 ||
      c === 0x0a || c === 0x0d || c === 0x09
    ) break;
    j++;
  }
  return j === i ? BAIL : j;
}

/** A string token exactly as JSON allows it (no raw control character). */
const STRING =
  // deno-lint-ignore no-control-regex
  /"[^"\\\x00-\x1f]*(?:\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})[^"\\\x00-\x1f]*)*"/y;
/** A number token exactly as JSON allows it (the longest such prefix). */
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;

const MAX_DEPTH = 1024;
/** Open containers of the value being checked: 1 an object, 0 an array. */
const open = new Uint8Array(MAX_DEPTH);

/**
 * What makes a checked value's strings doubtful: a raw control character
 * (none in a string, none at all in compact JSON), or a backslash that
 * starts no escape (or, harmlessly, one that is escaped itself).
 */
// deno-lint-ignore no-control-regex
const DOUBT = /[\x00-\x1f]|\\(?!["\\/bfnrt]|u[0-9a-fA-F]{4})/;

/**
 * The index after the JSON value at `i`, checked exactly as `JSON.parse`
 * checks it; `BAIL` when it is not valid (or nests deeper than 1024).
 *
 * The first pass reads compact JSON only (what the API server sends: no
 * whitespace) and finds each string's end as `skipString` does; it checks
 * the strings afterwards, all at once: no control character in the whole
 * value, and every backslash followed by an escape. A value it doubts
 * (with whitespace, say) is read again, whitespace allowed and each string
 * checked on its own.
 */
function checkedValueEnd(text: string, i: number): number {
  const end = validValueEnd(text, i, false);
  if (end >= 0 && !DOUBT.test(text.slice(i, end))) return end;
  return validValueEnd(text, i, true);
}

/**
 * The index after the value at `i`, or `BAIL`: its structure checked, in
 * compact JSON only (no whitespace) unless `exact`, which also checks each
 * string (else they are only delimited).
 */
function validValueEnd(text: string, i: number, exact: boolean): number {
  let depth = 0;
  while (true) {
    // A value at i.
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      i = stringEnd(text, i, exact);
      if (i < 0) return BAIL;
    } else if (c === LBRACE || c === LBRACKET) {
      const isObject = c === LBRACE;
      i = exact ? ws(text, i + 1) : i + 1;
      if (text.charCodeAt(i) === (isObject ? RBRACE : RBRACKET)) {
        i++;
      } else {
        if (depth === MAX_DEPTH) return BAIL;
        open[depth++] = isObject ? 1 : 0;
        if (isObject) {
          i = memberValueStart(text, i, exact);
          if (i < 0) return BAIL;
        }
        continue;
      }
    } else if (c === 0x74 /* t */) {
      if (!text.startsWith("true", i)) return BAIL;
      i += 4;
    } else if (c === 0x66 /* f */) {
      if (!text.startsWith("false", i)) return BAIL;
      i += 5;
    } else if (c === 0x6e /* n */) {
      if (!text.startsWith("null", i)) return BAIL;
      i += 4;
    } else {
      NUMBER.lastIndex = i;
      if (!NUMBER.test(text)) return BAIL;
      i = NUMBER.lastIndex;
    }
    // After a value: close what ends here, or go on to the next one.
    while (true) {
      if (depth === 0) return i;
      if (exact) i = ws(text, i);
      const d = text.charCodeAt(i);
      const inObject = open[depth - 1] === 1;
      if (d === COMMA) {
        i = exact ? ws(text, i + 1) : i + 1;
        if (inObject) {
          i = memberValueStart(text, i, exact);
          if (i < 0) return BAIL;
        }
        break;
      }
      if (d !== (inObject ? RBRACE : RBRACKET)) return BAIL;
      depth--;
      i++;
    }
  }
}

/** The index after the string at `i`, checked with `check`; or `BAIL`. */
function stringEnd(text: string, i: number, check: boolean): number {
  if (!check) return skipString(text, i);
  STRING.lastIndex = i;
  return STRING.test(text) ? STRING.lastIndex : BAIL;
}

/** At a member's key: checks `"key" :`, returns where its value starts. */
function memberValueStart(text: string, i: number, exact: boolean): number {
  if (text.charCodeAt(i) !== QUOTE) return BAIL;
  i = stringEnd(text, i, exact);
  if (i < 0) return BAIL;
  if (exact) i = ws(text, i);
  if (text.charCodeAt(i) !== COLON) return BAIL;
  return exact ? ws(text, i + 1) : i + 1;
}
