import { z } from 'zod';
import { MAX_GEO_RADIUS_KM } from '@loci/geo';
import { freeText, named, QUESTION_MAX_CHARS } from '@loci/http';
import { asOfField, datasetField, includeHistoryField, knownAtField, modelsField, QUERY_STAGES, reasoningField, sessionIdField, userIdField } from './gb-request';

/**
 * The body of POST /v1/gb/query. Whether geo is on is the server's to say (`nearbySearchOf`,
 * after this schema): the radius is checked here first, so a client learns about a bad value
 * even from a server without geo.
 */
export const gbQueryBody = z
  .object({
    user_id: userIdField,
    query: freeText({ error: 'query is required and must be a string' })
      .max(QUESTION_MAX_CHARS, `query must be at most ${QUESTION_MAX_CHARS} characters`)
      .refine((q) => q.trim().length > 0, 'query must not be empty'),
    dataset: datasetField,
    session_id: sessionIdField,
    reasoning: reasoningField(QUERY_STAGES, 'query'),
    models: modelsField(QUERY_STAGES),
    as_of: asOfField,
    known_at: knownAtField,
    include_history: includeHistoryField,
    geo_nearby: z.boolean({ error: 'geo_nearby must be a boolean' }).optional(),
    geo_radius_km: z
      .number({ error: 'geo_radius_km must be a number' })
      .refine((km) => km > 0 && km <= MAX_GEO_RADIUS_KM, `geo_radius_km must be greater than 0 and at most ${MAX_GEO_RADIUS_KM}`)
      .optional(),
  })
  .superRefine((body, ctx) => {
    if (body.geo_radius_km !== undefined && body.geo_nearby === false) {
      ctx.addIssue({ code: 'custom', message: 'geo_radius_km turns the nearby search on: it cannot be given with geo_nearby: false' });
    }
  });

export type GbQueryBody = z.output<typeof gbQueryBody>;

// OpenAPI component names: the types of the generated client (packages/client).
named('GbQueryRequest', gbQueryBody);
