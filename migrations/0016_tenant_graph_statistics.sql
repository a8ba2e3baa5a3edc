-- A graph belongs to one tenant, but the planner multiplies the selectivities of `tenant_id = …`
-- and `graph_id = …` as if they were independent: among many tenants it expects a large graph
-- to hold a tiny fraction of its rows (a square of its share), and then prefers reading the
-- graph's rows and sorting them exactly to an HNSW scan that stops after k. Functional
-- dependency statistics let it take the graph's own share (its MCV entry) for the pair.
CREATE STATISTICS IF NOT EXISTS "chunks_tenant_graph_stats" (dependencies) ON "tenant_id", "graph_id" FROM "chunks";--> statement-breakpoint
CREATE STATISTICS IF NOT EXISTS "entities_tenant_graph_stats" (dependencies) ON "tenant_id", "graph_id" FROM "entities";--> statement-breakpoint
CREATE STATISTICS IF NOT EXISTS "edges_tenant_graph_stats" (dependencies) ON "tenant_id", "graph_id" FROM "edges";--> statement-breakpoint
CREATE STATISTICS IF NOT EXISTS "documents_tenant_graph_stats" (dependencies) ON "tenant_id", "graph_id" FROM "documents";--> statement-breakpoint
CREATE STATISTICS IF NOT EXISTS "chunk_terms_tenant_graph_stats" (dependencies) ON "tenant_id", "graph_id" FROM "chunk_terms";--> statement-breakpoint
-- Built by the next ANALYZE: now, so a large store does not plan on the old estimates until
-- autovacuum or the statistics keeper gets to each table (ANALYZE samples; it blocks no reads
-- or writes).
ANALYZE "chunks", "entities", "edges", "documents", "chunk_terms";
