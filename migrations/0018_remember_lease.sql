ALTER TABLE "documents" ADD COLUMN "lease_holder" text;--> statement-breakpoint
ALTER TABLE "documents" ADD COLUMN "lease_expires_at" timestamp with time zone;