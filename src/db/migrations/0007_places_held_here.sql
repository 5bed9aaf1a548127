-- The places model: a session keeps the places held by bookings made here apart from what is on
-- sale, so that a centre's absolute write (PUT, PATCH, import) states its own figure and can never
-- put a booked place back on sale. held_here moves only with bookings and cancellations.
ALTER TABLE "stage_sessions" ADD COLUMN "held_here" smallint DEFAULT 0 NOT NULL;--> statement-breakpoint
UPDATE "stage_sessions" AS s SET "held_here" = h.held
  FROM (SELECT "session_id", count(*)::smallint AS held FROM "reservations" WHERE "status" <> 'cancelled' GROUP BY "session_id") AS h
  WHERE s.id = h."session_id";--> statement-breakpoint
ALTER TABLE "stage_sessions" ADD CONSTRAINT "stage_sessions_held" CHECK ("stage_sessions"."held_here" >= 0);--> statement-breakpoint
ALTER TABLE "stage_sessions" ADD CONSTRAINT "stage_sessions_places_held" CHECK ("stage_sessions"."spots_available" + "stage_sessions"."held_here" <= "stage_sessions"."capacity");--> statement-breakpoint
-- The count of reservations per written row (0006) is now the column and its CHECK above; what
-- remains is what a session's own change does to its reservations.
CREATE OR REPLACE FUNCTION "stage_sessions_reservation_rules"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.status = 'cancelled' AND OLD.status <> 'cancelled' THEN
    -- A cancelled session cancels its reservations: nobody keeps a place in a course that will not run.
    UPDATE "reservations" SET "status" = 'cancelled', "cancelled_at" = now(), "cancelled_by" = 'centre', "updated_at" = now()
      WHERE "session_id" = NEW.id AND "status" <> 'cancelled';
    NEW.held_here := 0;
  END IF;
  IF NEW.centre_id <> OLD.centre_id THEN
    -- Reservations follow their session to its new centre (whose partner key then reads them).
    UPDATE "reservations" SET "centre_id" = NEW.centre_id, "updated_at" = now() WHERE "session_id" = NEW.id;
  END IF;
  RETURN NEW;
END
$$;
