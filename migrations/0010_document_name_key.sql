ALTER TABLE "documents" ADD COLUMN "name_key" text;--> statement-breakpoint
CREATE INDEX "documents_graph_name_key_idx" ON "documents" USING btree ("tenant_id","graph_id","name_key");--> statement-breakpoint
-- Backfill for uploaded documents, close to documentNameKey (@loci/common) in SQL: without an
-- extension or a trailing qualifier in parentheses, lower case, runs of other characters as one
-- space. (Accents are kept here; new documents get the exact key from the application.)
UPDATE "documents"
SET "name_key" = nullif(btrim(regexp_replace(lower(regexp_replace(regexp_replace("name", '\.[A-Za-z0-9]{1,5}$', ''), '\s*\([^()]*\)\s*$', '')), '[^[:alnum:]]+', ' ', 'g')), '')
WHERE "kind" = 'document';
