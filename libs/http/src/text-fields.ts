import { z } from 'zod';
import { hasControlCharacters, hasUnstorableCharacters, toStorableText } from '@loci/common';
import { FieldIssue } from './error-body';

/**
 * The per-field policy for strings (docs/decisions/0015-strings-per-field.md, "Strings"): identifiers and names are
 * refused when they carry control characters, NUL or unpaired surrogates; free text has NULs
 * removed and unpaired surrogates replaced; whatever a schema forgot, the validation pipes
 * refuse before PostgreSQL would (`unstorableStringIssues`).
 */

const PLAIN_NAME_MESSAGE = 'must not contain control characters, NUL or unpaired surrogates';

/**
 * An identifier or a name (email, tenant, key, document, user_id, a secret): refused with a
 * message naming `label` when given (the gb dialect's messages name their field themselves).
 */
export function plainName<S extends z.ZodString>(schema: S, label?: string): S {
  return schema.refine((value) => !hasControlCharacters(value) && !hasUnstorableCharacters(value), {
    message: label ? `${label} ${PLAIN_NAME_MESSAGE}` : PLAIN_NAME_MESSAGE,
  });
}

/** Free text (a document, a remembered text, a question): made storable before the checks that follow. */
export function freeText(params?: Parameters<typeof z.string>[0]) {
  return z.string(params).overwrite(toStorableText);
}

/** Where a string (or a key) of a validated value still holds something PostgreSQL would refuse. */
export function unstorableStringIssues(value: unknown, where: string, type = 'value_error'): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const pending: Array<{ value: unknown; path: (string | number)[] }> = [{ value, path: [] }];
  while (pending.length > 0) {
    const { value: current, path } = pending.pop()!;
    if (typeof current === 'string') {
      if (hasUnstorableCharacters(current)) {
        const field = path.join('.') || where;
        issues.push({ loc: [where, ...path], msg: `${field} must not contain NUL or unpaired surrogates`, type });
      }
    } else if (Array.isArray(current)) {
      current.forEach((item, index) => pending.push({ value: item, path: [...path, index] }));
    } else if (current !== null && typeof current === 'object' && !(current instanceof Date)) {
      for (const [key, inner] of Object.entries(current)) {
        if (hasUnstorableCharacters(key)) {
          issues.push({ loc: [where, ...path, key], msg: `field names must not contain NUL or unpaired surrogates`, type });
        } else {
          pending.push({ value: inner, path: [...path, key] });
        }
      }
    }
  }
  return issues;
}
