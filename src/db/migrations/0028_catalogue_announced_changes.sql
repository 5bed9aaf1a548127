-- A change announced with what it changed. Each instance read the change log once per notification
-- (catalogue/recent-changes.ts): at 50 changes a second on three instances, three reads of the same
-- rows a change. The notification now carries them when they are few and all sessions': the version,
-- the catalogue's last change (in ms, as that read cuts it) and the changed sessions as they stand
-- (the read's JSON, SESSION_JSON_OBJECT), and the ids of the change (one gone from stage_sessions was
-- deleted); else, or past 7,900 bytes (NOTIFY takes 8,000), the version alone, as before.
-- Built in the writer's session: days by to_char, not ::text (which follows that session's DateStyle).
-- A lone statement's change is announced at its end and sent at COMMIT, as before: a transaction of
-- several such statements (not a catalogueWrite, which is announced once, at COMMIT) sends each
-- statement's state in turn, the last one the committed one.
-- Expand only: an instance of the previous release reads a payload that is not a number as a change
-- of unknown version and reads the log, as it does after a reconnection.
CREATE OR REPLACE FUNCTION "catalogue_announce"(v integer) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  payload text;
BEGIN
  -- Counted to 21 at most: this runs inside COMMIT, under the version lock, after imports of thousands too.
  IF (SELECT count(*) FROM (SELECT 1 FROM "catalogue_changes" WHERE "version" = v LIMIT 21) c) <= 20
    AND NOT EXISTS (SELECT 1 FROM "catalogue_changes" WHERE "version" = v AND ("entity" <> 'session' OR "id" IS NULL)) THEN
    SELECT json_build_object(
      'version', v,
      'updatedMs', round(extract(epoch from date_trunc('milliseconds', st."updated_at")) * 1000)::float8,
      'ids', (SELECT json_agg(c."id") FROM "catalogue_changes" c WHERE c."version" = v),
      'sessions', coalesce((SELECT json_agg(json_build_object('id', s.id::text, 'centreId', s.centre_id::text,
          'courseNumber', s.course_number, 'day1', to_char(s.day1, 'YYYY-MM-DD'),
          'day2', to_char(s.day2, 'YYYY-MM-DD'), 'startTime', s.start_time,
          'endTime', s.end_time, 'priceCents', s.price_cents, 'capacity', s.capacity::int,
          'spotsAvailable', s.spots_available::int, 'status', s.status))
        FROM "stage_sessions" s WHERE s.id IN (SELECT c."id" FROM "catalogue_changes" c WHERE c."version" = v)), '[]'::json)
    )::text INTO payload FROM "catalogue_state" st WHERE st."id" = 1;
    IF octet_length(payload) <= 7900 THEN
      PERFORM pg_notify('catalogue_changed', payload);
      RETURN;
    END IF;
  END IF;
  PERFORM pg_notify('catalogue_changed', v::text);
END
$$;
--> statement-breakpoint
-- Migration 0027's catalogue_log, but for its announcement.
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
  PERFORM "catalogue_announce"(v);
  RETURN NULL;
END
$$;
--> statement-breakpoint
-- Migration 0027's catalogue_flush, but for its announcement.
CREATE OR REPLACE FUNCTION "catalogue_flush"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  v integer;
BEGIN
  IF current_setting('catalogue.flushed', true) = 'on' THEN RETURN NULL; END IF;
  PERFORM set_config('catalogue.flushed', 'on', true);
  UPDATE "catalogue_state" SET "version" = "version" + 1, "updated_at" = clock_timestamp() WHERE "id" = 1
    RETURNING "version" INTO v;
  WITH moved AS (DELETE FROM "catalogue_changes_pending" RETURNING "entity", "id")
  INSERT INTO "catalogue_changes" ("version", "entity", "id") SELECT DISTINCT v, m."entity", m."id" FROM moved m;
  PERFORM "catalogue_announce"(v);
  RETURN NULL;
END
$$;
