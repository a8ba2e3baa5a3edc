CREATE TYPE "public"."tenant_billing" AS ENUM('platform', 'own_key');--> statement-breakpoint
CREATE TYPE "public"."tenant_tier" AS ENUM('free', 'pro', 'enterprise');--> statement-breakpoint
CREATE TYPE "public"."user_role" AS ENUM('operator', 'admin', 'member');--> statement-breakpoint
CREATE TYPE "public"."document_kind" AS ENUM('document', 'gb_text');--> statement-breakpoint
CREATE TYPE "public"."document_status" AS ENUM('pending', 'processing', 'processed', 'failed', 'deferred');--> statement-breakpoint
CREATE TYPE "public"."graph_kind" AS ENUM('default', 'gb');--> statement-breakpoint
CREATE TYPE "public"."billed_to" AS ENUM('platform', 'own_key');--> statement-breakpoint
CREATE TYPE "public"."inference_status" AS ENUM('ok', 'error');--> statement-breakpoint
CREATE TYPE "public"."job_status" AS ENUM('queued', 'running', 'done', 'failed', 'deferred');--> statement-breakpoint
CREATE TABLE "api_keys" (
	"tenant_id" uuid NOT NULL,
	"id" uuid DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"prefix" text NOT NULL,
	"secret_hash" text NOT NULL,
	"created_by_user_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_used_at" timestamp with time zone,
	"revoked_at" timestamp with time zone,
	CONSTRAINT "api_keys_tenant_id_id_pk" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
CREATE TABLE "tenants" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"tier" "tenant_tier" DEFAULT 'free' NOT NULL,
	"billing" "tenant_billing" DEFAULT 'platform' NOT NULL,
	"own_llm_provider" text,
	"own_llm_key_encrypted" text,
	"daily_cost_cap_micros" bigint,
	"monthly_cost_cap_micros" bigint,
	"daily_query_quota" integer,
	"max_concurrent_queries" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "users" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid,
	"email" text NOT NULL,
	"password_hash" text NOT NULL,
	"role" "user_role" NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "chunks" (
	"tenant_id" uuid NOT NULL,
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "chunks_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"graph_id" bigint NOT NULL,
	"document_id" bigint NOT NULL,
	"index" integer NOT NULL,
	"text" text NOT NULL,
	"token_count" integer NOT NULL,
	"summary" text,
	"embedding" vector(1024),
	"summary_embedding" vector(1024),
	"embedding_model" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "chunks_tenant_id_id_pk" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
CREATE TABLE "documents" (
	"tenant_id" uuid NOT NULL,
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "documents_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"graph_id" bigint NOT NULL,
	"kind" "document_kind" NOT NULL,
	"name" text NOT NULL,
	"mime_type" text DEFAULT 'text/plain' NOT NULL,
	"content_hash" text NOT NULL,
	"text" text NOT NULL,
	"document_date" timestamp with time zone,
	"session_id" text,
	"status" "document_status" DEFAULT 'pending' NOT NULL,
	"status_reason" text,
	"chunks_total" integer DEFAULT 0 NOT NULL,
	"chunks_done" integer DEFAULT 0 NOT NULL,
	"loaded_at" timestamp with time zone DEFAULT now() NOT NULL,
	"processed_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "documents_tenant_id_id_pk" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
CREATE TABLE "edge_chunks" (
	"tenant_id" uuid NOT NULL,
	"edge_id" bigint NOT NULL,
	"chunk_id" bigint NOT NULL,
	CONSTRAINT "edge_chunks_tenant_id_edge_id_chunk_id_pk" PRIMARY KEY("tenant_id","edge_id","chunk_id")
);
--> statement-breakpoint
CREATE TABLE "edge_documents" (
	"tenant_id" uuid NOT NULL,
	"edge_id" bigint NOT NULL,
	"document_id" bigint NOT NULL,
	CONSTRAINT "edge_documents_tenant_id_edge_id_document_id_pk" PRIMARY KEY("tenant_id","edge_id","document_id")
);
--> statement-breakpoint
CREATE TABLE "edges" (
	"tenant_id" uuid NOT NULL,
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "edges_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"graph_id" bigint NOT NULL,
	"source_id" bigint NOT NULL,
	"target_id" bigint NOT NULL,
	"relation" text NOT NULL,
	"description" text,
	"keywords" text,
	"weight" double precision DEFAULT 1 NOT NULL,
	"embedding" vector(1024),
	"embedding_model" text,
	"valid_at" timestamp with time zone,
	"invalid_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expired_at" timestamp with time zone,
	"artifact_id" bigint,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "edges_tenant_id_id_pk" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
CREATE TABLE "entities" (
	"tenant_id" uuid NOT NULL,
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "entities_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"graph_id" bigint NOT NULL,
	"name" text NOT NULL,
	"normalized_name" text NOT NULL,
	"type" text,
	"description" text,
	"embedding" vector(1024),
	"embedding_model" text,
	"latitude" double precision,
	"longitude" double precision,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "entities_tenant_id_id_pk" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
CREATE TABLE "entity_chunks" (
	"tenant_id" uuid NOT NULL,
	"entity_id" bigint NOT NULL,
	"chunk_id" bigint NOT NULL,
	CONSTRAINT "entity_chunks_tenant_id_entity_id_chunk_id_pk" PRIMARY KEY("tenant_id","entity_id","chunk_id")
);
--> statement-breakpoint
CREATE TABLE "entity_documents" (
	"tenant_id" uuid NOT NULL,
	"entity_id" bigint NOT NULL,
	"document_id" bigint NOT NULL,
	CONSTRAINT "entity_documents_tenant_id_entity_id_document_id_pk" PRIMARY KEY("tenant_id","entity_id","document_id")
);
--> statement-breakpoint
CREATE TABLE "graphs" (
	"tenant_id" uuid NOT NULL,
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "graphs_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"kind" "graph_kind" NOT NULL,
	"gb_user_id" text,
	"name" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "graphs_tenant_id_id_pk" PRIMARY KEY("tenant_id","id"),
	CONSTRAINT "graphs_identity_key" UNIQUE NULLS NOT DISTINCT("tenant_id","kind","gb_user_id","name")
);
--> statement-breakpoint
CREATE TABLE "inferences" (
	"tenant_id" uuid NOT NULL,
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "inferences_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"request_id" text,
	"kind" text NOT NULL,
	"stage" text NOT NULL,
	"provider" text NOT NULL,
	"model" text NOT NULL,
	"reasoning" text,
	"tokens_in" integer DEFAULT 0 NOT NULL,
	"tokens_out" integer DEFAULT 0 NOT NULL,
	"tokens_thinking" integer DEFAULT 0 NOT NULL,
	"cost_micros" bigint DEFAULT 0 NOT NULL,
	"billed_to" "billed_to" NOT NULL,
	"status" "inference_status" DEFAULT 'ok' NOT NULL,
	"error" text,
	"latency_ms" integer,
	"document_id" bigint,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "inferences_tenant_id_id_pk" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
CREATE TABLE "jobs" (
	"tenant_id" uuid NOT NULL,
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "jobs_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"kind" text NOT NULL,
	"payload" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"status" "job_status" DEFAULT 'queued' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"max_attempts" integer DEFAULT 5 NOT NULL,
	"run_at" timestamp with time zone DEFAULT now() NOT NULL,
	"locked_at" timestamp with time zone,
	"locked_by" text,
	"last_error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "jobs_tenant_id_id_pk" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
CREATE TABLE "request_logs" (
	"tenant_id" uuid NOT NULL,
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "request_logs_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"request_id" text NOT NULL,
	"route" text NOT NULL,
	"principal_kind" text NOT NULL,
	"principal_id" text,
	"session_id" text,
	"status" integer,
	"steps" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"latency_ms" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "request_logs_tenant_id_id_pk" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "users" ADD CONSTRAINT "users_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chunks" ADD CONSTRAINT "chunks_tenant_id_graph_id_graphs_tenant_id_id_fk" FOREIGN KEY ("tenant_id","graph_id") REFERENCES "public"."graphs"("tenant_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chunks" ADD CONSTRAINT "chunks_tenant_id_document_id_documents_tenant_id_id_fk" FOREIGN KEY ("tenant_id","document_id") REFERENCES "public"."documents"("tenant_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "documents" ADD CONSTRAINT "documents_tenant_id_graph_id_graphs_tenant_id_id_fk" FOREIGN KEY ("tenant_id","graph_id") REFERENCES "public"."graphs"("tenant_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "edge_chunks" ADD CONSTRAINT "edge_chunks_tenant_id_edge_id_edges_tenant_id_id_fk" FOREIGN KEY ("tenant_id","edge_id") REFERENCES "public"."edges"("tenant_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "edge_chunks" ADD CONSTRAINT "edge_chunks_tenant_id_chunk_id_chunks_tenant_id_id_fk" FOREIGN KEY ("tenant_id","chunk_id") REFERENCES "public"."chunks"("tenant_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "edge_documents" ADD CONSTRAINT "edge_documents_tenant_id_edge_id_edges_tenant_id_id_fk" FOREIGN KEY ("tenant_id","edge_id") REFERENCES "public"."edges"("tenant_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "edge_documents" ADD CONSTRAINT "edge_documents_tenant_id_document_id_documents_tenant_id_id_fk" FOREIGN KEY ("tenant_id","document_id") REFERENCES "public"."documents"("tenant_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "edges" ADD CONSTRAINT "edges_tenant_id_graph_id_graphs_tenant_id_id_fk" FOREIGN KEY ("tenant_id","graph_id") REFERENCES "public"."graphs"("tenant_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "edges" ADD CONSTRAINT "edges_tenant_id_source_id_entities_tenant_id_id_fk" FOREIGN KEY ("tenant_id","source_id") REFERENCES "public"."entities"("tenant_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "edges" ADD CONSTRAINT "edges_tenant_id_target_id_entities_tenant_id_id_fk" FOREIGN KEY ("tenant_id","target_id") REFERENCES "public"."entities"("tenant_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "edges" ADD CONSTRAINT "edges_tenant_id_artifact_id_documents_tenant_id_id_fk" FOREIGN KEY ("tenant_id","artifact_id") REFERENCES "public"."documents"("tenant_id","id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "entities" ADD CONSTRAINT "entities_tenant_id_graph_id_graphs_tenant_id_id_fk" FOREIGN KEY ("tenant_id","graph_id") REFERENCES "public"."graphs"("tenant_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "entity_chunks" ADD CONSTRAINT "entity_chunks_tenant_id_entity_id_entities_tenant_id_id_fk" FOREIGN KEY ("tenant_id","entity_id") REFERENCES "public"."entities"("tenant_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "entity_chunks" ADD CONSTRAINT "entity_chunks_tenant_id_chunk_id_chunks_tenant_id_id_fk" FOREIGN KEY ("tenant_id","chunk_id") REFERENCES "public"."chunks"("tenant_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "entity_documents" ADD CONSTRAINT "entity_documents_tenant_id_entity_id_entities_tenant_id_id_fk" FOREIGN KEY ("tenant_id","entity_id") REFERENCES "public"."entities"("tenant_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "entity_documents" ADD CONSTRAINT "entity_documents_tenant_id_document_id_documents_tenant_id_id_fk" FOREIGN KEY ("tenant_id","document_id") REFERENCES "public"."documents"("tenant_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "graphs" ADD CONSTRAINT "graphs_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "inferences" ADD CONSTRAINT "inferences_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "jobs" ADD CONSTRAINT "jobs_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "request_logs" ADD CONSTRAINT "request_logs_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "api_keys_id_key" ON "api_keys" USING btree ("id");--> statement-breakpoint
CREATE UNIQUE INDEX "api_keys_prefix_key" ON "api_keys" USING btree ("prefix");--> statement-breakpoint
CREATE UNIQUE INDEX "users_email_key" ON "users" USING btree (lower("email"));--> statement-breakpoint
CREATE INDEX "users_tenant_idx" ON "users" USING btree ("tenant_id");--> statement-breakpoint
CREATE UNIQUE INDEX "chunks_document_index_key" ON "chunks" USING btree ("tenant_id","document_id","index");--> statement-breakpoint
CREATE INDEX "chunks_embedding_hnsw" ON "chunks" USING hnsw ("embedding" vector_cosine_ops);--> statement-breakpoint
CREATE INDEX "chunks_summary_embedding_hnsw" ON "chunks" USING hnsw ("summary_embedding" vector_cosine_ops);--> statement-breakpoint
CREATE UNIQUE INDEX "documents_content_key" ON "documents" USING btree ("tenant_id","graph_id","content_hash");--> statement-breakpoint
CREATE INDEX "documents_graph_created_idx" ON "documents" USING btree ("tenant_id","graph_id","created_at");--> statement-breakpoint
CREATE INDEX "edge_chunks_chunk_idx" ON "edge_chunks" USING btree ("tenant_id","chunk_id");--> statement-breakpoint
CREATE INDEX "edge_documents_document_idx" ON "edge_documents" USING btree ("tenant_id","document_id");--> statement-breakpoint
CREATE INDEX "edges_live_source_idx" ON "edges" USING btree ("tenant_id","source_id","created_at") WHERE "edges"."expired_at" IS NULL;--> statement-breakpoint
CREATE INDEX "edges_live_target_idx" ON "edges" USING btree ("tenant_id","target_id","created_at") WHERE "edges"."expired_at" IS NULL;--> statement-breakpoint
CREATE INDEX "edges_embedding_hnsw" ON "edges" USING hnsw ("embedding" vector_cosine_ops);--> statement-breakpoint
CREATE INDEX "entities_graph_name_idx" ON "entities" USING btree ("tenant_id","graph_id","normalized_name");--> statement-breakpoint
CREATE INDEX "entities_graph_updated_idx" ON "entities" USING btree ("tenant_id","graph_id","updated_at");--> statement-breakpoint
CREATE INDEX "entities_embedding_hnsw" ON "entities" USING hnsw ("embedding" vector_cosine_ops);--> statement-breakpoint
CREATE INDEX "entity_chunks_chunk_idx" ON "entity_chunks" USING btree ("tenant_id","chunk_id");--> statement-breakpoint
CREATE INDEX "entity_documents_document_idx" ON "entity_documents" USING btree ("tenant_id","document_id");--> statement-breakpoint
CREATE INDEX "inferences_tenant_created_idx" ON "inferences" USING btree ("tenant_id","created_at");--> statement-breakpoint
CREATE INDEX "inferences_platform_created_idx" ON "inferences" USING btree ("created_at") WHERE "inferences"."billed_to" = 'platform';--> statement-breakpoint
CREATE INDEX "jobs_ready_idx" ON "jobs" USING btree ("run_at") WHERE "jobs"."status" = 'queued';--> statement-breakpoint
CREATE INDEX "jobs_running_idx" ON "jobs" USING btree ("locked_at") WHERE "jobs"."status" = 'running';--> statement-breakpoint
CREATE INDEX "request_logs_tenant_created_idx" ON "request_logs" USING btree ("tenant_id","created_at");