import { z } from 'zod';
import type { OutputSchema, Stage } from '../model.types';

const cache = new WeakMap<z.ZodType, Map<Stage, OutputSchema>>();

/**
 * The JSON Schema a provider is given for a stage's reply, from the zod schema that checks the
 * reply (one description of each shape, not two). It is the schema's *input* side: what the
 * model may send before defaults and transforms apply, so optional fields stay optional.
 */
export function outputSchemaFor(stage: Stage, schema: z.ZodType): OutputSchema {
  let byStage = cache.get(schema);
  if (!byStage) {
    byStage = new Map();
    cache.set(schema, byStage);
  }
  let output = byStage.get(stage);
  if (!output) {
    // `$schema` names the draft; Anthropic's input_schema and OpenAI's schema need no more.
    const { $schema: _draft, ...json } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
    output = { name: `${stage}_reply`, description: `Record the ${stage} stage's reply in this shape.`, schema: json };
    byStage.set(stage, output);
  }
  return output;
}
