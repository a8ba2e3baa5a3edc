import { ArgumentMetadata, Body, PipeTransform, Query } from '@nestjs/common';
import { ApiBody } from '@nestjs/swagger';
import { ValidationError } from '@loci/common';
import { z } from 'zod';
import { describeIssues, FieldIssue } from './error-body';
import { unstorableStringIssues } from './text-fields';

/** Maps zod issues to FastAPI-style field issues located in `where` (body, query, path). */
export function toFieldIssues(error: z.ZodError, where: string): FieldIssue[] {
  return error.issues.flatMap((issue): FieldIssue[] => {
    const loc = [where, ...issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p))];
    // One issue per unknown field, located at the field, as FastAPI reports `extra_forbidden`.
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({ loc: [...loc, key], msg: 'unknown field', type: 'extra_forbidden' }));
    }
    return [{ loc, msg: issue.message, type: issue.code }];
  });
}

export class ZodValidationPipe<S extends z.ZodType> implements PipeTransform<unknown, z.output<S>> {
  constructor(
    private readonly schema: S,
    private readonly where: 'body' | 'query' = 'body',
  ) {}

  transform(value: unknown, _metadata: ArgumentMetadata): z.output<S> {
    const result = this.schema.safeParse(value);
    const issues = result.success ? unstorableStringIssues(result.data, this.where, 'custom') : toFieldIssues(result.error, this.where);
    if (issues.length === 0) return result.data as z.output<S>;
    throw new ValidationError(describeIssues(issues), issues);
  }
}

/** OpenAPI 3.0 schema of a zod schema, for @ApiBody / @ApiResponse. */
export function openApiSchemaOf(schema: z.ZodType, io: 'input' | 'output' = 'input'): Record<string, any> {
  const { $schema: _ignored, ...jsonSchema } = z.toJSONSchema(schema, {
    target: 'openapi-3.0',
    io,
    unrepresentable: 'any',
  }) as Record<string, any>;
  return jsonSchema;
}

/** A request body validated by `schema`; the same schema documents it in OpenAPI. */
export function ValidBody<S extends z.ZodType>(schema: S): ParameterDecorator {
  return (target, key, index) => {
    Body(new ZodValidationPipe(schema))(target, key, index);
    if (key !== undefined) {
      const descriptor = Object.getOwnPropertyDescriptor(target, key)!;
      ApiBody({ schema: openApiSchemaOf(schema) })(target, key, descriptor);
    }
  };
}

/** Query-string parameters validated by `schema`. */
export function ValidQuery<S extends z.ZodType>(schema: S): ParameterDecorator {
  return Query(new ZodValidationPipe(schema, 'query'));
}
