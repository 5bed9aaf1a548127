CREATE TABLE "alert_confirmations_sent" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"email_hash" text NOT NULL,
	"sent_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "alert_links" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"alert_id" uuid NOT NULL,
	"purpose" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "alert_links_purpose" CHECK ("alert_links"."purpose" in ('confirm', 'unsubscribe'))
);
--> statement-breakpoint
CREATE TABLE "alert_sent_sessions" (
	"alert_id" uuid NOT NULL,
	"session_id" uuid NOT NULL,
	CONSTRAINT "alert_sent_sessions_alert_id_session_id_pk" PRIMARY KEY("alert_id","session_id")
);
--> statement-breakpoint
CREATE TABLE "alerts" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"email" text NOT NULL,
	"email_key" text NOT NULL,
	"session_id" uuid,
	"search" jsonb,
	"created_via" text NOT NULL,
	"client_id" text,
	"confirmed_at" timestamp with time zone,
	"ends_at" timestamp with time zone NOT NULL,
	"last_sent_at" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "alerts_what" CHECK (("alerts"."session_id" is null) <> ("alerts"."search" is null)),
	CONSTRAINT "alerts_created_via" CHECK ("alerts"."created_via" in ('site', 'agent')),
	CONSTRAINT "alerts_client" CHECK (("alerts"."created_via" = 'agent') = ("alerts"."client_id" is not null))
);
--> statement-breakpoint
ALTER TABLE "alert_links" ADD CONSTRAINT "alert_links_alert_id_alerts_id_fk" FOREIGN KEY ("alert_id") REFERENCES "public"."alerts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alert_sent_sessions" ADD CONSTRAINT "alert_sent_sessions_alert_id_alerts_id_fk" FOREIGN KEY ("alert_id") REFERENCES "public"."alerts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alerts" ADD CONSTRAINT "alerts_session_id_stage_sessions_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."stage_sessions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "alert_confirmations_sent_email_idx" ON "alert_confirmations_sent" USING btree ("email_hash","sent_at");--> statement-breakpoint
CREATE INDEX "alert_links_alert_idx" ON "alert_links" USING btree ("alert_id");--> statement-breakpoint
CREATE INDEX "alerts_email_idx" ON "alerts" USING btree ("email_key");--> statement-breakpoint
CREATE INDEX "alerts_session_idx" ON "alerts" USING btree ("session_id");--> statement-breakpoint
CREATE INDEX "alerts_confirmed_idx" ON "alerts" USING btree ("confirmed_at") WHERE "alerts"."confirmed_at" is not null;