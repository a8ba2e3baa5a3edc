import { ArgumentMetadata, Body, PipeTransform, Query } from '@nestjs/common';
import { ApiBody, ApiQuery } from '@nestjs/swagger';
import { ValidationError } from '@loci/common';
import { z } from 'zod';
import { describeIssues, FieldIssue } from './error-body';
import { unstorableStringIssues } from './text-fields';
import { jsonSchemaOf, openApiSchemaOf } from './openapi-schemas';

/** Handler metadata: the zod schema of a route's query string (the OpenAPI test compares). */
export const VALID_QUERY_SCHEMA = 'loci:valid-query-schema';

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

/** Query-string parameters validated by `schema`; each of its fields is documented as a query parameter. */
export function ValidQuery<S extends z.ZodType>(schema: S): ParameterDecorator {
  return (target, key, index) => {
    Query(new ZodValidationPipe(schema, 'query'))(target, key, index);
    if (key === undefined) return;
    const descriptor = Object.getOwnPropertyDescriptor(target, key)!;
    Reflect.defineMetadata(VALID_QUERY_SCHEMA, schema, descriptor.value);
    const { properties = {}, required = [] } = jsonSchemaOf(schema) as { properties?: Record<string, any>; required?: string[] };
    for (const [name, { description, ...property }] of Object.entries(properties)) {
      ApiQuery({ name, required: required.includes(name), schema: property, ...(description ? { description } : {}) })(target, key, descriptor);
    }
  };
}
