-- The operators' view of each tenant's queue (GET /v1/admin/tenants): its parked jobs and its jobs
-- finished in the last hour. Done jobs are kept, so without these a page of tenants reads every job
-- they ever had (322k jobs over 1,000 tenants, a busy 2-core machine: 63 ms a page of 200, against 318 ms).
CREATE INDEX "jobs_tenant_deferred_idx" ON "jobs" USING btree ("tenant_id") WHERE "jobs"."status" = 'deferred';--> statement-breakpoint
CREATE INDEX "jobs_tenant_finished_idx" ON "jobs" USING btree ("tenant_id","updated_at") WHERE "jobs"."status" IN ('done', 'failed');