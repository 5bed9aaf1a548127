CREATE TABLE "session_trainers" (
	"session_id" uuid PRIMARY KEY NOT NULL,
	"psychologist_name" text,
	"psychologist_number" text,
	"bafm_name" text,
	"bafm_number" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "session_trainers" ADD CONSTRAINT "session_trainers_session_id_stage_sessions_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."stage_sessions"("id") ON DELETE cascade ON UPDATE no action;