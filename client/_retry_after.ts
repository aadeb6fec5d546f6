/**
 * Parses a `Retry-After` header: delay seconds, or an HTTP date (seconds from
 * `now`, never negative). Undefined when it is neither.
 */
export function parseRetryAfter(
  value: string,
  now: number = Date.now(),
): number | undefined {
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  // Only IMF dates: V8's Date.parse guesses a date from almost anything.
  if (!trimmed.endsWith("GMT")) return undefined;
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, Math.ceil((at - now) / 1000));
}
