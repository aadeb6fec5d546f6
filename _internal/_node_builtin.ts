/**
 * Loading a Node built-in module at run time, not at the top level (so Deno
 * never loads one it is not asked for): the client's transport and files,
 * and the test kit's listener, use it.
 *
 * @module
 */

/** A Node built-in module (also on Bun, and on Deno when asked for). */
export function nodeBuiltin<T>(id: string): T {
  const process = (globalThis as {
    process?: { getBuiltinModule?: (id: string) => unknown };
  }).process;
  const load = process?.getBuiltinModule;
  if (typeof load !== "function") {
    throw new Error(
      `This runtime has neither Deno nor process.getBuiltinModule (Node 22.3 or later, Bun) to load ${id}`,
    );
  }
  return load(id) as T;
}
