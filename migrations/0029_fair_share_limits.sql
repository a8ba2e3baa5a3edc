ALTER TABLE "api_keys" ADD COLUMN "requests_per_minute" integer;--> statement-breakpoint
ALTER TABLE "tenants" ADD COLUMN "requests_per_minute" integer;--> statement-breakpoint
ALTER TABLE "tenants" ADD COLUMN "request_burst" integer;--> statement-breakpoint
ALTER TABLE "tenants" ADD COLUMN "daily_document_quota" integer;--> statement-breakpoint
ALTER TABLE "tenants" ADD COLUMN "daily_ingest_mb" integer;--> statement-breakpoint
ALTER TABLE "tenants" ADD COLUMN "max_stored_mb" integer;--> statement-breakpoint
-- Tenants made before these limits start with their tier's defaults, as new ones do (apps/api/src/admin/tier-defaults.ts).
UPDATE "tenants" SET
  "requests_per_minute" = CASE "tier" WHEN 'free' THEN 60 WHEN 'pro' THEN 600 ELSE NULL END,
  "request_burst" = CASE "tier" WHEN 'free' THEN 20 WHEN 'pro' THEN 100 ELSE NULL END,
  "daily_document_quota" = CASE "tier" WHEN 'free' THEN 1000 WHEN 'pro' THEN 50000 ELSE NULL END,
  "daily_ingest_mb" = CASE "tier" WHEN 'free' THEN 50 WHEN 'pro' THEN 2000 ELSE NULL END,
  "max_stored_mb" = CASE "tier" WHEN 'free' THEN 200 WHEN 'pro' THEN 20000 ELSE NULL END;
