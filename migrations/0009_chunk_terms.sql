CREATE TABLE "chunk_terms" (
	"tenant_id" uuid NOT NULL,
	"graph_id" bigint NOT NULL,
	"lexeme" text NOT NULL,
	"chunk_id" bigint NOT NULL,
	"frequency" integer NOT NULL,
	"chunk_length" integer NOT NULL,
	CONSTRAINT "chunk_terms_tenant_id_graph_id_lexeme_chunk_id_pk" PRIMARY KEY("tenant_id","graph_id","lexeme","chunk_id")
);
--> statement-breakpoint
ALTER TABLE "chunks" ADD COLUMN "term_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "chunk_terms" ADD CONSTRAINT "chunk_terms_tenant_id_chunk_id_chunks_tenant_id_id_fk" FOREIGN KEY ("tenant_id","chunk_id") REFERENCES "public"."chunks"("tenant_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "chunk_terms_chunk_idx" ON "chunk_terms" USING btree ("tenant_id","chunk_id");--> statement-breakpoint
-- Backfill: the lexical index of the chunks that exist (the same text and configuration as
-- chunkLexicalTextSql in libs/db/src/repositories/chunk-terms.sql.ts).
WITH lexical AS (
  SELECT c.tenant_id, c.graph_id, c.id AS chunk_id,
         to_tsvector('english', CASE WHEN d.kind = 'document' THEN d.name || E'\n' ELSE '' END || c.text) AS v
  FROM "chunks" c JOIN "documents" d ON d.tenant_id = c.tenant_id AND d.id = c.document_id),
terms AS (
  SELECT l.tenant_id, l.graph_id, l.chunk_id, t.lexeme, coalesce(array_length(t.positions, 1), 1) AS frequency
  FROM lexical l CROSS JOIN LATERAL unnest(l.v) AS t),
lengths AS (
  SELECT tenant_id, chunk_id, sum(frequency)::integer AS term_count FROM terms GROUP BY tenant_id, chunk_id),
counted AS (
  UPDATE "chunks" c SET term_count = lengths.term_count FROM lengths
  WHERE c.tenant_id = lengths.tenant_id AND c.id = lengths.chunk_id)
INSERT INTO "chunk_terms" (tenant_id, graph_id, lexeme, chunk_id, frequency, chunk_length)
SELECT terms.tenant_id, terms.graph_id, terms.lexeme, terms.chunk_id, terms.frequency, lengths.term_count
FROM terms JOIN lengths ON lengths.tenant_id = terms.tenant_id AND lengths.chunk_id = terms.chunk_id;
