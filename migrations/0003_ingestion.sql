DROP INDEX "jobs_running_idx";--> statement-breakpoint
ALTER TABLE "entities" ADD COLUMN "name_embedding" vector(1024);--> statement-breakpoint
ALTER TABLE "jobs" ADD COLUMN "lease_expires_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "entities_name_embedding_hnsw" ON "entities" USING hnsw ("name_embedding" vector_cosine_ops);--> statement-breakpoint
CREATE INDEX "jobs_running_idx" ON "jobs" USING btree ("lease_expires_at") WHERE "jobs"."status" = 'running';--> statement-breakpoint
-- A composite foreign key's plain SET NULL would null tenant_id too (NOT NULL: the delete
-- fails). Only the artifact link is cleared when its document is deleted (PostgreSQL >= 15).
ALTER TABLE "edges" DROP CONSTRAINT "edges_tenant_id_artifact_id_documents_tenant_id_id_fk";--> statement-breakpoint
ALTER TABLE "edges" ADD CONSTRAINT "edges_tenant_id_artifact_id_documents_tenant_id_id_fk" FOREIGN KEY ("tenant_id","artifact_id") REFERENCES "public"."documents"("tenant_id","id") ON DELETE SET NULL ("artifact_id") ON UPDATE no action;
