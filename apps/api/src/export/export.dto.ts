import { z } from 'zod';
import { refTo } from '@loci/http';

export const exportQuery = z.strictObject({
  vectors: z
    .enum(['true', 'false'])
    .default('false')
    .transform((value) => value === 'true')
    .describe("Include the rows' vectors (1024 numbers each, specific to the embedder that made them)."),
});

export const EXPORT_DESCRIPTION =
  'JSON Lines (application/x-ndjson), one record per line with a `type`: `export` (header), `graph`, `document`, ' +
  '`chunk`, `entity`, `edge`, `entity_document`, `edge_document`, `entity_chunk`, `edge_chunk`, `usage` (one model ' +
  'call of the ledger, cost in integer micro-dollars), `request` (one question: route, status, steps), then `end` ' +
  'with the count of each type. No `end` line: the export was cut short.';

/** The body: JSON Lines, read line by line (no single JSON value). */
export const EXPORT_LINES = refTo('ExportLines', {
  type: 'string',
  description: 'JSON Lines: one JSON object per line, each with a `type` (see the operation).',
});
