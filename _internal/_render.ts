/**
 * Renders a JSON value as an index key or field-selector operand: strings
 * as-is, numbers via `String` (so integers have no fractional part), booleans
 * as `true`/`false`, objects and arrays as JSON. `null` and `undefined` (a
 * missing field) give `undefined`.
 */
export function renderValue(value: unknown): string | undefined {
  switch (typeof value) {
    case "string":
      return value;
    case "number":
    case "bigint":
      return String(value);
    case "boolean":
      return value ? "true" : "false";
    case "object":
      return value === null ? undefined : JSON.stringify(value);
    default:
      return undefined;
  }
}
