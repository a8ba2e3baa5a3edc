import { z } from 'zod';
import { freeText } from '@loci/http';
import { datasetField, modelsField, QUERY_STAGES, reasoningField, sessionIdField, userIdField } from './gb-request';

/** The radius of the earth's half circumference: the contract's upper bound of geo_radius_km. */
const MAX_GEO_RADIUS_KM = 20015;

/**
 * The body of POST /v1/gb/query. Geo is not part of this server yet, so a request that turns
 * it on (geo_nearby: true or geo_radius_km) is answered 400, as the contract says for a server
 * without geo; the radius is checked first so a client learns about a bad value too.
 */
export const gbQueryBody = z
  .object({
    user_id: userIdField,
    query: freeText({ error: 'query is required and must be a string' }).refine((q) => q.trim().length > 0, 'query must not be empty'),
    dataset: datasetField,
    session_id: sessionIdField,
    reasoning: reasoningField(QUERY_STAGES, 'query'),
    models: modelsField(QUERY_STAGES),
    geo_nearby: z.boolean({ error: 'geo_nearby must be a boolean' }).optional(),
    geo_radius_km: z
      .number({ error: 'geo_radius_km must be a number' })
      .refine((km) => km > 0 && km <= MAX_GEO_RADIUS_KM, `geo_radius_km must be greater than 0 and at most ${MAX_GEO_RADIUS_KM}`)
      .optional(),
  })
  .superRefine((body, ctx) => {
    if (body.geo_radius_km !== undefined && body.geo_nearby === false) {
      ctx.addIssue({ code: 'custom', message: 'geo_radius_km turns the nearby search on: it cannot be given with geo_nearby: false' });
    } else if (body.geo_nearby === true || body.geo_radius_km !== undefined) {
      ctx.addIssue({ code: 'custom', message: 'geo is not enabled on this server' });
    }
  });

export type GbQueryBody = z.output<typeof gbQueryBody>;
