/**
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
 * @module
 */

const KEY = '"resourceVersion":';

/**
 * `text` with the first digit of every string value of a
 * `"resourceVersion":` key written as a JSON escape. The text `"resourceVersion":`
 * outside a key can only sit inside a string value, escaped as
 * `\"resourceVersion\":`: its match there starts at an escaped quote and
 * changes a digit inside that string to its own escape, the same string.
 * An `indexOf` scan, not a regular expression: on a 3 KB watch line it is
 * the difference between a fraction of a microsecond and a few
 * (bench/ANALYSIS.md, "The flood's per-event cost").
 */
function escapeVersions(text: string): string {
  let at = text.indexOf(KEY);
  if (at < 0) return text;
  let out = "";
  let from = 0;
  while (at >= 0) {
    let i = at + KEY.length;
    let c = text.charCodeAt(i);
    // JSON whitespace: space, tab, newline, carriage return.
    while (c === 32 || c === 9 || c === 10 || c === 13) {
      c = text.charCodeAt(++i);
    }
    if (c === 34) {
      const digit = text.charCodeAt(i + 1);
      if (digit >= 48 && digit <= 57) {
        out += text.slice(from, i + 1) + "\\u003";
        from = i + 1;
      }
    }
    at = text.indexOf(KEY, i);
  }
  return from === 0 ? text : out + text.slice(from);
}

/**
 * Parses `text` as `JSON.parse` does, to the same value, without interning
 * the digit strings of `resourceVersion` values.
 *
 * @throws {SyntaxError} Exactly what `JSON.parse(text)` throws.
 */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(escapeVersions(text));
  } catch {
    // The escape changes positions in the text: the error should name the
    // caller's own. The escaped text fails exactly when the original does.
    return JSON.parse(text);
  }
}
