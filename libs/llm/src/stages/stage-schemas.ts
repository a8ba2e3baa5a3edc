import { z } from 'zod';

/** What an LLM must reply at each stage (the JSON its prompt asks for), checked on arrival. */

const isoInstantOrNull = z
  .string()
  .nullable()
  .optional()
  .transform((value) => {
    if (!value) return null;
    const time = Date.parse(value);
    return Number.isNaN(time) ? null : new Date(time).toISOString();
  });

export const extractionSchema = z.object({
  entities: z
    .array(
      z.object({
        name: z.string().trim().min(1).max(200),
        type: z.string().trim().min(1).max(50).transform((t) => t.toLowerCase()),
        description: z.string().max(2000).default(''),
      }),
    )
    .max(200),
  relations: z
    .array(
      z.object({
        source: z.string().trim().min(1).max(200),
        target: z.string().trim().min(1).max(200),
        relation: z.string().trim().min(1).max(100),
        description: z.string().max(2000).default(''),
        keywords: z.array(z.string().max(100)).max(20).default([]),
        valid_at: isoInstantOrNull,
        invalid_at: isoInstantOrNull,
      }),
    )
    .max(300)
    // A text that states no fact: models leave the list out as often as they send it empty.
    .default([]),
});

export const keywordsSchema = z.object({
  high_level: z.array(z.string().trim().min(1).max(200)).max(20),
  low_level: z.array(z.string().trim().min(1).max(200)).max(30),
});

export const summarySchema = z.object({ summary: z.string().trim().min(1).max(4000) });

export const answerSchema = z.object({
  answer: z.string(),
  cited: z.array(z.union([z.string(), z.number()]).transform(String)).max(100).default([]),
});

export const placesSchema = z.object({
  places: z.array(z.string().trim().max(200)).max(50).default([]).transform((places) => places.filter((p) => p.length > 0)),
});
