-- Bulk mode: a graph's own search vectors (docs/DECISIONS.md, "Bulk mode: a graph's own HNSW
-- tier"). A graph in bulk mode writes its search vectors to the own_* columns, which no shared
-- HNSW index covers, so a first load of a large corpus pays no insertion into the indexes every
-- tenant shares; when the load ends the graph gets HNSW indexes of its own, built once
-- (CREATE INDEX CONCURRENTLY … WHERE graph_id = G, by the worker, never here). Entity names
-- keep their shared vectors: resolution searches them on every chunk of a load.
-- Adding nullable columns without a default only changes the catalog: no table is rewritten
-- and no index rebuilt, on a store of any size. The columns have the store's vector type, as
-- the shared ones do (0020).
DO $$
DECLARE
  element constant text := CASE WHEN version() LIKE '%PGlite%' THEN 'vector' ELSE 'halfvec' END;
BEGIN
  EXECUTE format('ALTER TABLE chunks
    ADD COLUMN own_embedding %1$s(1024), ADD COLUMN own_summary_embedding %1$s(1024),
    ADD COLUMN own_embedding_256 %1$s(256), ADD COLUMN own_summary_embedding_256 %1$s(256)', element);
  EXECUTE format('ALTER TABLE entities ADD COLUMN own_embedding %1$s(1024), ADD COLUMN own_embedding_256 %1$s(256)', element);
  EXECUTE format('ALTER TABLE edges ADD COLUMN own_embedding %1$s(1024), ADD COLUMN own_embedding_256 %1$s(256)', element);
END $$;
--> statement-breakpoint
ALTER TABLE graphs
  ADD COLUMN own_vectors text,
  ADD COLUMN bulk_load_started_at timestamp with time zone,
  ADD CONSTRAINT graphs_own_vectors_check CHECK (own_vectors IN ('loading', 'indexing', 'indexed'));
