-- The geo backfill's progress a tenant (issue 40.9; docs/DECISIONS.md, "Geo for what was
-- remembered before geo was on"): every entity up to last_entity_id was looked up once.
CREATE TABLE "geo_backfill_progress" (
	"tenant_id" uuid NOT NULL,
	"last_entity_id" bigint NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "geo_backfill_progress_tenant_id_pk" PRIMARY KEY("tenant_id")
);
--> statement-breakpoint
ALTER TABLE "geo_backfill_progress" ADD CONSTRAINT "geo_backfill_progress_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;