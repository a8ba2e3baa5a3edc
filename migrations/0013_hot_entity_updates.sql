-- Entity updates without index writes (docs/DECISIONS.md, "Fewer vector writes"). A chunk that
-- merges a description into an existing entity changed `updated_at`, which this index covered,
-- so every such update was non-HOT: a new entry in every index of the row, both HNSW indexes
-- included (two neighbour searches of 1024 dimensions each). Without it no indexed column of
-- entities changes on a merge; the gb fallback that reads the most recently updated entities
-- sorts its graph's rows instead (entities_graph_name_idx finds them).
DROP INDEX IF EXISTS "entities_graph_updated_idx";--> statement-breakpoint
-- HOT needs room on the row's page for the new version: pages of entities and edges are filled
-- to 80% and 90% (rows merged into often, and facts less often). Applies to pages written from
-- now on; no rewrite, a SHARE UPDATE EXCLUSIVE lock for a moment.
ALTER TABLE "entities" SET (fillfactor = 80);--> statement-breakpoint
ALTER TABLE "edges" SET (fillfactor = 90);
