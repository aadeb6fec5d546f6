/** Structural equality of JSON values; object key order does not matter. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (
    typeof a !== "object" || typeof b !== "object" || a === null || b === null
  ) {
    return false;
  }
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) {
      if (!jsonEqual(a[i], b[i])) return false;
    }
    return true;
  }
  if (Array.isArray(b)) return false;
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  let count = 0;
  for (const key in ao) {
    if (!Object.hasOwn(ao, key)) continue;
    if (ao[key] === undefined) continue;
    count++;
    if (!Object.hasOwn(bo, key) || !jsonEqual(ao[key], bo[key])) return false;
  }
  for (const key in bo) {
    if (Object.hasOwn(bo, key) && bo[key] !== undefined) count--;
  }
  return count === 0;
}

/** Whether a value is a plain JSON object (not null, not an array). */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Applies a JSON merge patch (RFC 7386): objects merge recursively, `null`
 * removes a field, anything else replaces. Returns a new value; neither
 * input is modified.
 */
export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (!isJsonObject(patch)) return structuredClone(patch);
  const result: Record<string, unknown> = isJsonObject(target)
    ? { ...target }
    : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = applyMergePatch(result[key], value);
  }
  return result;
}

/** The value at a dotted path (`status.phase`), or undefined. */
export function valueAtPath(obj: unknown, path: string): unknown {
  let current: unknown = obj;
  for (const part of path.split(".")) {
    if (!isJsonObject(current)) return undefined;
    current = Object.hasOwn(current, part) ? current[part] : undefined;
  }
  return current;
}

/** A JSON patch (RFC 6902) that cannot be applied. */
export class JsonPatchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "JsonPatchError";
  }
}

/**
 * Applies a JSON patch (RFC 6902) to a deep copy of `doc`: `add`, `remove`,
 * `replace`, `move`, `copy` and `test`.
 */
export function applyJsonPatch(doc: unknown, ops: unknown): unknown {
  if (!Array.isArray(ops)) {
    throw new JsonPatchError("a JSON patch must be an array of operations");
  }
  let root = structuredClone(doc);
  for (const [index, op] of ops.entries()) {
    if (
      !isJsonObject(op) || typeof op.op !== "string" ||
      typeof op.path !== "string"
    ) {
      throw new JsonPatchError(`operation ${index} needs "op" and "path"`);
    }
    const path = parsePointer(op.path);
    switch (op.op) {
      case "add":
        root = put(root, path, structuredClone(op.value), true);
        break;
      case "remove":
        root = take(root, path).root;
        break;
      case "replace":
        get(root, path);
        root = put(root, path, structuredClone(op.value), false);
        break;
      case "move": {
        const from = parsePointer(String(op.from));
        const taken = take(root, from);
        root = put(taken.root, path, taken.value, true);
        break;
      }
      case "copy":
        root = put(
          root,
          path,
          structuredClone(get(root, parsePointer(String(op.from)))),
          true,
        );
        break;
      case "test":
        if (!jsonEqual(get(root, path), op.value)) {
          throw new JsonPatchError(
            `test operation ${index} failed at ${op.path}`,
          );
        }
        break;
      default:
        throw new JsonPatchError(`unknown operation ${JSON.stringify(op.op)}`);
    }
  }
  return root;
}

function parsePointer(pointer: string): string[] {
  if (pointer === "") return [];
  if (!pointer.startsWith("/")) {
    throw new JsonPatchError(`invalid JSON pointer ${JSON.stringify(pointer)}`);
  }
  return pointer.slice(1).split("/").map((p) =>
    p.replace(/~1/g, "/").replace(/~0/g, "~")
  );
}

function container(root: unknown, path: string[]): unknown {
  let current = root;
  for (const part of path.slice(0, -1)) {
    current = child(current, part);
  }
  return current;
}

function child(value: unknown, part: string): unknown {
  if (Array.isArray(value)) {
    const i = Number(part);
    if (!Number.isInteger(i) || i < 0 || i >= value.length) {
      throw new JsonPatchError(`no array element ${part}`);
    }
    return value[i];
  }
  if (isJsonObject(value) && Object.hasOwn(value, part)) return value[part];
  throw new JsonPatchError(`no field ${JSON.stringify(part)}`);
}

function get(root: unknown, path: string[]): unknown {
  let current = root;
  for (const part of path) current = child(current, part);
  return current;
}

function put(
  root: unknown,
  path: string[],
  value: unknown,
  insert: boolean,
): unknown {
  if (path.length === 0) return value;
  const parent = container(root, path);
  const last = path[path.length - 1];
  if (Array.isArray(parent)) {
    const i = last === "-" ? parent.length : Number(last);
    if (
      !Number.isInteger(i) || i < 0 || i > parent.length ||
      (!insert && i === parent.length)
    ) {
      throw new JsonPatchError(`no array position ${last}`);
    }
    if (insert) parent.splice(i, 0, value);
    else parent[i] = value;
  } else if (isJsonObject(parent)) {
    parent[last] = value;
  } else {
    throw new JsonPatchError(
      `cannot set ${JSON.stringify(last)} on a non-container`,
    );
  }
  return root;
}

function take(
  root: unknown,
  path: string[],
): { root: unknown; value: unknown } {
  if (path.length === 0) {
    throw new JsonPatchError("cannot remove the whole document");
  }
  const value = get(root, path);
  const parent = container(root, path);
  const last = path[path.length - 1];
  if (Array.isArray(parent)) parent.splice(Number(last), 1);
  else delete (parent as Record<string, unknown>)[last];
  return { root, value };
}
