import type { JsonPathSegment } from "./jsonpath.ts";

/**
 * A trie of paths to remove. Merging every ignored path into one trie lets
 * one walk copy each shared ancestor (say `metadata`) once, not once per path.
 * Children live in parallel arrays, not Maps, so a walk allocates nothing
 * until it finds something to remove.
 */
export interface PruneNode {
  /** The value reached here is removed; children are then irrelevant. */
  remove: boolean;
  keyNames: string[];
  keyNodes: PruneNode[];
  indexes: number[];
  indexNodes: PruneNode[];
  wildcard: PruneNode | undefined;
}

function node(): PruneNode {
  return {
    remove: false,
    keyNames: [],
    keyNodes: [],
    indexes: [],
    indexNodes: [],
    wildcard: undefined,
  };
}

/** Builds the trie; `undefined` when there is nothing to remove. */
export function buildPruneTrie(
  paths: readonly (readonly JsonPathSegment[])[],
): PruneNode | undefined {
  if (paths.length === 0) return undefined;
  const root = node();
  for (const segments of paths) {
    let cur = root;
    for (const seg of segments) {
      if (seg.kind === "wildcard") {
        cur = cur.wildcard ??= node();
      } else if (seg.kind === "key") {
        let at = cur.keyNames.indexOf(seg.key);
        if (at < 0) at = cur.keyNames.push(seg.key) - 1;
        cur = cur.keyNodes[at] ??= node();
      } else {
        let at = cur.indexes.indexOf(seg.index);
        if (at < 0) at = cur.indexes.push(seg.index) - 1;
        cur = cur.indexNodes[at] ??= node();
      }
    }
    cur.remove = true;
  }
  return root;
}

/** Marks a removed entry in a change list. */
const REMOVED: unique symbol = Symbol("removed");

/**
 * Returns `value` without what the trie marks, copying only the containers
 * on the way to a removal. Returns `value` itself when nothing matched.
 */
export function prune(trie: PruneNode, value: unknown): unknown {
  if (value === null || typeof value !== "object") return value;
  return Array.isArray(value)
    ? pruneArray(trie, value)
    : pruneObject(trie, value as Record<string, unknown>);
}

/** The new value of one entry under `child`, or `REMOVED`. */
function apply(child: PruneNode, current: unknown): unknown {
  return child.remove ? REMOVED : prune(child, current);
}

/** Pending changes to one container: parallel lists, usually of length 1. */
interface Changes<K> {
  at: K[];
  to: unknown[];
}

function record<K>(
  changes: Changes<K> | undefined,
  at: K,
  to: unknown,
): Changes<K> {
  if (changes === undefined) return { at: [at], to: [to] };
  const i = changes.at.indexOf(at);
  if (i < 0) {
    changes.at.push(at);
    changes.to.push(to);
  } else {
    changes.to[i] = to;
  }
  return changes;
}

function current<K>(
  changes: Changes<K> | undefined,
  at: K,
  original: unknown,
): unknown {
  if (changes === undefined) return original;
  const i = changes.at.indexOf(at);
  return i < 0 ? original : changes.to[i];
}

function pruneObject(
  trie: PruneNode,
  obj: Record<string, unknown>,
): Record<string, unknown> {
  let changes: Changes<string> | undefined;
  const { keyNames, keyNodes } = trie;
  for (let k = 0; k < keyNames.length; k++) {
    const key = keyNames[k];
    if (!Object.hasOwn(obj, key)) continue;
    const cur = obj[key];
    const next = apply(keyNodes[k], cur);
    if (next !== cur) changes = record(changes, key, next);
  }
  const wildcard = trie.wildcard;
  if (wildcard !== undefined) {
    for (const key of Object.keys(obj)) {
      const cur = current(changes, key, obj[key]);
      if (cur === REMOVED) continue;
      const next = apply(wildcard, cur);
      if (next !== cur) changes = record(changes, key, next);
    }
  }
  if (changes === undefined) return obj;
  // Rebuilding (rather than spreading and deleting) keeps key order and
  // keeps the copy out of slow dictionary mode.
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(obj)) {
    const v = current(changes, key, obj[key]);
    if (v === REMOVED) continue;
    if (key === "__proto__") {
      Object.defineProperty(out, key, {
        value: v,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    } else {
      out[key] = v;
    }
  }
  return out;
}

function pruneArray(trie: PruneNode, arr: unknown[]): unknown[] {
  let changes: Changes<number> | undefined;
  const { indexes, indexNodes } = trie;
  for (let k = 0; k < indexes.length; k++) {
    const index = indexes[k];
    if (index >= arr.length) continue;
    const cur = arr[index];
    const next = apply(indexNodes[k], cur);
    if (next !== cur) changes = record(changes, index, next);
  }
  const wildcard = trie.wildcard;
  if (wildcard !== undefined) {
    for (let i = 0; i < arr.length; i++) {
      const cur = current(changes, i, arr[i]);
      if (cur === REMOVED) continue;
      const next = apply(wildcard, cur);
      if (next !== cur) changes = record(changes, i, next);
    }
  }
  if (changes === undefined) return arr;
  const out: unknown[] = [];
  for (let i = 0; i < arr.length; i++) {
    const v = current(changes, i, arr[i]);
    if (v !== REMOVED) out.push(v);
  }
  return out;
}

/**
 * Whether two paths can reach the same value, or `prefix` can reach an
 * ancestor of what `path` reaches (so removing `prefix` loses `path`).
 */
export function mayCover(
  prefix: readonly JsonPathSegment[],
  path: readonly JsonPathSegment[],
): boolean {
  if (prefix.length > path.length) return false;
  for (let i = 0; i < prefix.length; i++) {
    const a = prefix[i];
    const b = path[i];
    if (a.kind === "wildcard" || b.kind === "wildcard") continue;
    if (a.kind === "key" && b.kind === "key" && a.key === b.key) continue;
    if (a.kind === "index" && b.kind === "index" && a.index === b.index) {
      continue;
    }
    return false;
  }
  return true;
}
