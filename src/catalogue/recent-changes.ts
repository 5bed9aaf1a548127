import { sql } from 'drizzle-orm';
import type { Db } from '../db/connect.js';
import { executePrepared } from '../db/prepared.js';
import type { CatalogueDelta, SessionRecord } from './read-model.js';

/**
 * Past this many versions at once, or with a centre among them, the change log is read by the full
 * read (repository.ts's readChangesSince: pages with a turn of the event loop between them, centres'
 * sessions with them). Under a steady stream of writes a catch-up finds one or a few.
 */
export const FEW_CHANGES = 200;

/** Each session as the read model's SessionRecord, the same values as the full read's columns. */
export const SESSION_JSON_OBJECT = `json_build_object('id', id::text, 'centreId', centre_id::text, 'courseNumber', course_number,
   'day1', day1::text, 'day2', day2::text, 'startTime', start_time, 'endTime', end_time,
   'priceCents', price_cents, 'capacity', capacity::int, 'spotsAvailable', spots_available::int,
   'status', status)`;

/**
 * One statement, so one snapshot of the database without a transaction around it: the catalogue's
 * version and last change (cut to the millisecond, as a Date read from its text holds it; rounded
 * after the cut, exact whether extract gives a numeric or a double), the log after `since` (at most
 * FEW_CHANGES + 1 rows, as JSON [version, entity, id] in the order the full read has them: the
 * aggregate reads the materialised `ch` in its own order, so rows of one version keep theirs), and —
 * only when those are few and all sessions' — the changed sessions as they now stand, found by their
 * key (`= any (array(…))`: with `in (select …)`, the plan kept for every call scanned all sessions
 * once the log held many rows, since it cannot know how few follow `since`).
 */
const READ = (since: number) => sql`with st as (select version, updated_at from catalogue_state where id = 1),
  ch as (select version, entity, id from catalogue_changes
    where version > ${since} and version <= (select version from st) order by version limit ${FEW_CHANGES + 1})
  select st.version, round(extract(epoch from date_trunc('milliseconds', st.updated_at)) * 1000)::float8 as "updatedMs",
    (select json_agg(json_build_array(version, entity, id)) from ch)::text as changes,
    case when (select count(*) from ch) <= ${FEW_CHANGES} and not exists (select from ch where entity <> 'session' or id is null)
      then (select json_agg(${sql.raw(SESSION_JSON_OBJECT)}) from stage_sessions where id = any (array(select id from ch)))::text
    end as sessions
  from st`;

interface Row {
  version: number | string;
  updatedMs: number | string;
  changes: string | null;
  sessions: string | null;
}

/**
 * What changed after version `since`, as readChangesSince says it, in one round trip when the log
 * holds a few session changes since (what a catch-up finds under a steady stream of writes: a
 * transaction of five statements cost each instance about 0.5 ms of CPU per change). `more` when
 * the full read must say: many changes, or a centre's. Undefined when nothing changed, `reload`
 * when the log cannot say (the database is older than `since`, or the log was pruned past it, or a
 * wholesale replacement is in it).
 */
export async function readRecentChanges(
  db: Db,
  since: number,
): Promise<CatalogueDelta | 'reload' | 'more' | undefined> {
  // Kept planned on PostgreSQL: planning it cost more than running it (db/prepared.ts).
  const { rows } = await executePrepared<Row>(db, 'catalogue_recent_changes', READ(since));
  return deltaOf(rows[0], since);
}

function deltaOf(row: Row | undefined, since: number): CatalogueDelta | 'reload' | 'more' | undefined {
  const version = Number(row?.version ?? 0);
  if (version === since) return undefined;
  if (version < since) return 'reload'; // the database was replaced by an older one
  const changes = JSON.parse(row?.changes ?? '[]') as [number, string, string | null][];
  if (changes.length > FEW_CHANGES) return 'more';
  if (changes[0]?.[0] !== since + 1) return 'reload';
  const ids: string[] = [];
  for (const [, entity, id] of changes) {
    if (entity === 'reset' || id === null) return 'reload';
    if (entity !== 'session') return 'more';
    ids.push(id);
  }
  return sessionsChange(version, Number(row?.updatedMs), ids, JSON.parse(row?.sessions ?? '[]') as SessionRecord[]);
}

/** A change of sessions alone: each changed id, null unless it still stands (a deleted session has no row). */
function sessionsChange(
  version: number,
  updatedMs: number,
  ids: readonly string[],
  records: readonly SessionRecord[],
): CatalogueDelta {
  const sessions = new Map<string, SessionRecord | null>();
  for (const id of ids) sessions.set(id, null);
  for (const record of records) sessions.set(record.id, record);
  return { version, updatedAt: new Date(updatedMs), centres: new Map(), sessions };
}

/**
 * What a notification announces: the new version, and for a change of a few sessions (migration
 * 0028) the change itself, as readRecentChanges would read it — so that an instance that did not make
 * it applies it without reading the log. Undefined for no payload (a reconnection) or one that says
 * nothing readable: the caller then reads the log.
 */
export interface Announcement {
  readonly version: number;
  readonly delta?: CatalogueDelta;
}

interface AnnouncedChange {
  version: number;
  updatedMs: number;
  ids: string[] | null;
  sessions: SessionRecord[];
}

export function announcementOf(payload: string | undefined): Announcement | undefined {
  if (!payload) return undefined;
  if (!payload.startsWith('{')) {
    const version = Number(payload);
    return Number.isSafeInteger(version) ? { version } : undefined;
  }
  let said: AnnouncedChange;
  try {
    said = JSON.parse(payload) as AnnouncedChange;
  } catch {
    return undefined;
  }
  const { version, updatedMs, ids } = said;
  if (!Number.isSafeInteger(version)) return undefined;
  if (!Number.isFinite(updatedMs) || !Array.isArray(ids) || !Array.isArray(said.sessions)) return { version };
  return { version, delta: sessionsChange(version, updatedMs, ids, said.sessions) };
}
