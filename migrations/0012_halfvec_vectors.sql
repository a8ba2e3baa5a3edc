-- Vectors at half precision (docs/DECISIONS.md, "Vectors as halfvec"). One rewrite per table:
-- each ALTER TABLE converts its vector columns in one pass. The HNSW indexes are dropped first
-- (their operator class is vector's) and built again after. drizzle's migrator runs pending
-- migrations in one transaction, so the ACCESS EXCLUSIVE locks of the rewrites are held until
-- the indexes are built: the store's graph tables are unavailable for that long (measured at the
-- bench sizes in docs/BENCHMARKS.md, "halfvec").
DROP INDEX IF EXISTS "chunks_embedding_hnsw";--> statement-breakpoint
DROP INDEX IF EXISTS "chunks_summary_embedding_hnsw";--> statement-breakpoint
DROP INDEX IF EXISTS "edges_embedding_hnsw";--> statement-breakpoint
DROP INDEX IF EXISTS "entities_embedding_hnsw";--> statement-breakpoint
DROP INDEX IF EXISTS "entities_name_embedding_hnsw";--> statement-breakpoint
ALTER TABLE "chunks"
  ALTER COLUMN "embedding" SET DATA TYPE halfvec(1024) USING "embedding"::halfvec(1024),
  ALTER COLUMN "summary_embedding" SET DATA TYPE halfvec(1024) USING "summary_embedding"::halfvec(1024);--> statement-breakpoint
ALTER TABLE "edges"
  ALTER COLUMN "embedding" SET DATA TYPE halfvec(1024) USING "embedding"::halfvec(1024);--> statement-breakpoint
ALTER TABLE "entities"
  ALTER COLUMN "embedding" SET DATA TYPE halfvec(1024) USING "embedding"::halfvec(1024),
  ALTER COLUMN "name_embedding" SET DATA TYPE halfvec(1024) USING "name_embedding"::halfvec(1024);--> statement-breakpoint
CREATE INDEX "chunks_embedding_hnsw" ON "chunks" USING hnsw ("embedding" halfvec_cosine_ops);--> statement-breakpoint
CREATE INDEX "chunks_summary_embedding_hnsw" ON "chunks" USING hnsw ("summary_embedding" halfvec_cosine_ops);--> statement-breakpoint
CREATE INDEX "edges_embedding_hnsw" ON "edges" USING hnsw ("embedding" halfvec_cosine_ops);--> statement-breakpoint
CREATE INDEX "entities_embedding_hnsw" ON "entities" USING hnsw ("embedding" halfvec_cosine_ops);--> statement-breakpoint
CREATE INDEX "entities_name_embedding_hnsw" ON "entities" USING hnsw ("name_embedding" halfvec_cosine_ops);
