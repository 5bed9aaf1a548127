CREATE TABLE "reservation_links" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"reservation_id" uuid NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "reservations" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"reference" text NOT NULL,
	"session_id" uuid NOT NULL,
	"centre_id" uuid NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"reason" text NOT NULL,
	"first_name" text,
	"last_name" text,
	"email" text,
	"email_key" text,
	"phone" text,
	"browser_hash" text,
	"consent_at" timestamp with time zone NOT NULL,
	"confirmed_at" timestamp with time zone,
	"cancelled_at" timestamp with time zone,
	"cancelled_by" text,
	"purged_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "reservations_reference_unique" UNIQUE("reference"),
	CONSTRAINT "reservations_status" CHECK ("reservations"."status" in ('pending', 'confirmed', 'cancelled')),
	CONSTRAINT "reservations_reason" CHECK ("reservations"."reason" in ('voluntary', 'probationary', 'court')),
	CONSTRAINT "reservations_cancelled_by" CHECK ("reservations"."cancelled_by" is null or "reservations"."cancelled_by" in ('person', 'centre', 'operator'))
);
--> statement-breakpoint
ALTER TABLE "reservation_links" ADD CONSTRAINT "reservation_links_reservation_id_reservations_id_fk" FOREIGN KEY ("reservation_id") REFERENCES "public"."reservations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reservations" ADD CONSTRAINT "reservations_session_id_stage_sessions_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."stage_sessions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reservations" ADD CONSTRAINT "reservations_centre_id_centres_id_fk" FOREIGN KEY ("centre_id") REFERENCES "public"."centres"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "reservation_links_reservation_idx" ON "reservation_links" USING btree ("reservation_id");--> statement-breakpoint
CREATE INDEX "reservations_session_idx" ON "reservations" USING btree ("session_id");--> statement-breakpoint
CREATE INDEX "reservations_centre_idx" ON "reservations" USING btree ("centre_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "reservations_one_active_per_email" ON "reservations" USING btree ("session_id","email_key") WHERE "reservations"."status" <> 'cancelled' and "reservations"."email_key" is not null;