import { z } from 'zod';

/**
 * Named OpenAPI components from zod schemas. A schema is named once, where it is defined
 * (`named('Tenant', z.object(...))`); every decorator that documents it then writes a `$ref`,
 * and the document builder adds the collected components. Named components are what a client
 * generator turns into named types (packages/client), so an unnamed request or response schema
 * fails the OpenAPI test.
 */
const names = new WeakMap<z.ZodType, string>();
const components = new Map<string, { io: 'input' | 'output'; schema: Record<string, unknown> }>();

export function named<S extends z.ZodType>(name: string, schema: S): S {
  const earlier = names.get(schema);
  if (earlier && earlier !== name) throw new Error(`schema already named ${earlier}, not ${name}`);
  names.set(schema, name);
  return schema;
}

/** JSON Schema (OpenAPI 3.0 dialect) of a zod schema, inlined. */
export function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output' = 'input'): Record<string, any> {
  const { $schema: _ignored, ...jsonSchema } = z.toJSONSchema(schema, {
    target: 'openapi-3.0',
    io,
    unrepresentable: 'any',
  }) as Record<string, any>;
  return jsonSchema;
}

/**
 * OpenAPI schema of a zod schema for @ApiBody / @ApiResponse: a `$ref` to its component when
 * it is named, else inline. One name is one schema: the same name registered as the input side
 * of one schema and the output side of another (which differ: defaults, transforms) is refused.
 */
export function openApiSchemaOf(schema: z.ZodType, io: 'input' | 'output' = 'input'): Record<string, any> {
  const name = names.get(schema);
  if (!name) return jsonSchemaOf(schema, io);
  return refTo(name, jsonSchemaOf(schema, io), io);
}

/** Registers a component given as JSON Schema (the error shapes, multipart forms, JSON-RPC). */
export function refTo(name: string, schema: Record<string, unknown>, io: 'input' | 'output' = 'output'): { $ref: string } {
  const earlier = components.get(name);
  if (earlier && JSON.stringify(earlier.schema) !== JSON.stringify(schema)) {
    throw new Error(`OpenAPI component ${name} registered twice with different schemas (${earlier.io} and ${io})`);
  }
  components.set(name, { io, schema });
  return { $ref: `#/components/schemas/${name}` };
}

/** Every component registered so far (decorators run at import, so: every documented one). */
export function openApiComponents(): Record<string, Record<string, unknown>> {
  return Object.fromEntries([...components].map(([name, { schema }]) => [name, schema]));
}
