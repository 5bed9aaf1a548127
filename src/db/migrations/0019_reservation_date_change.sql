ALTER TABLE "reservations" ADD COLUMN "changed_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "reservations" ADD COLUMN "changed_from_session_id" uuid;--> statement-breakpoint
ALTER TABLE "reservations" ADD COLUMN "changed_to_session_id" uuid;