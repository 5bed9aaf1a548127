CREATE TABLE "attendance" (
	"reservation_id" uuid NOT NULL,
	"half_day" smallint NOT NULL,
	"present" boolean NOT NULL,
	"marked_at" timestamp with time zone DEFAULT now() NOT NULL,
	"marked_by" uuid,
	CONSTRAINT "attendance_reservation_id_half_day_pk" PRIMARY KEY("reservation_id","half_day"),
	CONSTRAINT "attendance_half_day" CHECK ("attendance"."half_day" between 1 and 4)
);
--> statement-breakpoint
CREATE TABLE "session_follow_up" (
	"session_id" uuid PRIMARY KEY NOT NULL,
	"convocation_sent_at" timestamp with time zone,
	"attendance_exported_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "reservations" ADD COLUMN "paid_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "attendance" ADD CONSTRAINT "attendance_reservation_id_reservations_id_fk" FOREIGN KEY ("reservation_id") REFERENCES "public"."reservations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "attendance" ADD CONSTRAINT "attendance_marked_by_users_id_fk" FOREIGN KEY ("marked_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "session_follow_up" ADD CONSTRAINT "session_follow_up_session_id_stage_sessions_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."stage_sessions"("id") ON DELETE cascade ON UPDATE no action;