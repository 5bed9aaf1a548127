-- Every statement that writes centres or sessions makes one new catalogue version, logs which rows
-- it touched in catalogue_changes (in the writer's own transaction), and NOTIFYs the version.
-- Instances read the log from the version they last applied, so a lost notification costs nothing.
-- The UPDATE of catalogue_state takes its row lock until commit: catalogue writers commit one after
-- the other, in version order, so a reader never sees version n+1 committed before n.
-- A statement that touched no row makes no version. A transaction that sets
-- catalogue.bulk = 'on' (wholesale replacement) logs one `reset` instead of every row.
DROP TRIGGER IF EXISTS "centres_catalogue_touch" ON "centres";
--> statement-breakpoint
DROP TRIGGER IF EXISTS "stage_sessions_catalogue_touch" ON "stage_sessions";
--> statement-breakpoint
DROP FUNCTION IF EXISTS "catalogue_touch"();
--> statement-breakpoint
CREATE FUNCTION "catalogue_log"() RETURNS trigger LANGUAGE plpgsql AS $$
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
CREATE TRIGGER "centres_log_insert" AFTER INSERT ON "centres" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "catalogue_log"('centre');
--> statement-breakpoint
CREATE TRIGGER "centres_log_update" AFTER UPDATE ON "centres" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "catalogue_log"('centre');
--> statement-breakpoint
CREATE TRIGGER "centres_log_delete" AFTER DELETE ON "centres" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "catalogue_log"('centre');
--> statement-breakpoint
CREATE TRIGGER "centres_log_truncate" AFTER TRUNCATE ON "centres"
  FOR EACH STATEMENT EXECUTE FUNCTION "catalogue_log"('centre');
--> statement-breakpoint
CREATE TRIGGER "stage_sessions_log_insert" AFTER INSERT ON "stage_sessions" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "catalogue_log"('session');
--> statement-breakpoint
CREATE TRIGGER "stage_sessions_log_update" AFTER UPDATE ON "stage_sessions" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "catalogue_log"('session');
--> statement-breakpoint
CREATE TRIGGER "stage_sessions_log_delete" AFTER DELETE ON "stage_sessions" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "catalogue_log"('session');
--> statement-breakpoint
CREATE TRIGGER "stage_sessions_log_truncate" AFTER TRUNCATE ON "stage_sessions"
  FOR EACH STATEMENT EXECUTE FUNCTION "catalogue_log"('session');
