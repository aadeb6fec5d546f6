/**
 * The one check every options object goes through: names it does not take
 * (a typo such as `tokn`, or an option of another component) are refused,
 * all at once, in the same words everywhere. A name silently ignored is a
 * setting silently not applied: a `tokn` meant as the token sends no token.
 *
 * Each component throws its own error class with the result, so the
 * message reads `Invalid <what>: <names>: <why>`:
 * `Invalid FetchClient config: tokn: is not a FetchClientConfig option (did you mean token?)`.
 *
 * @module
 */

/** One argument that takes options, as the check names it. */
export interface OptionArgument {
  /** The names it takes: a record over the options interface's keys, so a field added there and not here does not compile. */
  readonly known: Readonly<Record<string, true>>;
  /** What was passed. Anything but a plain object is left to the caller. */
  readonly value: unknown;
  /** Its type, as in "is not a <type> option": `FetchClientConfig`. */
  readonly type: string;
  /** Where a name of it belongs, for one put in another argument: `the second argument (FetchClientOptions)`. */
  readonly place?: string;
  /** How "not in …" names it: `the config`. Defaults to `type`. */
  readonly short?: string;
  /** Put before each name reported: `exec.` for a nested object. */
  readonly prefix?: string;
}

/** What was wrong: the field (every name, comma-separated) and why. */
export interface OptionNamesProblem {
  /** The offending names, joined with `, `. */
  readonly field: string;
  /** Why, one clause per name when there are several. */
  readonly message: string;
}

/**
 * The names no argument takes, or that belong in another argument; the
 * arguments of one call are checked together so that a name put in the
 * wrong one says where it goes.
 */
export function optionNamesProblem(
  ...args: readonly OptionArgument[]
): OptionNamesProblem | undefined {
  const problems: [name: string, why: string][] = [];
  for (const arg of args) {
    if (arg.value === null || typeof arg.value !== "object") continue;
    for (const name of Object.keys(arg.value)) {
      if (Object.hasOwn(arg.known, name)) continue;
      const home = args.find((other) =>
        other !== arg && other.place !== undefined &&
        Object.hasOwn(other.known, name)
      );
      problems.push([
        (arg.prefix ?? "") + name,
        home
          ? `belongs in ${home.place}, not in ${arg.short ?? arg.type}`
          : notAnOption(name, arg.type, Object.keys(arg.known)),
      ]);
    }
  }
  if (problems.length === 0) return undefined;
  if (problems.length === 1) {
    return { field: problems[0][0], message: problems[0][1] };
  }
  return {
    field: problems.map(([name]) => name).join(", "),
    message: problems.map(([name, why]) => `${name} ${why}`).join("; "),
  };
}

/**
 * The message of a component whose error carries no field:
 * `Invalid <what>: <field>: <message>`, the shape of the watchers' and the
 * elector's errors.
 */
export function invalidOptionsMessage(
  what: string,
  problem: OptionNamesProblem,
): string {
  return `Invalid ${what}: ${problem.field}: ${problem.message}`;
}

/**
 * Throws a `TypeError` naming what `value` does not take, for components
 * whose errors carry no field (`Invalid MemoryStore options: …`).
 */
export function assertOptionNames(
  what: string,
  known: Readonly<Record<string, true>>,
  value: unknown,
  type: string,
): void {
  const problem = optionNamesProblem({ known, value, type });
  if (problem) throw new TypeError(invalidOptionsMessage(what, problem));
}

/** `is not a <type> option` (or an), with the known name it most likely meant. */
function notAnOption(
  name: string,
  type: string,
  known: readonly string[],
): string {
  const meant = closest(name, known);
  const article = /^[aeiou]/i.test(type) ? "an" : "a";
  return `is not ${article} ${type} option${
    meant === undefined ? "" : ` (did you mean ${meant}?)`
  }`;
}

/**
 * The known name `name` differs from only in case, or by one edit (two
 * from eight characters on; none below three): `tokn` → `token`,
 * `indexby` → `indexBy`, `arg` → `args`. The first of equally close names
 * wins.
 */
function closest(name: string, known: readonly string[]): string | undefined {
  const lower = name.toLowerCase();
  const allowed = name.length < 3 ? 0 : name.length < 8 ? 1 : 2;
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of known) {
    const distance = candidate.toLowerCase() === lower
      ? 0
      : editDistance(lower, candidate.toLowerCase());
    if (distance <= allowed && distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/** Levenshtein distance, with a swap of two neighbours as one edit. */
function editDistance(a: string, b: string): number {
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) {
    rows.push([i]);
    for (let j = 1; j <= b.length; j++) {
      if (i === 0) {
        rows[i].push(j);
        continue;
      }
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(
        rows[i - 1][j] + 1,
        rows[i][j - 1] + 1,
        rows[i - 1][j - 1] + cost,
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        d = Math.min(d, rows[i - 2][j - 2] + 1);
      }
      rows[i].push(d);
    }
  }
  return rows[a.length][b.length];
}
