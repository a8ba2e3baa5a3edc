import { PipeTransform } from '@nestjs/common';
import { ValidationError } from '@loci/common';
import { z } from 'zod';
import { describeIssues, FieldIssue } from './error-body';
import { unstorableStringIssues } from './text-fields';

/** FastAPI's (pydantic's) error types for zod's issues. */
function fastApiType(issue: z.core.$ZodIssue): string {
  if (issue.message === 'Field required') return 'missing';
  switch (issue.code) {
    case 'invalid_type': {
      const expected = (issue as { expected?: string }).expected;
      return expected === 'string'
        ? 'string_type'
        : expected === 'boolean'
          ? 'bool_type'
          : expected === 'array'
            ? 'list_type'
            : expected === 'object'
              ? 'model_attributes_type'
              : 'type_error';
    }
    case 'invalid_value':
      return 'literal_error';
    case 'too_big': {
      const origin = (issue as { origin?: string }).origin;
      return origin === 'string' ? 'string_too_long' : origin === 'array' ? 'too_long' : 'value_error';
    }
    case 'invalid_format':
      // pydantic's type for a string that is not a date-time (as_of).
      return (issue as { format?: string }).format === 'datetime' ? 'datetime_from_date_parsing' : 'value_error';
    default:
      return 'value_error';
  }
}

/**
 * Validates a body for a FastAPI-compatible route: issues become FastAPI's
 * `{loc: ["body", ...], msg, type}` with pydantic's type names.
 */
export class FastApiValidationPipe<S extends z.ZodType> implements PipeTransform<unknown, z.output<S>> {
  constructor(private readonly schema: S) {}

  transform(value: unknown): z.output<S> {
    const result = this.schema.safeParse(value ?? undefined);
    if (result.success) {
      const unstorable = unstorableStringIssues(result.data, 'body').map((issue) => ({ ...issue, msg: `Value error, ${issue.msg}` }));
      if (unstorable.length === 0) return result.data;
      throw new ValidationError(describeIssues(unstorable), unstorable);
    }
    const issues: FieldIssue[] = result.error.issues.map((issue) => ({
      loc: ['body', ...issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p))],
      msg: issue.message,
      type: fastApiType(issue),
    }));
    throw new ValidationError(describeIssues(issues), issues);
  }
}
