import type { ChangeStats, Logger } from "../mod.ts";

/** Where the demo prints and whether it may use colours. */
export interface Output {
  write(line: string): void;
  color: boolean;
}

const CODES = {
  bold: 1,
  dim: 2,
  red: 31,
  green: 32,
  yellow: 33,
  blue: 34,
  magenta: 35,
  cyan: 36,
} as const;
type Style = keyof typeof CODES;

const TAG_STYLE: Record<string, Style> = {
  sync: "cyan",
  ready: "green",
  batch: "blue",
  render: "blue",
  burst: "magenta",
  secret: "magenta",
  fault: "yellow",
  recover: "green",
  verify: "green",
  warn: "yellow",
  error: "red",
  stop: "bold",
  lease: "cyan",
  kill: "red",
  serve: "cyan",
  widget: "magenta",
  reconcile: "blue",
  retry: "yellow",
  ring: "cyan",
  handoff: "green",
};

/** Prints timestamped, tagged lines: `  3.214s  batch      ingresses …`. */
export class Printer {
  readonly #out: Output;
  readonly #start = performance.now();

  constructor(out: Output) {
    this.#out = out;
  }

  /** Seconds since the demo started. */
  get elapsedMs(): number {
    return performance.now() - this.#start;
  }

  style(style: Style, text: string): string {
    return this.#out.color ? `\x1b[${CODES[style]}m${text}\x1b[0m` : text;
  }

  /** A line without timestamp. */
  plain(text = ""): void {
    this.#out.write(text);
  }

  /** A timestamped line with a tag such as `batch` or `fault`. */
  line(tag: string, text: string): void {
    const time = (this.elapsedMs / 1000).toFixed(3).padStart(7) + "s";
    const styled = this.style(TAG_STYLE[tag] ?? "bold", tag.padEnd(9));
    this.#out.write(`${this.style("dim", time)}  ${styled}  ${text}`);
  }

  /** `+2 ~5 -1`, zeros dimmed. */
  stats(stats: Pick<ChangeStats, "created" | "modified" | "deleted">): string {
    const part = (sign: string, n: number, style: Style) =>
      n === 0
        ? this.style("dim", `${sign}0`.padEnd(4))
        : this.style(style, `${sign}${n}`.padEnd(4));
    return `${part("+", stats.created, "green")}${
      part("~", stats.modified, "yellow")
    }${part("-", stats.deleted, "red")}`;
  }

  /**
   * The watchers' logger: warnings and errors as one compact line each (no
   * JSON fields); the bulk watcher's debug "Listing" progress goes to
   * `onListing`; everything else is dropped.
   */
  logger(
    onListing?: (resource: string, listed: number) => void,
  ): Logger {
    const compact =
      (tag: string) => (message: string, fields?: Record<string, unknown>) =>
        this.line(tag, summarize(message, fields));
    return {
      debug: (message, fields) => {
        if (
          message === "Listing" && onListing &&
          typeof fields?.resource === "string" &&
          typeof fields.listed === "number"
        ) onListing(fields.resource, fields.listed);
      },
      info: () => {},
      warn: compact("warn"),
      error: compact("error"),
    };
  }

  /** Prints rows as an aligned table; numbers right-aligned. */
  table(header: string[], rows: (string | number)[][]): void {
    const cells = [header, ...rows.map((r) => r.map(String))];
    const widths = header.map((_, i) =>
      Math.max(...cells.map((r) => visible(r[i] ?? "").length))
    );
    const render = (row: string[], isHeader: boolean) =>
      "  " + row.map((cell, i) => {
        const pad = widths[i] - visible(cell).length;
        const numeric = !isHeader && i > 0 && /^[\d-]/.test(visible(cell));
        return numeric || (isHeader && i > 0)
          ? " ".repeat(pad) + cell
          : cell + " ".repeat(pad);
      }).join("  ");
    this.plain(this.style("bold", render(header, true)));
    for (const row of cells.slice(1)) this.plain(render(row, false));
  }
}

// deno-lint-ignore no-control-regex
const ANSI = /\x1b\[[0-9;]*m/g;

function visible(text: string): string {
  return text.replace(ANSI, "");
}

/**
 * One short line for a loop failure: `watch /api/v1/services: 503
 * ServiceUnavailable, retrying in 1000 ms`; other messages shortened.
 */
function summarize(
  message: string,
  fields: Record<string, unknown> | undefined,
): string {
  const { path, url, code, reason, retryInMs, hint } = fields ?? {};
  const where = typeof path === "string" ? path : url;
  if (typeof where === "string" && typeof code === "number") {
    const verb = /^list/i.test(message) ? "list" : "watch";
    return `${verb} ${where.split("?")[0]}: ${code} ${reason ?? ""}${
      typeof retryInMs === "number" ? `, retrying in ${retryInMs} ms` : ""
    }${typeof hint === "string" ? ` (${hint})` : ""}`;
  }
  return shorten(message, 150);
}

function shorten(text: string, max: number): string {
  return text.length <= max ? text : text.slice(0, max - 1) + "…";
}
