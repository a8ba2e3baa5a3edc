CREATE INDEX "edges_source_idx" ON "edges" USING btree ("tenant_id","source_id");--> statement-breakpoint
CREATE INDEX "edges_target_idx" ON "edges" USING btree ("tenant_id","target_id");--> statement-breakpoint
CREATE INDEX "edges_artifact_idx" ON "edges" USING btree ("tenant_id","artifact_id");--> statement-breakpoint
CREATE INDEX "edges_graph_idx" ON "edges" USING btree ("tenant_id","graph_id");--> statement-breakpoint
CREATE INDEX "request_logs_request_idx" ON "request_logs" USING btree ("tenant_id","request_id");