-- Every write to the catalogue bumps catalogue_state and tells listening instances to reload.
INSERT INTO "catalogue_state" ("id", "version", "updated_at") VALUES (1, 0, now()) ON CONFLICT DO NOTHING;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION "catalogue_touch"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "catalogue_state" SET "version" = "version" + 1, "updated_at" = clock_timestamp() WHERE "id" = 1;
  PERFORM pg_notify('catalogue_changed', '');
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER "centres_catalogue_touch" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "centres"
  FOR EACH STATEMENT EXECUTE FUNCTION "catalogue_touch"();
--> statement-breakpoint
CREATE TRIGGER "stage_sessions_catalogue_touch" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "stage_sessions"
  FOR EACH STATEMENT EXECUTE FUNCTION "catalogue_touch"();
