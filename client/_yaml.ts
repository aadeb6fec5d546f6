/**
 * A small, strict reader for the YAML that kubeconfig files use: block
 * mappings and sequences, plain, single- and double-quoted scalars (also
 * over several lines), `|` and `>` block scalars, comments, one document
 * with an optional `---`, and flow sequences and mappings
 * (`args: ["eks", "get-token"]`, `env: [{name: AWS_PROFILE, value: dev}]`:
 * of scalars and nested flow collections, with plain or quoted keys, over
 * several lines). Everything else (anchors, aliases, tags, complex keys,
 * merge keys, several documents) is a {@linkcode YamlError} naming the line
 * and column: it never guesses a value.
 *
 * Plain scalars follow the YAML 1.2 core schema (`null`, `true`, numbers),
 * as `@std/yaml` does; an integer too large for a JavaScript number is an
 * error rather than a rounded value. Keys stay the text that was written.
 *
 * This file reads the document and its collections: block mappings and
 * sequences by their indentation, flow ones by their brackets. The scalars
 * are read in `_yaml_scalars.ts`; the cursor over the lines, the token rules
 * and `YamlError` are in `_yaml_cursor.ts`.
 *
 * @module
 */
import {
  BLANK,
  commentStart,
  DOCUMENT_MARKER,
  endsToken,
  type FlowPosition,
  isSpace,
  keyColon,
  YamlCursor,
} from "./_yaml_cursor.ts";
import {
  blockScalar,
  flowPlain,
  flowQuoted,
  plain,
  quoted,
  quotedOnOneLine,
  resolve,
} from "./_yaml_scalars.ts";

export { YamlError } from "./_yaml_cursor.ts";

/** Parses one YAML document; an empty one is `null`. */
export function parseYaml(text: string): unknown {
  return document(new YamlCursor(text));
}

type Mapping = Record<string, unknown>;

/** The one document of the text, after an optional `---`. */
function document(cursor: YamlCursor): unknown {
  cursor.skipInsignificant();
  const first = cursor.lines[cursor.at];
  if (first?.startsWith("%")) {
    cursor.fail(cursor.at, 0, "directives are not supported");
  }
  if (first !== undefined && /^---(?:[ \t]|$)/.test(first)) {
    const rest = commentStart(first, 3);
    if (!BLANK.test(first.slice(3, rest))) {
      cursor.fail(cursor.at, 4, "content on the --- line is not supported");
    }
    cursor.at++;
  }
  const value = node(cursor, -1, false);
  cursor.skipInsignificant();
  let line = cursor.lines[cursor.at];
  if (line !== undefined && /^\.\.\.(?:[ \t]|$)/.test(line)) {
    cursor.at++;
    cursor.skipInsignificant();
    line = cursor.lines[cursor.at];
  }
  if (line !== undefined) {
    cursor.fail(
      cursor.at,
      0,
      line.startsWith("---")
        ? "several documents in one file are not supported"
        : "unexpected content after the document",
    );
  }
  return value;
}

function isSequenceEntry(line: string, column: number): boolean {
  return line[column] === "-" && endsToken(line[column + 1]);
}

/**
 * The node starting on the next content line, which must be indented
 * more than `parent`; a sequence may sit at the parent's indentation
 * when it is a mapping value (`sequenceAtParent`). Null when there is
 * none.
 */
function node(
  cursor: YamlCursor,
  parent: number,
  sequenceAtParent: boolean,
): unknown {
  const indent = cursor.peekIndent();
  if (indent === undefined) return null;
  const line = cursor.lines[cursor.at];
  if (indent <= parent) {
    return sequenceAtParent && indent === parent &&
        isSequenceEntry(line, indent)
      ? sequence(cursor, indent)
      : null;
  }
  if (isSequenceEntry(line, indent)) return sequence(cursor, indent);
  if (key(cursor, line, indent) !== undefined) return mapping(cursor, indent);
  return inlineValue(cursor, indent, parent);
}

/**
 * The key at `column` and the column after its colon, or undefined when
 * the text there is not a mapping key.
 */
function key(
  cursor: YamlCursor,
  line: string,
  column: number,
): { key: string; after: number } | undefined {
  const char = line[column];
  if (char === '"' || char === "'") {
    const quoted = quotedOnOneLine(cursor, line, column);
    if (!quoted) return undefined;
    let i = quoted.end;
    while (isSpace(line[i])) i++;
    return line[i] === ":" && endsToken(line[i + 1])
      ? { key: quoted.value, after: i + 1 }
      : undefined;
  }
  if (char === "?" && endsToken(line[column + 1])) {
    cursor.fail(cursor.at, column, "complex keys (?) are not supported");
  }
  if ("[{&*!|>%@`".includes(char)) return undefined;
  const colon = keyColon(line, column, commentStart(line, column));
  if (colon < 0) return undefined;
  const key = line.slice(column, colon).trimEnd();
  if (key === "") cursor.fail(cursor.at, column, "a mapping key is empty");
  if (key === "<<") {
    cursor.fail(cursor.at, column, "merge keys (<<) are not supported");
  }
  return { key, after: colon + 1 };
}

function mapping(cursor: YamlCursor, indent: number): Mapping {
  const result: Mapping = {};
  for (;;) {
    const at = cursor.peekIndent();
    if (at === undefined || at < indent) return result;
    const lineIndex = cursor.at;
    const line = cursor.lines[lineIndex];
    if (at > indent) cursor.fail(lineIndex, at, "unexpected indentation");
    const entry = key(cursor, line, indent);
    if (!entry) cursor.fail(lineIndex, indent, "expected a mapping key");
    if (Object.hasOwn(result, entry.key)) {
      cursor.fail(lineIndex, indent, "duplicate mapping key");
    }
    let column = entry.after;
    while (isSpace(line[column])) column++;
    let value: unknown;
    if (column >= commentStart(line, column)) {
      cursor.at++;
      value = node(cursor, indent, true);
    } else {
      if (isSequenceEntry(line, column)) {
        cursor.fail(
          lineIndex,
          column,
          "a sequence cannot start on the line of its key",
        );
      }
      value = inlineValue(cursor, column, indent);
    }
    Object.defineProperty(result, entry.key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
}

function sequence(cursor: YamlCursor, indent: number): unknown[] {
  const result: unknown[] = [];
  for (;;) {
    const at = cursor.peekIndent();
    if (at === undefined || at < indent) return result;
    const line = cursor.lines[cursor.at];
    if (at > indent) cursor.fail(cursor.at, at, "unexpected indentation");
    if (!isSequenceEntry(line, indent)) return result;
    let column = indent + 1;
    while (isSpace(line[column])) column++;
    if (column >= commentStart(line, column)) {
      cursor.at++;
      result.push(node(cursor, indent, false));
    } else {
      // A compact entry (`- key: v`, `- - x`, `- value`): the rest of the
      // line is read as if it started a line indented to its column.
      cursor.lines[cursor.at] = " ".repeat(column) + line.slice(column);
      result.push(node(cursor, indent, false));
    }
  }
}

/** A scalar or flow collection starting at `column` of this line. */
function inlineValue(
  cursor: YamlCursor,
  column: number,
  parent: number,
): unknown {
  const lineIndex = cursor.at;
  const line = cursor.lines[lineIndex];
  const char = line[column];
  switch (char) {
    case "&":
      cursor.fail(lineIndex, column, "anchors (&) are not supported");
      break;
    case "*":
      cursor.fail(lineIndex, column, "aliases (*) are not supported");
      break;
    case "!":
      cursor.fail(lineIndex, column, "tags (!) are not supported");
      break;
    case "%":
    case "@":
    case "`":
      cursor.fail(
        lineIndex,
        column,
        `a plain value cannot start with ${char}`,
      );
      break;
    case "[":
    case "{":
      return flow(cursor, column);
    case "|":
    case ">":
      return blockScalar(cursor, column, parent);
    case '"':
    case "'":
      return quoted(cursor, column, parent);
  }
  if (char === "?" && endsToken(line[column + 1])) {
    cursor.fail(lineIndex, column, "complex keys (?) are not supported");
  }
  return plain(cursor, column, parent);
}

/**
 * A flow collection opening at `column` of this line, possibly over
 * several lines; after it, only blanks or a comment may follow.
 */
function flow(cursor: YamlCursor, column: number): unknown {
  const start = { line: cursor.at, column };
  const at: FlowPosition = { line: cursor.at, column };
  const value = flowCollection(cursor, at, start);
  cursor.at = at.line;
  const line = cursor.lines[at.line];
  let i = at.column;
  while (isSpace(line[i])) i++;
  if (line[i] === ":" && endsToken(line[i + 1])) {
    cursor.fail(
      at.line,
      i,
      "flow collections as mapping keys are not supported",
    );
  }
  cursor.expectLineEnd(line, at.column);
  cursor.at++;
  return value;
}

/** The `[…]` or `{…}` at `at`; `at` ends after its closing bracket. */
function flowCollection(
  cursor: YamlCursor,
  at: FlowPosition,
  start: FlowPosition,
): unknown {
  const sequence = cursor.lines[at.line][at.column] === "[";
  const close = sequence ? "]" : "}";
  const result: unknown[] | Mapping = sequence ? [] : {};
  at.column++;
  for (;;) {
    let char = flowSkip(cursor, at, start);
    if (char === close) {
      at.column++;
      return result;
    }
    if (char === ",") {
      cursor.fail(at.line, at.column, "an empty entry in a flow collection");
    }
    if (sequence) {
      const value = flowNode(cursor, at, start);
      char = flowSkip(cursor, at, start);
      if (char === ":") {
        cursor.fail(
          at.line,
          at.column,
          "a key: value pair in a flow sequence is not supported (write it as {key: value})",
        );
      }
      (result as unknown[]).push(value);
    } else {
      const keyAt = { ...at };
      const key = flowKey(cursor, at, start);
      char = flowSkip(cursor, at, start);
      let value: unknown = null;
      if (char === ":") {
        at.column++;
        char = flowSkip(cursor, at, start);
        if (char !== "," && char !== close) {
          value = flowNode(cursor, at, start);
        }
      }
      if (Object.hasOwn(result, key)) {
        cursor.fail(keyAt.line, keyAt.column, "duplicate mapping key");
      }
      Object.defineProperty(result, key, {
        value,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    char = flowSkip(cursor, at, start);
    if (char === ",") {
      at.column++;
    } else if (char !== close) {
      cursor.fail(
        at.line,
        at.column,
        `expected , or ${close} in a flow ${sequence ? "sequence" : "mapping"}`,
      );
    }
  }
}

/**
 * Moves `at` past blanks, comments and line breaks inside a flow
 * collection, and returns the character there.
 */
function flowSkip(
  cursor: YamlCursor,
  at: FlowPosition,
  start: FlowPosition,
): string {
  for (;;) {
    const line = cursor.lines[at.line];
    while (isSpace(line[at.column])) at.column++;
    const char = line[at.column];
    const comment = char === "#" &&
      (at.column === 0 || isSpace(line[at.column - 1]));
    if (char !== undefined && !comment) return char;
    at.line++;
    at.column = 0;
    const next = cursor.lines[at.line];
    if (next === undefined || DOCUMENT_MARKER.test(next)) {
      cursor.fail(
        start.line,
        start.column,
        "the flow collection is never closed",
      );
    }
  }
}

/** A value inside a flow collection. */
function flowNode(
  cursor: YamlCursor,
  at: FlowPosition,
  start: FlowPosition,
): unknown {
  const line = cursor.lines[at.line];
  const char = line[at.column];
  switch (char) {
    case "[":
    case "{":
      return flowCollection(cursor, at, start);
    case '"':
    case "'":
      return flowQuoted(cursor, at);
  }
  const scalar = flowPlain(cursor, at, start);
  return scalar.lines > 1
    ? scalar.text
    : resolve(cursor, scalar.text, scalar.line, scalar.column);
}

/** A key inside a flow mapping: the text written (plain or quoted). */
function flowKey(
  cursor: YamlCursor,
  at: FlowPosition,
  start: FlowPosition,
): string {
  const char = cursor.lines[at.line][at.column];
  if (char === "[" || char === "{") {
    cursor.fail(
      at.line,
      at.column,
      "complex keys (flow collections as keys) are not supported",
    );
  }
  if (char === '"' || char === "'") return flowQuoted(cursor, at);
  return flowPlain(cursor, at, start).text;
}
