import type { KubeObject } from "../types.ts";
import { LabelSelector } from "../selection/label_selector.ts";
import { valueAtPath } from "./_json.ts";
import { badRequest } from "./_status.ts";
import { FakeApiError } from "./fake_api_error.ts";
import type { ResourceInfo } from "./resources.ts";

/** Which objects a list or watch request selects. */
export interface ObjectFilter {
  /** True when every object is selected. */
  readonly everything: boolean;
  matches(obj: KubeObject): boolean;
}

interface FieldTerm {
  path: string;
  negate: boolean;
  value: string;
}

/**
 * Builds the server-side filter of a request from its `labelSelector` and
 * `fieldSelector` parameters. Field selectors support `metadata.name`,
 * `metadata.namespace` and the type's selectable fields with `=`, `==` and
 * `!=`; anything else is a 400, as on a real server.
 */
export function buildFilter(
  info: ResourceInfo,
  labelSelector: string | null,
  fieldSelector: string | null,
): ObjectFilter {
  let labels: LabelSelector | undefined;
  if (labelSelector) {
    try {
      labels = new LabelSelector(labelSelector);
    } catch (err) {
      throw new FakeApiError(
        badRequest(
          `unable to parse requirement: ${(err as Error).message}`,
        ),
      );
    }
    if (labels.isEmpty) labels = undefined;
  }
  const fields = fieldSelector ? parseFieldSelector(info, fieldSelector) : [];
  if (!labels && fields.length === 0) {
    return { everything: true, matches: () => true };
  }
  return {
    everything: false,
    matches(obj: KubeObject): boolean {
      if (labels && !labels.matches(obj.metadata.labels)) return false;
      for (const term of fields) {
        if ((fieldValue(obj, term.path) === term.value) === term.negate) {
          return false;
        }
      }
      return true;
    },
  };
}

function fieldValue(obj: KubeObject, path: string): string {
  if (path === "metadata.name") return obj.metadata.name ?? "";
  if (path === "metadata.namespace") return obj.metadata.namespace ?? "";
  const value = valueAtPath(obj, path);
  if (value === undefined || value === null) return "";
  return typeof value === "string" ? value : JSON.stringify(value);
}

function parseFieldSelector(info: ResourceInfo, selector: string): FieldTerm[] {
  const supported = new Set([
    "metadata.name",
    "metadata.namespace",
    ...info.selectableFields,
  ]);
  const terms: FieldTerm[] = [];
  for (const raw of splitUnescaped(selector)) {
    const term = raw.trim();
    if (term === "") continue;
    const op = findOperator(term);
    if (!op) {
      throw new FakeApiError(
        badRequest(
          `invalid field selector ${JSON.stringify(selector)}: ${
            JSON.stringify(term)
          } is not a valid field selector term (expected key=value, key==value or key!=value)`,
        ),
      );
    }
    const path = term.slice(0, op.index).trim();
    const value = unescape(term.slice(op.index + op.text.length).trim());
    if (!supported.has(path)) {
      throw new FakeApiError(
        badRequest(
          `field label not supported: ${path} (${info.resource} supports ${
            [...supported].join(", ")
          })`,
        ),
      );
    }
    terms.push({ path, negate: op.text === "!=", value });
  }
  return terms;
}

function splitUnescaped(s: string): string[] {
  const parts: string[] = [];
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    if (s[i] === "\\") i++;
    else if (s[i] === ",") {
      parts.push(s.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(s.slice(start));
  return parts;
}

function findOperator(
  term: string,
): { index: number; text: string } | undefined {
  for (let i = 0; i < term.length; i++) {
    if (term[i] === "\\") {
      i++;
      continue;
    }
    for (const text of ["!=", "==", "="]) {
      if (term.startsWith(text, i)) return { index: i, text };
    }
  }
  return undefined;
}

function unescape(value: string): string {
  return value.replace(/\\(.)/g, "$1");
}
