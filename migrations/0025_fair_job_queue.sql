-- The fair queue (issue 34.1): each job's turn across tenants (docs/DECISIONS.md, "Fair share").
DROP INDEX "jobs_ready_idx";--> statement-breakpoint
ALTER TABLE "jobs" ADD COLUMN "fair_tag" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Jobs waiting at the upgrade take turns by tenant: the n-th of each tenant gets turn n, so one
-- tenant's old backlog does not go before every other tenant's.
UPDATE "jobs" SET "fair_tag" = ranked.turn
  FROM (SELECT "tenant_id", "id", row_number() OVER (PARTITION BY "tenant_id" ORDER BY "run_at", "id") AS turn
          FROM "jobs" WHERE "status" IN ('queued', 'deferred')) AS ranked
 WHERE "jobs"."tenant_id" = ranked."tenant_id" AND "jobs"."id" = ranked."id";--> statement-breakpoint
CREATE INDEX "jobs_tenant_queued_idx" ON "jobs" USING btree ("tenant_id","fair_tag") WHERE "jobs"."status" = 'queued';--> statement-breakpoint
CREATE INDEX "jobs_ready_idx" ON "jobs" USING btree ("fair_tag") WHERE "jobs"."status" = 'queued';
