-- Citus refuses ON DELETE SET NULL on a foreign key that holds the distribution column, even with
-- PostgreSQL 15's column list (SET NULL ("artifact_id")), so edges could not be distributed by
-- tenant_id (docs/SCALING.md). The key stays; deleting a document now clears its edges'
-- artifact_id itself, in the same transaction (DocumentsRepository.delete). NO ACTION is checked
-- at the end of the statement, so a tenant's or a graph's cascading delete still removes both.
ALTER TABLE "edges" DROP CONSTRAINT "edges_tenant_id_artifact_id_documents_tenant_id_id_fk";--> statement-breakpoint
ALTER TABLE "edges" ADD CONSTRAINT "edges_tenant_id_artifact_id_documents_tenant_id_id_fk" FOREIGN KEY ("tenant_id","artifact_id") REFERENCES "public"."documents"("tenant_id","id") ON DELETE no action ON UPDATE no action;
