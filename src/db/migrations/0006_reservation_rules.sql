-- Places held by reservations are part of a session's capacity, whoever writes the session: a
-- centre's absolute write (PUT, PATCH, import) or a relative one can never leave more places for
-- sale than the capacity minus the reservations that hold one. The check runs on each written row,
-- in the writer's transaction (reservations of a session change only under the catalogue lock).
CREATE FUNCTION "stage_sessions_reservation_rules"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  held integer;
BEGIN
  IF TG_OP = 'UPDATE' AND NEW.status = 'cancelled' AND OLD.status <> 'cancelled' THEN
    -- A cancelled session cancels its reservations: nobody keeps a place in a course that will not run.
    UPDATE "reservations" SET "status" = 'cancelled', "cancelled_at" = now(), "cancelled_by" = 'centre', "updated_at" = now()
      WHERE "session_id" = NEW.id AND "status" <> 'cancelled';
  END IF;
  IF TG_OP = 'UPDATE' AND NEW.centre_id <> OLD.centre_id THEN
    -- Reservations follow their session to its new centre (whose partner key then reads them).
    UPDATE "reservations" SET "centre_id" = NEW.centre_id, "updated_at" = now() WHERE "session_id" = NEW.id;
  END IF;
  SELECT count(*) INTO held FROM "reservations" WHERE "session_id" = NEW.id AND "status" <> 'cancelled';
  IF held > 0 AND NEW.spots_available + held > NEW.capacity THEN
    RAISE EXCEPTION 'places held by reservations' USING
      ERRCODE = '23514',
      CONSTRAINT = 'stage_sessions_places_held',
      DETAIL = format('%s reservations hold a place; capacity %s leaves at most %s for sale', held, NEW.capacity, NEW.capacity - held);
  END IF;
  RETURN NEW;
END
$$;
--> statement-breakpoint
CREATE TRIGGER "stage_sessions_reservation_rules" BEFORE UPDATE ON "stage_sessions"
  FOR EACH ROW EXECUTE FUNCTION "stage_sessions_reservation_rules"();
