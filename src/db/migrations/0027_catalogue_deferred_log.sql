CREATE TABLE "catalogue_changes_pending" (
	"entity" text NOT NULL,
	"id" uuid NOT NULL
);
--> statement-breakpoint
-- The version lock held only while PostgreSQL commits. A writer that sets catalogue.deferred = 'on'
-- (db/write.ts: every catalogueWrite) no longer takes a version at each statement's end, which held
-- catalogue_state's row lock across all its later round trips to the client (history, hooks,
-- COMMIT) while every other writer waited: the statement's rows go to catalogue_changes_pending,
-- and a deferred constraint trigger, run by COMMIT itself, takes one version for the whole
-- transaction, moves them into catalogue_changes and NOTIFYs it. Writers still commit one after the
-- other in version order (the row lock is taken inside COMMIT and held to its end), and they take it
-- last, after every row lock of theirs, so it cannot close a deadlock among them.
-- Expand only: without catalogue.deferred (the previous release, a wholesale replacement, a lone
-- statement) the function does exactly what migration 0004's did.
CREATE OR REPLACE FUNCTION "catalogue_log"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  v integer;
  entity text := TG_ARGV[0];
BEGIN
  IF TG_OP = 'INSERT' THEN
    IF NOT EXISTS (SELECT 1 FROM new_rows) THEN RETURN NULL; END IF;
  ELSIF TG_OP = 'DELETE' THEN
    IF NOT EXISTS (SELECT 1 FROM old_rows) THEN RETURN NULL; END IF;
  ELSIF TG_OP = 'UPDATE' THEN
    IF NOT EXISTS (SELECT 1 FROM new_rows) THEN RETURN NULL; END IF;
  END IF;
  IF TG_OP <> 'TRUNCATE' AND current_setting('catalogue.deferred', true) = 'on'
    AND coalesce(current_setting('catalogue.bulk', true), '') <> 'on' THEN
    IF TG_OP = 'INSERT' THEN
      INSERT INTO "catalogue_changes_pending" ("entity", "id") SELECT entity, n."id" FROM new_rows n;
    ELSIF TG_OP = 'DELETE' THEN
      INSERT INTO "catalogue_changes_pending" ("entity", "id") SELECT entity, o."id" FROM old_rows o;
    ELSE
      INSERT INTO "catalogue_changes_pending" ("entity", "id")
        SELECT entity, n."id" FROM new_rows n
        UNION SELECT entity, o."id" FROM old_rows o;
    END IF;
    RETURN NULL;
  END IF;
  UPDATE "catalogue_state" SET "version" = "version" + 1, "updated_at" = clock_timestamp() WHERE "id" = 1
    RETURNING "version" INTO v;
  IF TG_OP = 'TRUNCATE' OR current_setting('catalogue.bulk', true) = 'on' THEN
    INSERT INTO "catalogue_changes" ("version", "entity", "id") VALUES (v, 'reset', NULL);
  ELSIF TG_OP = 'INSERT' THEN
    INSERT INTO "catalogue_changes" ("version", "entity", "id") SELECT v, entity, n."id" FROM new_rows n;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO "catalogue_changes" ("version", "entity", "id") SELECT v, entity, o."id" FROM old_rows o;
  ELSE
    INSERT INTO "catalogue_changes" ("version", "entity", "id")
      SELECT v, entity, n."id" FROM new_rows n
      UNION SELECT v, entity, o."id" FROM old_rows o;
  END IF;
  PERFORM pg_notify('catalogue_changed', v::text);
  RETURN NULL;
END
$$;
--> statement-breakpoint
-- Fired at COMMIT once per pending row; the first firing moves them all (a writer sees only its own:
-- no pending row is ever committed), the others find the transaction's flag set and return.
CREATE FUNCTION "catalogue_flush"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  v integer;
BEGIN
  IF current_setting('catalogue.flushed', true) = 'on' THEN RETURN NULL; END IF;
  PERFORM set_config('catalogue.flushed', 'on', true);
  UPDATE "catalogue_state" SET "version" = "version" + 1, "updated_at" = clock_timestamp() WHERE "id" = 1
    RETURNING "version" INTO v;
  WITH moved AS (DELETE FROM "catalogue_changes_pending" RETURNING "entity", "id")
  INSERT INTO "catalogue_changes" ("version", "entity", "id") SELECT DISTINCT v, m."entity", m."id" FROM moved m;
  PERFORM pg_notify('catalogue_changed', v::text);
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER "catalogue_changes_pending_flush" AFTER INSERT ON "catalogue_changes_pending"
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION "catalogue_flush"();
