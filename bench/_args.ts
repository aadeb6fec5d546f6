/**
 * The options of a bench script's command line.
 *
 * @module
 */

/**
 * The value after `name` in `args`, or `fallback` where `name` is not
 * there. Both are taken out of `args`, so that what is left in the end are
 * the script's other arguments (a list of trees, flags).
 */
export function takeOption(
  args: string[],
  name: string,
  fallback: string,
): string;
export function takeOption(
  args: string[],
  name: string,
  fallback?: string,
): string | undefined;
export function takeOption(
  args: string[],
  name: string,
  fallback?: string,
): string | undefined {
  const i = args.indexOf(name);
  if (i < 0) return fallback;
  const [, value] = args.splice(i, 2);
  return value;
}

/** Whether `name` is in `args`; it is taken out, as {@linkcode takeOption} does. */
export function takeFlag(args: string[], name: string): boolean {
  const i = args.indexOf(name);
  if (i >= 0) args.splice(i, 1);
  return i >= 0;
}
