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
 */

/** Where a document leaves the subset this reader supports, or is broken. */
export class YamlError extends Error {
  /** 1-based line. */
  readonly line: number;
  /** 1-based column. */
  readonly column: number;
  /** What is wrong there, without quoting the text (it may be a secret). */
  readonly reason: string;

  constructor(line: number, column: number, reason: string) {
    super(`line ${line} column ${column}: ${reason}`);
    this.name = "YamlError";
    this.line = line;
    this.column = column;
    this.reason = reason;
  }
}

/** Parses one YAML document; an empty one is `null`. */
export function parseYaml(text: string): unknown {
  return new Reader(text).document();
}

type Mapping = Record<string, unknown>;

/** Where a reader of a flow collection is: a line index and a column. */
interface FlowPosition {
  line: number;
  column: number;
}

const DOCUMENT_MARKER = /^(?:---|\.\.\.)(?:[ \t]|$)/;
const BLANK = /^[ \t]*$/;
const ESCAPES: Record<string, string> = {
  "0": "\0",
  a: "\x07",
  b: "\b",
  t: "\t",
  "\t": "\t",
  n: "\n",
  v: "\v",
  f: "\f",
  r: "\r",
  e: "\x1b",
  " ": " ",
  '"': '"',
  "/": "/",
  "\\": "\\",
  N: "\x85",
  _: "\xa0",
  L: "\u2028",
  P: "\u2029",
};
const HEX_ESCAPE_LENGTH: Record<string, number> = { x: 2, u: 4, U: 8 };

function isSpace(char: string | undefined): boolean {
  return char === " " || char === "\t";
}

/** True when `char` ends a token: end of line, space or tab. */
function endsToken(char: string | undefined): boolean {
  return char === undefined || isSpace(char);
}

/** True when `char` ends a token inside a flow collection. */
function endsFlowToken(char: string | undefined): boolean {
  return endsToken(char) || (char !== undefined && ",[]{}".includes(char));
}

/** The index where a comment starts in `text` from `from`, or its length. */
function commentStart(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    if (text[i] === "#" && (i === from || isSpace(text[i - 1]))) return i;
  }
  return text.length;
}

/** The index of the `: ` (or `:` at the end) that ends a plain key, or -1. */
function keyColon(text: string, from: number, end: number): number {
  for (let i = from; i < end; i++) {
    if (text[i] === ":" && endsToken(i + 1 < end ? text[i + 1] : undefined)) {
      return i;
    }
  }
  return -1;
}

class Reader {
  #lines: string[];
  #at = 0;
  /** Whether the last line ends with a line break. */
  #lastLineBroken: boolean;

  constructor(text: string) {
    this.#lines = text.replace(/^\uFEFF/, "").split(/\r\n|\r|\n/);
    // The break that ends the last line does not start another one.
    this.#lastLineBroken = this.#lines.length > 1 && this.#lines.at(-1) === "";
    if (this.#lastLineBroken) this.#lines.pop();
  }

  document(): unknown {
    this.#skipInsignificant();
    const first = this.#lines[this.#at];
    if (first?.startsWith("%")) {
      this.#fail(this.#at, 0, "directives are not supported");
    }
    if (first !== undefined && /^---(?:[ \t]|$)/.test(first)) {
      const rest = commentStart(first, 3);
      if (!BLANK.test(first.slice(3, rest))) {
        this.#fail(this.#at, 4, "content on the --- line is not supported");
      }
      this.#at++;
    }
    const value = this.#node(-1, false);
    this.#skipInsignificant();
    let line = this.#lines[this.#at];
    if (line !== undefined && /^\.\.\.(?:[ \t]|$)/.test(line)) {
      this.#at++;
      this.#skipInsignificant();
      line = this.#lines[this.#at];
    }
    if (line !== undefined) {
      this.#fail(
        this.#at,
        0,
        line.startsWith("---")
          ? "several documents in one file are not supported"
          : "unexpected content after the document",
      );
    }
    return value;
  }

  #fail(lineIndex: number, column: number, reason: string): never {
    throw new YamlError(lineIndex + 1, column + 1, reason);
  }

  /** Moves past blank lines and comment lines. */
  #skipInsignificant(): void {
    while (this.#at < this.#lines.length) {
      const line = this.#lines[this.#at];
      if (!BLANK.test(line) && !/^[ \t]*#/.test(line)) return;
      this.#at++;
    }
  }

  /**
   * The indentation of the next line with content, or undefined at the end
   * of the document (or at a document marker). Tabs must not indent.
   */
  #peekIndent(): number | undefined {
    this.#skipInsignificant();
    const line = this.#lines[this.#at];
    if (line === undefined || DOCUMENT_MARKER.test(line)) return undefined;
    const indent = line.length - line.trimStart().length;
    const spaces = /^ */.exec(line)![0].length;
    if (spaces < indent) {
      this.#fail(this.#at, spaces, "tabs are not allowed for indentation");
    }
    return indent;
  }

  #isSequenceEntry(line: string, column: number): boolean {
    return line[column] === "-" && endsToken(line[column + 1]);
  }

  /**
   * The node starting on the next content line, which must be indented
   * more than `parent`; a sequence may sit at the parent's indentation
   * when it is a mapping value (`sequenceAtParent`). Null when there is
   * none.
   */
  #node(parent: number, sequenceAtParent: boolean): unknown {
    const indent = this.#peekIndent();
    if (indent === undefined) return null;
    const line = this.#lines[this.#at];
    if (indent <= parent) {
      return sequenceAtParent && indent === parent &&
          this.#isSequenceEntry(line, indent)
        ? this.#sequence(indent)
        : null;
    }
    if (this.#isSequenceEntry(line, indent)) return this.#sequence(indent);
    if (this.#key(line, indent) !== undefined) return this.#mapping(indent);
    return this.#inlineValue(indent, parent);
  }

  /**
   * The key at `column` and the column after its colon, or undefined when
   * the text there is not a mapping key.
   */
  #key(
    line: string,
    column: number,
  ): { key: string; after: number } | undefined {
    const char = line[column];
    if (char === '"' || char === "'") {
      const quoted = this.#quotedOnOneLine(line, column);
      if (!quoted) return undefined;
      let i = quoted.end;
      while (isSpace(line[i])) i++;
      return line[i] === ":" && endsToken(line[i + 1])
        ? { key: quoted.value, after: i + 1 }
        : undefined;
    }
    if (char === "?" && endsToken(line[column + 1])) {
      this.#fail(this.#at, column, "complex keys (?) are not supported");
    }
    if ("[{&*!|>%@`".includes(char)) return undefined;
    const colon = keyColon(line, column, commentStart(line, column));
    if (colon < 0) return undefined;
    const key = line.slice(column, colon).trimEnd();
    if (key === "") this.#fail(this.#at, column, "a mapping key is empty");
    if (key === "<<") {
      this.#fail(this.#at, column, "merge keys (<<) are not supported");
    }
    return { key, after: colon + 1 };
  }

  #mapping(indent: number): Mapping {
    const result: Mapping = {};
    for (;;) {
      const at = this.#peekIndent();
      if (at === undefined || at < indent) return result;
      const lineIndex = this.#at;
      const line = this.#lines[lineIndex];
      if (at > indent) this.#fail(lineIndex, at, "unexpected indentation");
      const entry = this.#key(line, indent);
      if (!entry) this.#fail(lineIndex, indent, "expected a mapping key");
      if (Object.hasOwn(result, entry.key)) {
        this.#fail(lineIndex, indent, "duplicate mapping key");
      }
      let column = entry.after;
      while (isSpace(line[column])) column++;
      let value: unknown;
      if (column >= commentStart(line, column)) {
        this.#at++;
        value = this.#node(indent, true);
      } else {
        if (this.#isSequenceEntry(line, column)) {
          this.#fail(
            lineIndex,
            column,
            "a sequence cannot start on the line of its key",
          );
        }
        value = this.#inlineValue(column, indent);
      }
      Object.defineProperty(result, entry.key, {
        value,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
  }

  #sequence(indent: number): unknown[] {
    const result: unknown[] = [];
    for (;;) {
      const at = this.#peekIndent();
      if (at === undefined || at < indent) return result;
      const line = this.#lines[this.#at];
      if (at > indent) this.#fail(this.#at, at, "unexpected indentation");
      if (!this.#isSequenceEntry(line, indent)) return result;
      let column = indent + 1;
      while (isSpace(line[column])) column++;
      if (column >= commentStart(line, column)) {
        this.#at++;
        result.push(this.#node(indent, false));
      } else {
        // A compact entry (`- key: v`, `- - x`, `- value`): the rest of the
        // line is read as if it started a line indented to its column.
        this.#lines[this.#at] = " ".repeat(column) + line.slice(column);
        result.push(this.#node(indent, false));
      }
    }
  }

  /** A scalar or flow collection starting at `column` of this line. */
  #inlineValue(column: number, parent: number): unknown {
    const lineIndex = this.#at;
    const line = this.#lines[lineIndex];
    const char = line[column];
    switch (char) {
      case "&":
        this.#fail(lineIndex, column, "anchors (&) are not supported");
        break;
      case "*":
        this.#fail(lineIndex, column, "aliases (*) are not supported");
        break;
      case "!":
        this.#fail(lineIndex, column, "tags (!) are not supported");
        break;
      case "%":
      case "@":
      case "`":
        this.#fail(
          lineIndex,
          column,
          `a plain value cannot start with ${char}`,
        );
        break;
      case "[":
      case "{":
        return this.#flow(column);
      case "|":
      case ">":
        return this.#blockScalar(column, parent);
      case '"':
      case "'":
        return this.#quoted(column, parent);
    }
    if (char === "?" && endsToken(line[column + 1])) {
      this.#fail(lineIndex, column, "complex keys (?) are not supported");
    }
    return this.#plain(column, parent);
  }

  /**
   * A flow collection opening at `column` of this line, possibly over
   * several lines; after it, only blanks or a comment may follow.
   */
  #flow(column: number): unknown {
    const start = { line: this.#at, column };
    const at: FlowPosition = { line: this.#at, column };
    const value = this.#flowCollection(at, start);
    this.#at = at.line;
    const line = this.#lines[at.line];
    let i = at.column;
    while (isSpace(line[i])) i++;
    if (line[i] === ":" && endsToken(line[i + 1])) {
      this.#fail(
        at.line,
        i,
        "flow collections as mapping keys are not supported",
      );
    }
    this.#expectLineEnd(line, at.column);
    this.#at++;
    return value;
  }

  /** The `[…]` or `{…}` at `at`; `at` ends after its closing bracket. */
  #flowCollection(at: FlowPosition, start: FlowPosition): unknown {
    const sequence = this.#lines[at.line][at.column] === "[";
    const close = sequence ? "]" : "}";
    const result: unknown[] | Mapping = sequence ? [] : {};
    at.column++;
    for (;;) {
      let char = this.#flowSkip(at, start);
      if (char === close) {
        at.column++;
        return result;
      }
      if (char === ",") {
        this.#fail(at.line, at.column, "an empty entry in a flow collection");
      }
      if (sequence) {
        const value = this.#flowNode(at, start);
        char = this.#flowSkip(at, start);
        if (char === ":") {
          this.#fail(
            at.line,
            at.column,
            "a key: value pair in a flow sequence is not supported (write it as {key: value})",
          );
        }
        (result as unknown[]).push(value);
      } else {
        const keyAt = { ...at };
        const key = this.#flowKey(at, start);
        char = this.#flowSkip(at, start);
        let value: unknown = null;
        if (char === ":") {
          at.column++;
          char = this.#flowSkip(at, start);
          if (char !== "," && char !== close) {
            value = this.#flowNode(at, start);
          }
        }
        if (Object.hasOwn(result, key)) {
          this.#fail(keyAt.line, keyAt.column, "duplicate mapping key");
        }
        Object.defineProperty(result, key, {
          value,
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      char = this.#flowSkip(at, start);
      if (char === ",") {
        at.column++;
      } else if (char !== close) {
        this.#fail(
          at.line,
          at.column,
          `expected , or ${close} in a flow ${
            sequence ? "sequence" : "mapping"
          }`,
        );
      }
    }
  }

  /**
   * Moves `at` past blanks, comments and line breaks inside a flow
   * collection, and returns the character there.
   */
  #flowSkip(at: FlowPosition, start: FlowPosition): string {
    for (;;) {
      const line = this.#lines[at.line];
      while (isSpace(line[at.column])) at.column++;
      const char = line[at.column];
      const comment = char === "#" &&
        (at.column === 0 || isSpace(line[at.column - 1]));
      if (char !== undefined && !comment) return char;
      at.line++;
      at.column = 0;
      const next = this.#lines[at.line];
      if (next === undefined || DOCUMENT_MARKER.test(next)) {
        this.#fail(
          start.line,
          start.column,
          "the flow collection is never closed",
        );
      }
    }
  }

  /** A value inside a flow collection. */
  #flowNode(at: FlowPosition, start: FlowPosition): unknown {
    const line = this.#lines[at.line];
    const char = line[at.column];
    switch (char) {
      case "[":
      case "{":
        return this.#flowCollection(at, start);
      case '"':
      case "'":
        return this.#flowQuoted(at);
    }
    const plain = this.#flowPlain(at, start);
    return plain.lines > 1 ? plain.text : this.#resolve(
      plain.text,
      plain.line,
      plain.column,
    );
  }

  /** A key inside a flow mapping: the text written (plain or quoted). */
  #flowKey(at: FlowPosition, start: FlowPosition): string {
    const char = this.#lines[at.line][at.column];
    if (char === "[" || char === "{") {
      this.#fail(
        at.line,
        at.column,
        "complex keys (flow collections as keys) are not supported",
      );
    }
    if (char === '"' || char === "'") return this.#flowQuoted(at);
    return this.#flowPlain(at, start).text;
  }

  /**
   * A plain scalar inside a flow collection: it ends at `,`, a bracket, a
   * `: ` or a comment, and may go on over lines (joined by spaces).
   */
  #flowPlain(
    at: FlowPosition,
    start: FlowPosition,
  ): { text: string; lines: number; line: number; column: number } {
    const first = { line: at.line, column: at.column };
    const char = this.#lines[at.line][at.column];
    if ("&*!".includes(char)) {
      const what = char === "&"
        ? "anchors (&)"
        : char === "*"
        ? "aliases (*)"
        : "tags (!)";
      this.#fail(at.line, at.column, `${what} are not supported`);
    }
    if ("%@`|>".includes(char)) {
      this.#fail(at.line, at.column, `a plain value cannot start with ${char}`);
    }
    if (
      (char === "-" || char === "?") &&
      endsFlowToken(this.#lines[at.line][at.column + 1])
    ) {
      this.#fail(
        at.line,
        at.column,
        char === "?"
          ? "complex keys (?) are not supported"
          : "a block sequence entry cannot appear in a flow collection",
      );
    }
    let text = "";
    let lines = 1;
    for (;;) {
      const line = this.#lines[at.line];
      let i = at.column;
      for (; i < line.length; i++) {
        const c = line[i];
        if (",[]{}".includes(c)) break;
        if (c === ":" && endsFlowToken(line[i + 1])) break;
        if (c === "#" && isSpace(line[i - 1])) break;
      }
      text += line.slice(at.column, i).trimEnd();
      at.column = i;
      if (i < line.length) break;
      // The line ended inside the value: it goes on if the next line with
      // content does not start with what ends a value.
      let next = at.line + 1;
      while (next < this.#lines.length && BLANK.test(this.#lines[next])) next++;
      const following = this.#lines[next];
      if (following === undefined || DOCUMENT_MARKER.test(following)) {
        this.#fail(
          start.line,
          start.column,
          "the flow collection is never closed",
        );
      }
      const from = following.length - following.trimStart().length;
      const c = following[from];
      if (
        ",[]{}#".includes(c) ||
        (c === ":" && endsFlowToken(following[from + 1]))
      ) {
        break;
      }
      text += next - at.line > 1 ? "\n".repeat(next - at.line - 1) : " ";
      at.line = next;
      at.column = from;
      lines++;
    }
    return { text, lines, ...first };
  }

  /**
   * A quoted scalar inside a flow collection, possibly over lines (a break
   * folds to a space, each empty line to a newline); `at` ends after it.
   */
  #flowQuoted(at: FlowPosition): string {
    const startLine = at.line;
    const startColumn = at.column;
    const quote = this.#lines[at.line][at.column];
    let value = "";
    let rawSpaceFrom = -1;
    let i = at.column + 1;
    for (;;) {
      const line = this.#lines[at.line];
      if (i >= line.length) {
        if (rawSpaceFrom >= 0) value = value.slice(0, rawSpaceFrom);
        rawSpaceFrom = -1;
        value += this.#flowQuotedBreak(at, startLine, startColumn, false);
        i = at.column;
        continue;
      }
      const char = line[i];
      if (char === quote) {
        if (quote === "'" && line[i + 1] === "'") {
          value += "'";
          rawSpaceFrom = -1;
          i += 2;
          continue;
        }
        at.column = i + 1;
        return value;
      }
      if (quote === '"' && char === "\\") {
        if (i + 1 >= line.length) {
          value += this.#flowQuotedBreak(at, startLine, startColumn, true);
          rawSpaceFrom = -1;
          i = at.column;
          continue;
        }
        const previous = this.#at;
        this.#at = at.line;
        const escaped = this.#escape(line, i);
        this.#at = previous;
        value += escaped.text;
        rawSpaceFrom = -1;
        i = escaped.end;
        continue;
      }
      if (isSpace(char)) {
        if (rawSpaceFrom < 0) rawSpaceFrom = value.length;
      } else {
        rawSpaceFrom = -1;
      }
      value += char;
      i++;
    }
  }

  /** Moves `at` to the next line with content of a quoted flow scalar. */
  #flowQuotedBreak(
    at: FlowPosition,
    startLine: number,
    startColumn: number,
    escaped: boolean,
  ): string {
    let next = at.line + 1;
    while (next < this.#lines.length && BLANK.test(this.#lines[next])) next++;
    const line = this.#lines[next];
    if (line === undefined || DOCUMENT_MARKER.test(line)) {
      this.#fail(startLine, startColumn, "the quoted value is never closed");
    }
    const emptyLines = next - at.line - 1;
    at.line = next;
    at.column = line.length - line.trimStart().length;
    if (emptyLines > 0) return "\n".repeat(emptyLines);
    return escaped ? "" : " ";
  }

  /** Only blanks or a comment may follow `from` on this line. */
  #expectLineEnd(line: string, from: number): void {
    let i = from;
    while (isSpace(line[i])) i++;
    if (i < line.length && !(line[i] === "#" && i > from)) {
      this.#fail(
        this.#at,
        i,
        line[i] === ":"
          ? "a mapping cannot start on the line of its key"
          : "unexpected text after the value",
      );
    }
  }

  #plain(column: number, parent: number): unknown {
    const startLine = this.#at;
    const first = this.#lines[startLine];
    let end = commentStart(first, column);
    this.#checkPlainPart(first, column, end);
    let value = first.slice(column, end).trimEnd();
    let ended = end < first.length;
    this.#at++;
    while (!ended) {
      let next = this.#at;
      while (next < this.#lines.length && BLANK.test(this.#lines[next])) next++;
      const line = this.#lines[next];
      if (line === undefined || DOCUMENT_MARKER.test(line)) break;
      const indent = line.length - line.trimStart().length;
      if (indent <= parent || line[indent] === "#") break;
      end = commentStart(line, indent);
      const blankLines = next - this.#at;
      this.#at = next;
      this.#checkPlainPart(line, indent, end);
      const text = line.slice(indent, end).trimEnd();
      value += blankLines === 0 ? ` ${text}` : "\n".repeat(blankLines) + text;
      ended = end < line.length;
      this.#at = next + 1;
    }
    if (value.includes("\n") || this.#at - startLine > 1) return value;
    return this.#resolve(value, startLine, column);
  }

  /** A plain scalar cannot hold `: ` (that would be a nested mapping). */
  #checkPlainPart(line: string, from: number, end: number): void {
    const colon = keyColon(line, from, end);
    if (colon >= 0) {
      this.#fail(
        this.#at,
        colon,
        "a mapping cannot start inside a plain value (quote the value)",
      );
    }
  }

  /** The YAML 1.2 core schema for a one-line plain scalar. */
  #resolve(text: string, lineIndex: number, column: number): unknown {
    if (/^(?:~|null|Null|NULL)?$/.test(text)) return null;
    if (/^(?:true|True|TRUE)$/.test(text)) return true;
    if (/^(?:false|False|FALSE)$/.test(text)) return false;
    let integer: number | undefined;
    if (/^[-+]?[0-9]+$/.test(text)) integer = Number(text);
    else if (/^0o[0-7]+$/.test(text)) integer = parseInt(text.slice(2), 8);
    else if (/^0x[0-9a-fA-F]+$/.test(text)) {
      integer = parseInt(text.slice(2), 16);
    }
    if (integer !== undefined) {
      if (!Number.isSafeInteger(integer)) {
        this.#fail(
          lineIndex,
          column,
          "an integer too large to be read exactly (quote it to keep it as text)",
        );
      }
      return integer;
    }
    if (
      /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/.test(text)
    ) {
      return Number(text);
    }
    if (/^[-+]?\.(?:inf|Inf|INF)$/.test(text)) {
      return text.startsWith("-") ? -Infinity : Infinity;
    }
    if (/^\.(?:nan|NaN|NAN)$/.test(text)) return NaN;
    return text;
  }

  /** A quoted scalar that opens and closes on `line`, for keys. */
  #quotedOnOneLine(
    line: string,
    column: number,
  ): { value: string; end: number } | undefined {
    const quote = line[column];
    let value = "";
    for (let i = column + 1; i < line.length; i++) {
      const char = line[i];
      if (quote === "'") {
        if (char !== "'") value += char;
        else if (line[i + 1] === "'") {
          value += "'";
          i++;
        } else return { value, end: i + 1 };
      } else if (char === '"') {
        return { value, end: i + 1 };
      } else if (char === "\\") {
        if (i + 1 >= line.length) return undefined;
        const escaped = this.#escape(line, i);
        value += escaped.text;
        i = escaped.end - 1;
      } else {
        value += char;
      }
    }
    return undefined;
  }

  /** The escape sequence at `line[at]` (a backslash) and where it ends. */
  #escape(line: string, at: number): { text: string; end: number } {
    const code = line[at + 1];
    if (code in ESCAPES) return { text: ESCAPES[code], end: at + 2 };
    const length = HEX_ESCAPE_LENGTH[code];
    const hex = line.slice(at + 2, at + 2 + (length ?? 0));
    if (length && hex.length === length && /^[0-9a-fA-F]+$/.test(hex)) {
      const point = parseInt(hex, 16);
      if (point <= 0x10ffff) {
        return { text: String.fromCodePoint(point), end: at + 2 + length };
      }
    }
    this.#fail(this.#at, at, "invalid escape sequence in a quoted value");
  }

  /** A single- or double-quoted scalar, possibly over several lines. */
  #quoted(column: number, parent: number): string {
    const startLine = this.#at;
    const quote = this.#lines[startLine][column];
    let value = "";
    // Where unescaped white space at the end of `value` begins: it is
    // dropped when the line breaks.
    let rawSpaceFrom = -1;
    let i = column + 1;
    for (;;) {
      const line = this.#lines[this.#at];
      if (i >= line.length) {
        if (rawSpaceFrom >= 0) value = value.slice(0, rawSpaceFrom);
        value += this.#quotedLineBreak(parent, startLine, column, false);
        rawSpaceFrom = -1;
        i = this.#startOfContinuation();
        continue;
      }
      const char = line[i];
      if (char === quote) {
        if (quote === "'" && line[i + 1] === "'") {
          value += "'";
          rawSpaceFrom = -1;
          i += 2;
          continue;
        }
        this.#expectLineEnd(line, i + 1);
        this.#at++;
        return value;
      }
      if (quote === '"' && char === "\\") {
        if (i + 1 >= line.length) {
          // An escaped line break: the lines join without a space.
          value += this.#quotedLineBreak(parent, startLine, column, true);
          rawSpaceFrom = -1;
          i = this.#startOfContinuation();
          continue;
        }
        const escaped = this.#escape(line, i);
        value += escaped.text;
        rawSpaceFrom = -1;
        i = escaped.end;
        continue;
      }
      if (isSpace(char)) {
        if (rawSpaceFrom < 0) rawSpaceFrom = value.length;
      } else {
        rawSpaceFrom = -1;
      }
      value += char;
      i++;
    }
  }

  /**
   * Moves to the next line with content of a quoted scalar and returns what
   * the line break folds to: a space, or one newline per empty line.
   */
  #quotedLineBreak(
    parent: number,
    startLine: number,
    column: number,
    escaped: boolean,
  ): string {
    let next = this.#at + 1;
    while (next < this.#lines.length && BLANK.test(this.#lines[next])) next++;
    const line = this.#lines[next];
    if (line === undefined || DOCUMENT_MARKER.test(line)) {
      this.#fail(startLine, column, "the quoted value is never closed");
    }
    const indent = line.length - line.trimStart().length;
    if (indent <= parent) {
      this.#fail(
        next,
        indent,
        "a continuation line of a quoted value must be indented",
      );
    }
    const emptyLines = next - this.#at - 1;
    this.#at = next;
    if (emptyLines > 0) return "\n".repeat(emptyLines);
    return escaped ? "" : " ";
  }

  #startOfContinuation(): number {
    const line = this.#lines[this.#at];
    return line.length - line.trimStart().length;
  }

  /** A literal (`|`) or folded (`>`) block scalar whose header is at `column`. */
  #blockScalar(column: number, parent: number): string {
    const headerLine = this.#at;
    const line = this.#lines[headerLine];
    const folded = line[column] === ">";
    let chomp = "";
    let indicator = 0;
    let i = column + 1;
    for (let n = 0; n < 2; n++) {
      const char = line[i];
      if ((char === "+" || char === "-") && !chomp) {
        chomp = char;
        i++;
      } else if (char >= "1" && char <= "9" && !indicator) {
        indicator = Number(char);
        i++;
      }
    }
    if (!endsToken(line[i])) {
      this.#fail(headerLine, i, "invalid block scalar header");
    }
    this.#expectLineEnd(line, i);
    this.#at++;

    let contentIndent: number;
    if (indicator) {
      if (parent < 0) {
        this.#fail(
          headerLine,
          column,
          "an indentation indicator on a top-level block scalar is not supported",
        );
      }
      contentIndent = parent + indicator;
    } else {
      let next = this.#at;
      let widestBlank = 0;
      while (next < this.#lines.length && /^ *$/.test(this.#lines[next])) {
        widestBlank = Math.max(widestBlank, this.#lines[next].length);
        next++;
      }
      const first = this.#lines[next];
      contentIndent = first === undefined
        ? parent + 1
        : /^ */.exec(first)![0].length;
      if (contentIndent <= parent) contentIndent = parent + 1;
      if (widestBlank > contentIndent && first !== undefined) {
        this.#fail(
          next - 1,
          contentIndent,
          "a leading empty line of a block scalar is indented more than its text",
        );
      }
    }

    const lines: string[] = [];
    let next = this.#at;
    for (; next < this.#lines.length; next++) {
      const text = this.#lines[next];
      if (/^ *$/.test(text) && text.length <= contentIndent) {
        lines.push("");
        continue;
      }
      const spaces = /^ */.exec(text)![0].length;
      if (spaces < contentIndent) break;
      if (contentIndent === 0 && DOCUMENT_MARKER.test(text)) break;
      lines.push(text.slice(contentIndent));
    }
    // Trailing empty lines belong to the chomping, not to what follows.
    let lastContent = lines.length;
    while (lastContent > 0 && lines[lastContent - 1] === "") lastContent--;
    // Every line of the block ends with a break, except the last line of
    // a file that does not end with one.
    const breaks = lines.length - lastContent + (lastContent > 0 ? 1 : 0) -
      (next === this.#lines.length && !this.#lastLineBroken ? 1 : 0);
    this.#at = next;
    return assembleBlock(lines.slice(0, lastContent), folded, chomp, breaks);
  }
}

/**
 * Joins the lines of a block scalar up to its last line with content:
 * literal keeps the breaks, folded turns a single break between two
 * unindented lines into a space. Then chomping decides which of the
 * `breaks` after that line stay: none (`-`), one (default) or all (`+`).
 */
function assembleBlock(
  lines: string[],
  folded: boolean,
  chomp: string,
  breaks: number,
): string {
  let result = "";
  let emptyLines = 0;
  let hasContent = false;
  let moreIndented = false;
  for (const line of lines) {
    if (line === "") {
      emptyLines++;
      continue;
    }
    if (!folded) {
      result += "\n".repeat(hasContent ? emptyLines + 1 : emptyLines);
    } else if (isSpace(line[0])) {
      moreIndented = true;
      result += "\n".repeat(hasContent ? emptyLines + 1 : emptyLines);
    } else if (moreIndented) {
      moreIndented = false;
      result += "\n".repeat(emptyLines + 1);
    } else if (emptyLines === 0) {
      if (hasContent) result += " ";
    } else {
      result += "\n".repeat(emptyLines);
    }
    result += line;
    hasContent = true;
    emptyLines = 0;
  }
  if (chomp === "+") result += "\n".repeat(Math.max(breaks, 0));
  else if (chomp === "" && hasContent && breaks > 0) result += "\n";
  return result;
}
