ALTER TABLE "tenants" ADD COLUMN "max_running_jobs" integer;--> statement-breakpoint
-- Tenants made before the cap start with their tier's default, as new ones do (apps/api/src/admin/tier-defaults.ts).
UPDATE "tenants" SET "max_running_jobs" = CASE "tier" WHEN 'free' THEN 2 WHEN 'pro' THEN 4 ELSE NULL END;
