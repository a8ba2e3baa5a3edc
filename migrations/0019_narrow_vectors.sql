-- Vectors at the width their model needs (docs/DECISIONS.md, "A vector is stored at the width its
-- model needs"): the offline embedder's 256-wide vectors get columns and HNSW indexes of their own
-- beside the 1024-wide ones, which stay as they were. Adding a nullable column is a catalog change;
-- each new index is built over a column that is null in every existing row, so the build reads the
-- table once and inserts nothing. Nothing is rewritten and no existing index is rebuilt: the
-- migration holds each table's lock for one scan of it (measured in docs/BENCHMARKS.md, "Issue 16.1").
ALTER TABLE "chunks" ADD COLUMN "embedding_256" halfvec(256);--> statement-breakpoint
ALTER TABLE "chunks" ADD COLUMN "summary_embedding_256" halfvec(256);--> statement-breakpoint
ALTER TABLE "edges" ADD COLUMN "embedding_256" halfvec(256);--> statement-breakpoint
ALTER TABLE "entities" ADD COLUMN "embedding_256" halfvec(256);--> statement-breakpoint
ALTER TABLE "entities" ADD COLUMN "name_embedding_256" halfvec(256);--> statement-breakpoint
CREATE INDEX "chunks_embedding_256_hnsw" ON "chunks" USING hnsw ("embedding_256" halfvec_cosine_ops);--> statement-breakpoint
CREATE INDEX "chunks_summary_embedding_256_hnsw" ON "chunks" USING hnsw ("summary_embedding_256" halfvec_cosine_ops);--> statement-breakpoint
CREATE INDEX "edges_embedding_256_hnsw" ON "edges" USING hnsw ("embedding_256" halfvec_cosine_ops);--> statement-breakpoint
CREATE INDEX "entities_embedding_256_hnsw" ON "entities" USING hnsw ("embedding_256" halfvec_cosine_ops);--> statement-breakpoint
CREATE INDEX "entities_name_embedding_256_hnsw" ON "entities" USING hnsw ("name_embedding_256" halfvec_cosine_ops);
