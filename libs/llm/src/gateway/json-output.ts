import { z } from 'zod';
import { coerceToSchema } from './json-coercion';

export type JsonParseResult<T> = { ok: true; value: T } | { ok: false; problem: string };

/**
 * Reads a model's JSON reply. Models wrap JSON in code fences or a sentence of prose now and
 * then; both are tolerated (the gb contract says so). The value must then match `schema`,
 * after its near-misses are mended (`coerceToSchema`).
 */
export function parseModelJson<S extends z.ZodType>(text: string, schema: S): JsonParseResult<z.output<S>> {
  const candidate = extractJsonText(text);
  if (candidate === undefined) return { ok: false, problem: 'the reply contains no JSON object' };
  let parsed: unknown;
  try {
    parsed = JSON.parse(candidate);
  } catch (error) {
    return { ok: false, problem: `the reply is not valid JSON (${(error as Error).message})` };
  }
  const result = coerceToSchema(parsed, schema);
  if (!result.success) {
    return {
      ok: false,
      problem: `the JSON does not match the expected shape: ${result.error.issues
        .slice(0, 5)
        .map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`)
        .join('; ')}`,
    };
  }
  return { ok: true, value: result.data };
}

function extractJsonText(text: string): string | undefined {
  const fenced = text.match(/```(?:json)?\s*([\s\S]*?)```/i);
  const body = (fenced ? fenced[1] : text).trim();
  if (body.startsWith('{') || body.startsWith('[')) return body;
  const start = body.indexOf('{');
  const end = body.lastIndexOf('}');
  return start >= 0 && end > start ? body.slice(start, end + 1) : undefined;
}
