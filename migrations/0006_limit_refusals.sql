CREATE TABLE "limit_refusals" (
	"tenant_id" uuid NOT NULL,
	"day" date NOT NULL,
	"kind" text NOT NULL,
	"count" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "limit_refusals_tenant_id_day_kind_pk" PRIMARY KEY("tenant_id","day","kind")
);
--> statement-breakpoint
ALTER TABLE "limit_refusals" ADD CONSTRAINT "limit_refusals_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;