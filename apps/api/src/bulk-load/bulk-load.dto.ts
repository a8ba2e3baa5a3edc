import { z } from 'zod';
import { OWN_VECTORS_STATES } from '@loci/db';
import { named } from '@loci/http';
import type { BulkLoadStatus } from '@loci/ingest';

/** The tenant graph's bulk load (docs/decisions/0029-bulk-mode.md, "Bulk mode: a graph's own HNSW tier"). */
export const bulkLoadResponse = z.object({
  state: z
    .enum(['none', ...OWN_VECTORS_STATES])
    .describe(
      'none: no bulk load; loading: documents uploaded now are loaded without upkeep of shared indexes; indexing: the load ended and the graph\'s own indexes are being built; indexed: they are built',
    ),
  started_at: z.string().nullable().describe('When the bulk load began (ISO-8601), null if there never was one.'),
});

export function toBulkLoadResponse(status: BulkLoadStatus): z.infer<typeof bulkLoadResponse> {
  return { state: status.state, started_at: status.startedAt ? status.startedAt.toISOString() : null };
}

named('BulkLoad', bulkLoadResponse);
