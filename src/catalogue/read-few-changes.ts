import { sql } from 'drizzle-orm';
import type { Db } from '../db/connect.js';
import type { CatalogueDelta, CentreRecord, SessionRecord } from './read-model.js';
import { SESSION_JSON_SELECT } from './repository.js';

// At most this many change-log rows are read in one statement; more go the paged way (readChangesSince).
const FEW = 200;

// The centres' public columns as one JSON object per row, named and typed as repository.ts's
// centreColumns read them (a date as its ISO text, doubles as numbers).
const CENTRE_JSON = sql.raw(
  `json_build_object('id', id::text, 'slug', slug, 'name', name, 'address', address, 'city', city,
   'postalCode', postal_code, 'deptCode', dept_code, 'lat', lat, 'lng', lng, 'agrementNumber', agrement_number,
   'email', email, 'phone', phone, 'approvedOn', approved_on::text, 'cancellationTerms', cancellation_terms)`,
);

interface Row {
  version: number;
  /** Milliseconds since the epoch, as a Date holds them. */
  updatedAt: number;
  changes: string | null;
  centres: string | null;
  sessions: string;
}

/**
 * What changed after version `since`, as readChangesSince says it, in ONE statement — the version,
 * the log after `since`, the changed centres and sessions as they are now — when the log holds
 * at most FEW rows past it (the usual catch-up: a few writes). One statement sees one snapshot, so
 * no transaction is needed: one round trip instead of five, each of which waits for the event
 * loop of a busy instance, and a write's answer waits for a catch-up. `many` when there are more.
 */
export async function readFewChanges(db: Db, since: number): Promise<CatalogueDelta | 'reload' | 'many' | undefined> {
  const result = await db.execute(sql`
    with st as (select version, updated_at from catalogue_state where id = 1),
    ch as (
      select c.version, c.entity, c.id from catalogue_changes c
      where c.version > ${since} and c.version <= (select version from st)
      order by c.version limit ${FEW + 1}
    )
    select (select version from st) as version, (select floor(extract(epoch from updated_at) * 1000)::float8 from st) as "updatedAt",
      (select json_agg(json_build_array(version, entity, id::text) order by version) from ch)::text as changes,
      (select json_agg(${CENTRE_JSON})
        from centres where id in (select id from ch where entity = 'centre') and suspended_at is null)::text as centres,
      (select '[' || coalesce(string_agg(s.j, ','), '') || ']' from (${SESSION_JSON_SELECT}
        where id in (select id from ch where entity = 'session')
          or centre_id in (select id from ch where entity = 'centre')) s) as sessions`);
  const row = (result as unknown as { rows: Row[] }).rows[0];
  const version = row?.version ?? 0;
  if (version === since) return undefined;
  if (version < since) return 'reload'; // the database was replaced by an older one
  const changes = JSON.parse(row?.changes ?? '[]') as [number, string, string | null][];
  if (changes.length > FEW) return 'many';
  if (changes[0]?.[0] !== since + 1) return 'reload'; // pruned past `since`
  const centres = new Map<string, CentreRecord | null>();
  const sessions = new Map<string, SessionRecord | null>();
  for (const [, entity, id] of changes) {
    if (entity === 'reset' || id === null) return 'reload';
    (entity === 'centre' ? centres : sessions).set(id, null);
  }
  for (const c of JSON.parse(row?.centres ?? '[]') as CentreRecord[]) centres.set(c.id, c);
  for (const s of JSON.parse(row?.sessions ?? '[]') as SessionRecord[]) sessions.set(s.id, s);
  return { version, updatedAt: new Date(row?.updatedAt ?? 0), centres, sessions };
}
