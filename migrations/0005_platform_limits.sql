CREATE TABLE "platform_limits" (
	"id" integer PRIMARY KEY DEFAULT 1 NOT NULL,
	"daily_cost_cap_micros" bigint,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "platform_limits_single_row" CHECK ("platform_limits"."id" = 1)
);
