import type { z } from 'zod';

/** Rounds of repair: each fixes every near-miss the schema reported; nested ones need a few. */
const MAX_ROUNDS = 4;

/**
 * Validates a model's parsed JSON against `schema`, first mending the near-misses models make
 * all the time instead of failing the call (a retry costs a second call and often repeats the
 * slip, since the prompts' own wording invites it):
 * - a string where a list is expected → its comma- or semicolon-separated items
 *   (`"keywords": "employment"` → `["employment"]`);
 * - `null` for a field → the field left out, so its default applies (`"description": null`);
 * - a number or boolean where a string is expected → its text.
 * Anything else (a missing required field, an object where a list belongs, a wrong enum) is
 * still a failure, reported with zod's issues.
 */
export function coerceToSchema<S extends z.ZodType>(value: unknown, schema: S): z.ZodSafeParseResult<z.output<S>> {
  let candidate = value;
  let result = schema.safeParse(candidate);
  for (let round = 0; round < MAX_ROUNDS && !result.success; round++) {
    const mended = mendIssues(candidate, result.error.issues);
    if (mended === undefined) break;
    candidate = mended;
    result = schema.safeParse(candidate);
  }
  return result;
}

/** A copy of `value` with every mendable issue mended, or undefined when none was. */
function mendIssues(value: unknown, issues: z.core.$ZodIssue[]): unknown {
  const copy = structuredClone(value);
  let changed = false;
  for (const issue of issues) {
    if (issue.code !== 'invalid_type' || issue.path.length === 0) continue;
    const parent = at(copy, issue.path.slice(0, -1));
    const key = issue.path[issue.path.length - 1];
    if (parent === null || typeof parent !== 'object' || typeof key === 'symbol') continue;
    const record = parent as Record<string | number, unknown>;
    const current = record[key];
    const mended = mend(current, issue.expected);
    if (mended === KEEP) continue;
    if (mended === undefined) {
      if (!(key in record)) continue;
      delete record[key];
    } else {
      record[key] = mended;
    }
    changed = true;
  }
  return changed ? copy : undefined;
}

const KEEP = Symbol('keep');

function mend(current: unknown, expected: string): unknown {
  if (current === null) return undefined;
  if (expected === 'array' && typeof current === 'string') return splitList(current);
  if (expected === 'string' && (typeof current === 'number' || typeof current === 'boolean')) return String(current);
  return KEEP;
}

function splitList(text: string): string[] {
  return text
    .split(/[,;]/)
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

function at(value: unknown, path: PropertyKey[]): unknown {
  let node = value;
  for (const key of path) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<PropertyKey, unknown>)[key];
  }
  return node;
}
