/**
 * Aggregation and number formatting shared by the report sections.
 *
 * @module
 */

/** The median, or undefined for no values. */
export function median(values: number[]): number | undefined {
  if (values.length === 0) return undefined;
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** The q-quantile (nearest rank), or undefined for no values. */
export function quantile(values: number[], q: number): number | undefined {
  if (values.length === 0) return undefined;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))];
}

/** What a missing figure prints as. */
export const dash = "–";
/** Milliseconds, with fewer digits as they grow. */
export function ms(v: number | undefined): string {
  if (v === undefined) return dash;
  return v >= 100 ? `${v.toFixed(0)} ms` : `${v.toFixed(v >= 10 ? 1 : 2)} ms`;
}
/** A number with thousands separators. */
export function num(v: number | undefined, digits = 0): string {
  return v === undefined ? dash : v.toLocaleString("en-US", {
    maximumFractionDigits: digits,
    minimumFractionDigits: digits,
  });
}
/** A ratio as `1.23x`. */
export function ratio(v: number | undefined): string {
  return v === undefined || !Number.isFinite(v) ? dash : `${v.toFixed(2)}x`;
}
/** Nanoseconds, in ns, µs or ms. */
export function ns(v: number | undefined): string {
  if (v === undefined) return dash;
  if (v >= 1e6) return `${(v / 1e6).toFixed(2)} ms`;
  if (v >= 1e3) return `${(v / 1e3).toFixed(2)} µs`;
  return `${v.toFixed(0)} ns`;
}
/** An object count as `1k`, `1M`. */
export function size(n: number): string {
  if (n >= 1e6) return `${n / 1e6}M`;
  return n >= 1000 ? `${n / 1000}k` : String(n);
}

/** `a / b`, or undefined when either is missing. */
export function div(a?: number, b?: number): number | undefined {
  return a === undefined || b === undefined ? undefined : a / b;
}
