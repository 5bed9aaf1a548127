CREATE TABLE "change_history" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	"centre_id" uuid NOT NULL,
	"entity" text NOT NULL,
	"entity_id" uuid NOT NULL,
	"field" text NOT NULL,
	"old_value" text,
	"new_value" text,
	"actor_kind" text NOT NULL,
	"actor_id" text,
	"actor_label" text,
	CONSTRAINT "change_history_entity" CHECK ("change_history"."entity" in ('centre', 'session', 'reservation')),
	CONSTRAINT "change_history_actor_kind" CHECK ("change_history"."actor_kind" in ('api_key', 'user', 'cli', 'site', 'system'))
);
--> statement-breakpoint
ALTER TABLE "stage_sessions" ADD COLUMN "declared_on" date;--> statement-breakpoint
CREATE INDEX "change_history_centre_idx" ON "change_history" USING btree ("centre_id","at","id");--> statement-breakpoint
CREATE INDEX "change_history_entity_idx" ON "change_history" USING btree ("entity_id","at","id");--> statement-breakpoint
CREATE INDEX "change_history_at_idx" ON "change_history" USING btree ("at","id");--> statement-breakpoint
ALTER TABLE "stage_sessions" ADD CONSTRAINT "stage_sessions_declared_before" CHECK ("stage_sessions"."declared_on" is null or "stage_sessions"."declared_on" <= "stage_sessions"."day1");