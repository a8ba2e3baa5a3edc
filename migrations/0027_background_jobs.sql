DROP INDEX "jobs_ready_idx";--> statement-breakpoint
DROP INDEX "jobs_tenant_queued_idx";--> statement-breakpoint
ALTER TABLE "jobs" ADD COLUMN "background" boolean DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX "jobs_background_ready_idx" ON "jobs" USING btree ("fair_tag") WHERE "jobs"."status" = 'queued' AND "jobs"."background";--> statement-breakpoint
CREATE INDEX "jobs_ready_idx" ON "jobs" USING btree ("fair_tag") WHERE "jobs"."status" = 'queued' AND NOT "jobs"."background";--> statement-breakpoint
CREATE INDEX "jobs_tenant_queued_idx" ON "jobs" USING btree ("tenant_id","background","fair_tag") WHERE "jobs"."status" = 'queued';--> statement-breakpoint
-- Index builds of bulk loads and the geo backfill waiting at the upgrade wait behind other work from now on.
UPDATE "jobs" SET "background" = true WHERE "kind" IN ('build_own_indexes', 'geo_backfill') AND "status" IN ('queued', 'deferred');
