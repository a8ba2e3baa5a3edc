ALTER TYPE "public"."inference_status" ADD VALUE 'pending' BEFORE 'ok';--> statement-breakpoint
ALTER TABLE "inferences" ALTER COLUMN "request_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "inferences" ALTER COLUMN "status" DROP DEFAULT;--> statement-breakpoint
ALTER TABLE "inferences" ADD COLUMN "call_index" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "inferences" ADD COLUMN "estimated_cost_micros" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "inferences_call_key" ON "inferences" USING btree ("tenant_id","request_id","call_index");