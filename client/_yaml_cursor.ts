/**
 * The ground the YAML reader stands on (see `_yaml.ts`): the text as lines
 * with a reading position, the error that names a line and column, and the
 * rules for where a token ends that collections and scalars share.
 *
 * @module
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

/** Where a reader of a flow collection is: a line index and a column. */
export interface FlowPosition {
  line: number;
  column: number;
}

/** A line that starts with `---` or `...`: a document starts or ends. */
export const DOCUMENT_MARKER = /^(?:---|\.\.\.)(?:[ \t]|$)/;
/** A line of blanks only. */
export const BLANK = /^[ \t]*$/;

export function isSpace(char: string | undefined): boolean {
  return char === " " || char === "\t";
}

/** True when `char` ends a token: end of line, space or tab. */
export function endsToken(char: string | undefined): boolean {
  return char === undefined || isSpace(char);
}

/** True when `char` ends a token inside a flow collection. */
export function endsFlowToken(char: string | undefined): boolean {
  return endsToken(char) || (char !== undefined && ",[]{}".includes(char));
}

/** The index where a comment starts in `text` from `from`, or its length. */
export function commentStart(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    if (text[i] === "#" && (i === from || isSpace(text[i - 1]))) return i;
  }
  return text.length;
}

/** The index of the `: ` (or `:` at the end) that ends a plain key, or -1. */
export function keyColon(text: string, from: number, end: number): number {
  for (let i = from; i < end; i++) {
    if (text[i] === ":" && endsToken(i + 1 < end ? text[i + 1] : undefined)) {
      return i;
    }
  }
  return -1;
}

/**
 * A document's lines and the index of the line being read. The readers of
 * collections and scalars move `at` forward as they consume lines; a
 * compact sequence entry rewrites its line in place.
 */
export class YamlCursor {
  /** The lines, without their breaks. */
  readonly lines: string[];
  /** The index of the line being read. */
  at = 0;
  /** Whether the last line ends with a line break. */
  readonly lastLineBroken: boolean;

  constructor(text: string) {
    this.lines = text.replace(/^\uFEFF/, "").split(/\r\n|\r|\n/);
    // The break that ends the last line does not start another one.
    this.lastLineBroken = this.lines.length > 1 && this.lines.at(-1) === "";
    if (this.lastLineBroken) this.lines.pop();
  }

  /** Throws the error for a 0-based line index and column. */
  fail(lineIndex: number, column: number, reason: string): never {
    throw new YamlError(lineIndex + 1, column + 1, reason);
  }

  /** Moves past blank lines and comment lines. */
  skipInsignificant(): void {
    while (this.at < this.lines.length) {
      const line = this.lines[this.at];
      if (!BLANK.test(line) && !/^[ \t]*#/.test(line)) return;
      this.at++;
    }
  }

  /**
   * The indentation of the next line with content, or undefined at the end
   * of the document (or at a document marker). Tabs must not indent.
   */
  peekIndent(): number | undefined {
    this.skipInsignificant();
    const line = this.lines[this.at];
    if (line === undefined || DOCUMENT_MARKER.test(line)) return undefined;
    const indent = line.length - line.trimStart().length;
    const spaces = /^ */.exec(line)![0].length;
    if (spaces < indent) {
      this.fail(this.at, spaces, "tabs are not allowed for indentation");
    }
    return indent;
  }

  /** Only blanks or a comment may follow `from` on this line. */
  expectLineEnd(line: string, from: number): void {
    let i = from;
    while (isSpace(line[i])) i++;
    if (i < line.length && !(line[i] === "#" && i > from)) {
      this.fail(
        this.at,
        i,
        line[i] === ":"
          ? "a mapping cannot start on the line of its key"
          : "unexpected text after the value",
      );
    }
  }
}
