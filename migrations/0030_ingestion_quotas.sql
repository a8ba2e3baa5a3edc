CREATE TABLE "ingestion_days" (
	"tenant_id" uuid NOT NULL,
	"day" date NOT NULL,
	"documents" integer DEFAULT 0 NOT NULL,
	"text_bytes" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "ingestion_days_tenant_id_day_pk" PRIMARY KEY("tenant_id","day")
);
--> statement-breakpoint
CREATE TABLE "tenant_storage" (
	"tenant_id" uuid NOT NULL,
	"text_bytes" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "tenant_storage_tenant_id_pk" PRIMARY KEY("tenant_id")
);
--> statement-breakpoint
ALTER TABLE "ingestion_days" ADD CONSTRAINT "ingestion_days_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tenant_storage" ADD CONSTRAINT "tenant_storage_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- What tenants hold and took in before the quotas: stored text from their documents, and each day's documents by when they were added (documents deleted since are not known).
INSERT INTO "tenant_storage" ("tenant_id", "text_bytes")
  SELECT "tenant_id", sum(octet_length("text")) FROM "documents" GROUP BY "tenant_id";--> statement-breakpoint
INSERT INTO "ingestion_days" ("tenant_id", "day", "documents", "text_bytes")
  SELECT "tenant_id", ("created_at" AT TIME ZONE 'UTC')::date, count(*), sum(octet_length("text")) FROM "documents" GROUP BY 1, 2;
