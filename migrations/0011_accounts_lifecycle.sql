CREATE TYPE "public"."api_key_scope" AS ENUM('read', 'write');--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "scopes" "api_key_scope"[] DEFAULT '{read,write}'::api_key_scope[] NOT NULL;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "expires_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "tenants" ADD COLUMN "suspended_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "disabled_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "token_version" integer DEFAULT 0 NOT NULL;