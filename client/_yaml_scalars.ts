/**
 * The scalars of the YAML reader (see `_yaml.ts`), in every form it takes:
 * plain (resolved by the YAML 1.2 core schema), single- and double-quoted
 * (with escapes), literal and folded block scalars, and the plain and
 * quoted forms inside a flow collection. Each reads from the cursor's line
 * and moves it past what it read.
 *
 * @module
 */
import {
  BLANK,
  commentStart,
  DOCUMENT_MARKER,
  endsFlowToken,
  endsToken,
  type FlowPosition,
  isSpace,
  keyColon,
  type YamlCursor,
} from "./_yaml_cursor.ts";

/**
 * A plain scalar starting at `column` of this line, possibly over several
 * lines (joined by spaces, each empty line a newline); only a one-line
 * one is resolved by the core schema.
 */
export function plain(
  cursor: YamlCursor,
  column: number,
  parent: number,
): unknown {
  const startLine = cursor.at;
  const first = cursor.lines[startLine];
  let end = commentStart(first, column);
  checkPlainPart(cursor, first, column, end);
  let value = first.slice(column, end).trimEnd();
  let ended = end < first.length;
  cursor.at++;
  while (!ended) {
    let next = cursor.at;
    while (next < cursor.lines.length && BLANK.test(cursor.lines[next])) next++;
    const line = cursor.lines[next];
    if (line === undefined || DOCUMENT_MARKER.test(line)) break;
    const indent = line.length - line.trimStart().length;
    if (indent <= parent || line[indent] === "#") break;
    end = commentStart(line, indent);
    const blankLines = next - cursor.at;
    cursor.at = next;
    checkPlainPart(cursor, line, indent, end);
    const text = line.slice(indent, end).trimEnd();
    value += blankLines === 0 ? ` ${text}` : "\n".repeat(blankLines) + text;
    ended = end < line.length;
    cursor.at = next + 1;
  }
  if (value.includes("\n") || cursor.at - startLine > 1) return value;
  return resolve(cursor, value, startLine, column);
}

/** A plain scalar cannot hold `: ` (that would be a nested mapping). */
function checkPlainPart(
  cursor: YamlCursor,
  line: string,
  from: number,
  end: number,
): void {
  const colon = keyColon(line, from, end);
  if (colon >= 0) {
    cursor.fail(
      cursor.at,
      colon,
      "a mapping cannot start inside a plain value (quote the value)",
    );
  }
}

/** The YAML 1.2 core schema for a one-line plain scalar. */
export function resolve(
  cursor: YamlCursor,
  text: string,
  lineIndex: number,
  column: number,
): unknown {
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
      cursor.fail(
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

/** A single- or double-quoted scalar, possibly over several lines. */
export function quoted(
  cursor: YamlCursor,
  column: number,
  parent: number,
): string {
  const startLine = cursor.at;
  const quote = cursor.lines[startLine][column];
  let value = "";
  // Where unescaped white space at the end of `value` begins: it is
  // dropped when the line breaks.
  let rawSpaceFrom = -1;
  let i = column + 1;
  for (;;) {
    const line = cursor.lines[cursor.at];
    if (i >= line.length) {
      if (rawSpaceFrom >= 0) value = value.slice(0, rawSpaceFrom);
      value += quotedLineBreak(cursor, parent, startLine, column, false);
      rawSpaceFrom = -1;
      i = startOfContinuation(cursor);
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
      cursor.expectLineEnd(line, i + 1);
      cursor.at++;
      return value;
    }
    if (quote === '"' && char === "\\") {
      if (i + 1 >= line.length) {
        // An escaped line break: the lines join without a space.
        value += quotedLineBreak(cursor, parent, startLine, column, true);
        rawSpaceFrom = -1;
        i = startOfContinuation(cursor);
        continue;
      }
      const escaped = escape(cursor, line, i);
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
function quotedLineBreak(
  cursor: YamlCursor,
  parent: number,
  startLine: number,
  column: number,
  escaped: boolean,
): string {
  let next = cursor.at + 1;
  while (next < cursor.lines.length && BLANK.test(cursor.lines[next])) next++;
  const line = cursor.lines[next];
  if (line === undefined || DOCUMENT_MARKER.test(line)) {
    cursor.fail(startLine, column, "the quoted value is never closed");
  }
  const indent = line.length - line.trimStart().length;
  if (indent <= parent) {
    cursor.fail(
      next,
      indent,
      "a continuation line of a quoted value must be indented",
    );
  }
  const emptyLines = next - cursor.at - 1;
  cursor.at = next;
  if (emptyLines > 0) return "\n".repeat(emptyLines);
  return escaped ? "" : " ";
}

/** The column where the current continuation line's text starts. */
function startOfContinuation(cursor: YamlCursor): number {
  const line = cursor.lines[cursor.at];
  return line.length - line.trimStart().length;
}

/** A quoted scalar that opens and closes on `line`, for keys. */
export function quotedOnOneLine(
  cursor: YamlCursor,
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
      const escaped = escape(cursor, line, i);
      value += escaped.text;
      i = escaped.end - 1;
    } else {
      value += char;
    }
  }
  return undefined;
}

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

/** The escape sequence at `line[at]` (a backslash) and where it ends. */
function escape(
  cursor: YamlCursor,
  line: string,
  at: number,
): { text: string; end: number } {
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
  cursor.fail(cursor.at, at, "invalid escape sequence in a quoted value");
}

/** A literal (`|`) or folded (`>`) block scalar whose header is at `column`. */
export function blockScalar(
  cursor: YamlCursor,
  column: number,
  parent: number,
): string {
  const headerLine = cursor.at;
  const line = cursor.lines[headerLine];
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
    cursor.fail(headerLine, i, "invalid block scalar header");
  }
  cursor.expectLineEnd(line, i);
  cursor.at++;

  let contentIndent: number;
  if (indicator) {
    if (parent < 0) {
      cursor.fail(
        headerLine,
        column,
        "an indentation indicator on a top-level block scalar is not supported",
      );
    }
    contentIndent = parent + indicator;
  } else {
    let next = cursor.at;
    let widestBlank = 0;
    while (next < cursor.lines.length && /^ *$/.test(cursor.lines[next])) {
      widestBlank = Math.max(widestBlank, cursor.lines[next].length);
      next++;
    }
    const first = cursor.lines[next];
    contentIndent = first === undefined
      ? parent + 1
      : /^ */.exec(first)![0].length;
    if (contentIndent <= parent) contentIndent = parent + 1;
    if (widestBlank > contentIndent && first !== undefined) {
      cursor.fail(
        next - 1,
        contentIndent,
        "a leading empty line of a block scalar is indented more than its text",
      );
    }
  }

  const lines: string[] = [];
  let next = cursor.at;
  for (; next < cursor.lines.length; next++) {
    const text = cursor.lines[next];
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
    (next === cursor.lines.length && !cursor.lastLineBroken ? 1 : 0);
  cursor.at = next;
  return assembleBlock(lines.slice(0, lastContent), folded, chomp, breaks);
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

/**
 * A plain scalar inside a flow collection: it ends at `,`, a bracket, a
 * `: ` or a comment, and may go on over lines (joined by spaces).
 */
export function flowPlain(
  cursor: YamlCursor,
  at: FlowPosition,
  start: FlowPosition,
): { text: string; lines: number; line: number; column: number } {
  const first = { line: at.line, column: at.column };
  const char = cursor.lines[at.line][at.column];
  if ("&*!".includes(char)) {
    const what = char === "&"
      ? "anchors (&)"
      : char === "*"
      ? "aliases (*)"
      : "tags (!)";
    cursor.fail(at.line, at.column, `${what} are not supported`);
  }
  if ("%@`|>".includes(char)) {
    cursor.fail(at.line, at.column, `a plain value cannot start with ${char}`);
  }
  if (
    (char === "-" || char === "?") &&
    endsFlowToken(cursor.lines[at.line][at.column + 1])
  ) {
    cursor.fail(
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
    const line = cursor.lines[at.line];
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
    while (next < cursor.lines.length && BLANK.test(cursor.lines[next])) next++;
    const following = cursor.lines[next];
    if (following === undefined || DOCUMENT_MARKER.test(following)) {
      cursor.fail(
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
export function flowQuoted(cursor: YamlCursor, at: FlowPosition): string {
  const startLine = at.line;
  const startColumn = at.column;
  const quote = cursor.lines[at.line][at.column];
  let value = "";
  let rawSpaceFrom = -1;
  let i = at.column + 1;
  for (;;) {
    const line = cursor.lines[at.line];
    if (i >= line.length) {
      if (rawSpaceFrom >= 0) value = value.slice(0, rawSpaceFrom);
      rawSpaceFrom = -1;
      value += flowQuotedBreak(cursor, at, startLine, startColumn, false);
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
        value += flowQuotedBreak(cursor, at, startLine, startColumn, true);
        rawSpaceFrom = -1;
        i = at.column;
        continue;
      }
      const previous = cursor.at;
      cursor.at = at.line;
      const escaped = escape(cursor, line, i);
      cursor.at = previous;
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
function flowQuotedBreak(
  cursor: YamlCursor,
  at: FlowPosition,
  startLine: number,
  startColumn: number,
  escaped: boolean,
): string {
  let next = at.line + 1;
  while (next < cursor.lines.length && BLANK.test(cursor.lines[next])) next++;
  const line = cursor.lines[next];
  if (line === undefined || DOCUMENT_MARKER.test(line)) {
    cursor.fail(startLine, startColumn, "the quoted value is never closed");
  }
  const emptyLines = next - at.line - 1;
  at.line = next;
  at.column = line.length - line.trimStart().length;
  if (emptyLines > 0) return "\n".repeat(emptyLines);
  return escaped ? "" : " ";
}
