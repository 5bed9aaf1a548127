-- A writer told the version its commit took. A catalogueWrite's answer must hold its own commit, so the
-- writer read the change log after COMMIT (one round trip a write, on top of the announcement every
-- instance, the writer's too, hears and applies anyway). A writer that sets catalogue.tell = 'on' for
-- its transaction (db/write.ts) is now sent a notice naming each version its statements or its COMMIT
-- take (the deferred log takes its one inside COMMIT, before COMMIT answers), and waits for its own
-- instance to apply that version as announced. Other sessions (psql, a previous release) set nothing
-- and hear nothing.
-- Expand only: a previous release's writer does not set catalogue.tell, and reads the log as before.
CREATE OR REPLACE FUNCTION "catalogue_tell"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE NOTICE USING MESSAGE = 'catalogue version ' || NEW."version";
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER "catalogue_state_tell" AFTER UPDATE OF "version" ON "catalogue_state" FOR EACH ROW
  WHEN (NEW."version" <> OLD."version" AND current_setting('catalogue.tell', true) = 'on')
  EXECUTE FUNCTION "catalogue_tell"();
