import type { Client, Pool } from 'pg';
import type { VectorTier } from '@loci/db';

/**
 * Where the benchmarked graph keeps its searched vectors (graphs.own_vectors): the floor and
 * EXPLAIN send the statements the API would, and the API reads the tier on every question, so
 * a graph bulk-loaded into its own tier is searched there (docs/decisions/0029-bulk-mode.md, "Bulk mode").
 */
export async function graphTier(db: Client | Pool, tenantId: string, graphId: number): Promise<VectorTier> {
  const { rows } = await db.query<{ own_vectors: string | null }>('SELECT own_vectors FROM graphs WHERE tenant_id = $1 AND id = $2', [tenantId, graphId]);
  return rows[0]?.own_vectors ? 'own' : 'shared';
}
