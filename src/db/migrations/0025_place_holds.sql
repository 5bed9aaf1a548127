CREATE TABLE "place_holds" (
	"id" text PRIMARY KEY NOT NULL,
	"session_id" uuid NOT NULL,
	"user_id" uuid,
	"claim_id" text,
	"client_id" text NOT NULL,
	"idempotency_key" text,
	"state" text DEFAULT 'active' NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"ended_at" timestamp with time zone,
	"reservation_id" uuid,
	CONSTRAINT "place_holds_state" CHECK ("place_holds"."state" in ('active', 'completed', 'released', 'expired'))
);
--> statement-breakpoint
ALTER TABLE "place_holds" ADD CONSTRAINT "place_holds_session_id_stage_sessions_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."stage_sessions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "place_holds" ADD CONSTRAINT "place_holds_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "place_holds" ADD CONSTRAINT "place_holds_claim_id_agent_claims_id_fk" FOREIGN KEY ("claim_id") REFERENCES "public"."agent_claims"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "place_holds" ADD CONSTRAINT "place_holds_reservation_id_reservations_id_fk" FOREIGN KEY ("reservation_id") REFERENCES "public"."reservations"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "place_holds_idempotency" ON "place_holds" USING btree ("claim_id","idempotency_key");--> statement-breakpoint
CREATE UNIQUE INDEX "place_holds_one_per_session" ON "place_holds" USING btree ("session_id","user_id") WHERE "place_holds"."state" = 'active';--> statement-breakpoint
CREATE INDEX "place_holds_active_user" ON "place_holds" USING btree ("user_id") WHERE "place_holds"."state" = 'active';--> statement-breakpoint
CREATE INDEX "place_holds_due" ON "place_holds" USING btree ("expires_at") WHERE "place_holds"."state" = 'active';--> statement-breakpoint
-- A cancelled session lets its holds go too, as its reservations (held_here is set to 0 below): an
-- active hold must not later give back a place the session no longer counts.
CREATE OR REPLACE FUNCTION "stage_sessions_reservation_rules"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.status = 'cancelled' AND OLD.status <> 'cancelled' THEN
    -- A cancelled session cancels its reservations: nobody keeps a place in a course that will not run.
    UPDATE "reservations" SET "status" = 'cancelled', "cancelled_at" = now(), "cancelled_by" = 'centre', "updated_at" = now()
      WHERE "session_id" = NEW.id AND "status" <> 'cancelled';
    UPDATE "place_holds" SET "state" = 'released', "ended_at" = now()
      WHERE "session_id" = NEW.id AND "state" = 'active';
    NEW.held_here := 0;
  END IF;
  IF NEW.centre_id <> OLD.centre_id THEN
    -- Reservations follow their session to its new centre (whose partner key then reads them).
    UPDATE "reservations" SET "centre_id" = NEW.centre_id, "updated_at" = now() WHERE "session_id" = NEW.id;
  END IF;
  RETURN NEW;
END
$$;
