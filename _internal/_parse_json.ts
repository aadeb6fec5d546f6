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
