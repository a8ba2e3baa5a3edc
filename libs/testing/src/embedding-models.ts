import { sql } from 'drizzle-orm';
import { Database, queryRows } from '@loci/db';

/** A tenant's rows by table and the embedder they record (`embedding_model`), with their counts. */
export function embeddingModelsOf(database: Database, tenantId: string) {
  return queryRows<{ table: string; model: string | null; n: number }>(
    database.db,
    sql`SELECT 'chunks' AS "table", embedding_model AS model, count(*)::int AS n FROM chunks WHERE tenant_id = ${tenantId} GROUP BY 2
        UNION ALL SELECT 'entities', embedding_model, count(*)::int FROM entities WHERE tenant_id = ${tenantId} GROUP BY 2
        UNION ALL SELECT 'edges', embedding_model, count(*)::int FROM edges WHERE tenant_id = ${tenantId} GROUP BY 2
        ORDER BY 1, 2`,
  );
}
