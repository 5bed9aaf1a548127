import { setImmediate as nextTurn } from 'node:timers/promises';
import { and, asc, count, eq, gt, inArray, isNull, lt, lte, sql } from 'drizzle-orm';
import type { Db } from '../db/connect.js';
import { catalogueChanges, catalogueState, centres, idempotencyKeys, stageSessions } from '../db/schema.js';
import type { CatalogueDelta, CentreRecord, SessionRecord } from './read-model.js';
import { readRecentChanges } from './recent-changes.js';

export interface CatalogueData {
  centres: CentreRecord[];
  sessions: SessionRecord[];
}

export interface StoredCatalogue extends CatalogueData {
  version: number;
  updatedAt: Date;
  /** The version and the last change's time to the microsecond (readCatalogueStamp), read with the rest. */
  stamp: string;
}

const INSERT_BATCH = 1000;
// Serialises catalogue replacement across instances sharing one database.
const REPLACE_LOCK_KEY = 7_312_027;

const centreColumns = {
  id: centres.id,
  slug: centres.slug,
  name: centres.name,
  address: centres.address,
  city: centres.city,
  postalCode: centres.postalCode,
  deptCode: centres.deptCode,
  lat: centres.lat,
  lng: centres.lng,
  agrementNumber: centres.agrementNumber,
  email: centres.email,
  phone: centres.phone,
  approvedOn: centres.approvedOn,
  cancellationTerms: centres.cancellationTerms,
};

// A suspended centre is read as if it did not exist: no entry, no session listed or found by id.
const publicCentre = isNull(centres.suspendedAt);

export async function readCatalogueVersion(db: Db): Promise<number> {
  const [row] = await db
    .select({ version: catalogueState.version })
    .from(catalogueState)
    .where(eq(catalogueState.id, 1));
  return row?.version ?? 0;
}

// Rows per query when reading the catalogue (a FETCH of the whole, the ids of a delta), with a turn
// of the event loop between pages (nextPage), so that reading 200,000 sessions, or the 5,000 an
// import changed, never holds it for long: PGlite runs a query to its end in one go, and its
// promises resolve without waiting on I/O, so awaited pages alone would follow each other within one
// turn (a 25,000-session reload held health for 0.9 s).
const PAGE = 1000;

/** Lets the event loop answer what waits (health, reads) before the next page is read. */
const nextPage = () => nextTurn();
const FETCH_PAGE = sql.raw(`fetch ${PAGE} from catalogue_sessions`);

const SESSION_SELECT = sql.raw(
  `select id::text as id, centre_id::text as "centreId", course_number as "courseNumber", day1::text as day1,
   day2::text as day2, start_time as "startTime", end_time as "endTime", price_cents as "priceCents",
   capacity::int as capacity, spots_available::int as "spotsAvailable", status from stage_sessions`,
);
// The same columns as one JSON text per row, for reading the whole catalogue: on the embedded
// database a row of one field crosses from PGlite to JavaScript about twice as fast as eleven typed
// fields, and JSON.parse is cheaper than the drivers' per-field parsers, and shares the days and times
// the sessions repeat (fields split out of one text took half as much heap again). The text is joined
// by hand: json_build_object was most of PostgreSQL's work in the read (bench/README.md, 2026-11-28,
// evening). The values are a JSON object's: a date's ISO text, numbers' digits, the texts through
// to_json; every column is NOT NULL, which || needs.
const SESSION_JSON_TEXT = `select '{"id":"' || id || '","centreId":"' || centre_id || '","courseNumber":' || to_json(course_number)
   || ',"day1":"' || day1 || '","day2":"' || day2 || '","startTime":' || to_json(start_time)
   || ',"endTime":' || to_json(end_time) || ',"priceCents":' || price_cents || ',"capacity":' || capacity
   || ',"spotsAvailable":' || spots_available || ',"status":' || to_json(status) || '}' as j from stage_sessions`;
const SESSION_JSON_SELECT = sql.raw(SESSION_JSON_TEXT);
// The read model's order (compareSessions): byte order on the texts, uuid order on ids. The
// columns are the table's, not the select's text casts of the same names, so that the index of
// that order (stage_sessions_order_idx) is read instead of every session sorted.
const SESSION_ORDER = sql.raw(
  'order by stage_sessions.day1, stage_sessions.start_time collate "C", stage_sessions.price_cents, stage_sessions.id',
);

/**
 * What loadCatalogue reads, as text: a copy of its result kept by an older build whose reads differ
 * (a column more or less) is not this build's (catalogue/stored-copy.ts).
 */
export const CATALOGUE_READ_SHAPE = `${Object.keys(centreColumns).join(',')}\n${SESSION_JSON_TEXT}`;

const rowsOf = <T>(result: unknown): T[] => (result as { rows: T[] }).rows;

// Every write to centres or sessions bumps the version and sets updated_at to its clock_timestamp()
// (migration 0004's trigger): the pair names one state of the catalogue. The epoch keeps the
// microseconds that a Date would drop and does not depend on the session's time zone.
const STAMP_SELECT = sql.raw(
  `select version::text || '@' || extract(epoch from updated_at)::text as stamp from catalogue_state where id = 1`,
);

/** The catalogue's current state, as loadCatalogue's `stamp` names it: equal stamps, equal catalogues. */
export async function readCatalogueStamp(db: Db): Promise<string> {
  return rowsOf<{ stamp: string }>(await db.execute(STAMP_SELECT))[0]?.stamp ?? 'none';
}

/** Reads the whole catalogue in one consistent snapshot of the database, sessions in session order. */
export async function loadCatalogue(db: Db): Promise<StoredCatalogue> {
  return db.transaction(
    async (tx) => {
      const [state] = await tx.select().from(catalogueState).where(eq(catalogueState.id, 1));
      const [stamped] = rowsOf<{ stamp: string }>(await tx.execute(STAMP_SELECT));
      // Often the same turn as the change log's read that asked for this reload.
      await nextPage();
      const centreRows = await tx.select(centreColumns).from(centres).where(publicCentre);
      await tx.execute(sql`declare catalogue_sessions no scroll cursor for ${SESSION_JSON_SELECT} ${SESSION_ORDER}`);
      const sessionRows: SessionRecord[] = [];
      // The next page is asked for before this one is parsed, so that PostgreSQL reads it meanwhile
      // (a drizzle query starts when its then() is called, not when it is made). Its failure is
      // awaited with it, a turn later: until then it must not count as unhandled.
      const fetchPage = () => {
        const page = tx.execute(FETCH_PAGE).then((result) => rowsOf<{ j: string }>(result));
        page.catch(() => {});
        return page;
      };
      await nextPage();
      let asked = fetchPage();
      for (;;) {
        const page = await asked;
        if (page.length === PAGE) asked = fetchPage();
        for (const row of page) sessionRows.push(JSON.parse(row.j) as SessionRecord);
        if (page.length < PAGE) break;
        await nextPage();
      }
      await tx.execute(sql`close catalogue_sessions`);
      return {
        version: state?.version ?? 0,
        updatedAt: state?.updatedAt ?? new Date(0),
        stamp: stamped?.stamp ?? 'none',
        centres: centreRows,
        sessions: sessionRows,
      };
    },
    { isolationLevel: 'repeatable read', accessMode: 'read only' },
  );
}

// Past this many changed rows, reading them one by one costs more than a full reload.
const MAX_DELTA_ROWS = 5000;

/**
 * What changed after version `since`, read from the change log with the changed rows as they are
 * now, in one consistent snapshot. Undefined when nothing changed; `reload` when the log cannot
 * say (pruned past `since`, a wholesale replacement, or too much at once).
 */
export async function readChangesSince(
  db: Db,
  since: number,
  { oneStatement = true }: { oneStatement?: boolean } = {},
): Promise<CatalogueDelta | 'reload' | undefined> {
  const recent = oneStatement ? await readRecentChanges(db, since) : 'more';
  return recent === 'more' ? readChangesInFull(db, since) : recent;
}

/**
 * readChangesSince in a transaction of several statements, whatever the log holds: many changes
 * read by pages, a changed centre's sessions with it.
 */
export async function readChangesInFull(db: Db, since: number): Promise<CatalogueDelta | 'reload' | undefined> {
  return db.transaction(
    async (tx) => {
      const [state] = await tx.select().from(catalogueState).where(eq(catalogueState.id, 1));
      const version = state?.version ?? 0;
      if (version === since) return undefined;
      if (version < since) return 'reload'; // the database was replaced by an older one
      const changes = await tx
        .select({ version: catalogueChanges.version, entity: catalogueChanges.entity, id: catalogueChanges.id })
        .from(catalogueChanges)
        .where(and(gt(catalogueChanges.version, since), lte(catalogueChanges.version, version)))
        .orderBy(asc(catalogueChanges.version))
        .limit(MAX_DELTA_ROWS + 1);
      if (changes.length > MAX_DELTA_ROWS || changes[0]?.version !== since + 1) return 'reload';
      const centreIds = new Set<string>();
      const sessionIds = new Set<string>();
      for (const c of changes) {
        if (c.entity === 'reset' || c.id === null) return 'reload';
        (c.entity === 'centre' ? centreIds : sessionIds).add(c.id);
      }
      const centreRows = centreIds.size
        ? await tx
            .select(centreColumns)
            .from(centres)
            .where(and(inArray(centres.id, [...centreIds]), publicCentre))
        : [];
      // Every session of a changed centre changes too: its view embeds the centre.
      const sessionRows: SessionRecord[] = [];
      for (const ids of pages([...sessionIds], PAGE)) {
        await nextPage();
        sessionRows.push(
          ...rowsOf<SessionRecord>(await tx.execute(sql`${SESSION_SELECT} where id = any(${pgUuidArray(ids)})`)),
        );
      }
      for (const ids of pages([...centreIds], PAGE / 20)) {
        await nextPage();
        sessionRows.push(
          ...rowsOf<SessionRecord>(await tx.execute(sql`${SESSION_SELECT} where centre_id = any(${pgUuidArray(ids)})`)),
        );
      }
      const changedCentres = new Map<string, CentreRecord | null>([...centreIds].map((id) => [id, null]));
      for (const row of centreRows) changedCentres.set(row.id, row);
      const changedSessions = new Map<string, SessionRecord | null>([...sessionIds].map((id) => [id, null]));
      for (const row of sessionRows) changedSessions.set(row.id, row);
      return {
        version,
        updatedAt: state?.updatedAt ?? new Date(0),
        centres: changedCentres,
        sessions: changedSessions,
      };
    },
    { isolationLevel: 'repeatable read', accessMode: 'read only' },
  );
}

/** The items in pages of `size`. */
function* pages<T>(items: T[], size: number): Generator<T[]> {
  for (let i = 0; i < items.length; i += size) yield items.slice(i, i + size);
}

/** A uuid[] literal bound as one text parameter (both drivers pass it as is). */
function pgUuidArray(ids: readonly string[]) {
  return sql`${`{${ids.join(',')}}`}::uuid[]`;
}

export async function countCentres(db: Db): Promise<number> {
  const [row] = await db.select({ n: count() }).from(centres);
  return row?.n ?? 0;
}

// The records of a replacement go in as one JSON text per statement, read by json_to_recordset:
// a statement of thousands of bound parameters costs more to build and bind than its rows to
// write (the demo's 20,000 sessions in PGlite: 3.9 s with 1,000-row multi-value inserts, 1.6 s so).
// The record's keys are its property names; an absent key reads as null, hence the defaults.
const SESSION_INSERT_BATCH = 5000;
const INSERT_CENTRES = sql.raw(
  `insert into centres (id, slug, name, address, city, postal_code, dept_code, lat, lng, agrement_number,
   email, phone, approved_on, cancellation_terms)
   select id, slug, name, address, city, "postalCode", "deptCode", lat, lng, "agrementNumber",
   email, phone, "approvedOn", "cancellationTerms"`,
);
const CENTRE_RECORD = sql.raw(
  `x(id uuid, slug text, name text, address text, city text, "postalCode" text, "deptCode" text, lat float8,
   lng float8, "agrementNumber" text, email text, phone text, "approvedOn" date, "cancellationTerms" text)`,
);
const INSERT_SESSIONS = sql.raw(
  `insert into stage_sessions (id, centre_id, course_number, day1, day2, start_time, end_time, price_cents,
   capacity, spots_available, status)
   select id, "centreId", "courseNumber", day1, day2, "startTime", "endTime", "priceCents",
   capacity, "spotsAvailable", coalesce(status, 'scheduled')`,
);
const SESSION_RECORD = sql.raw(
  `x(id uuid, "centreId" uuid, "courseNumber" text, day1 date, day2 date, "startTime" text, "endTime" text,
   "priceCents" int, capacity int, "spotsAvailable" int, status text)`,
);

/**
 * Replaces the whole catalogue in one transaction: readers see the old one or the new one.
 * With `onlyIfEmpty`, does nothing (and returns false) when another writer got there first.
 */
export async function replaceCatalogue(
  db: Db,
  data: CatalogueData,
  options: { onlyIfEmpty?: boolean } = {},
): Promise<boolean> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${REPLACE_LOCK_KEY})`);
    // One `reset` in the change log rather than a row per deleted and inserted record: every
    // instance reloads whole after a replacement anyway.
    await tx.execute(sql`select set_config('catalogue.bulk', 'on', true)`);
    if (options.onlyIfEmpty) {
      const [row] = await tx.select({ n: count() }).from(centres);
      if ((row?.n ?? 0) > 0) return false;
    }
    await tx.delete(stageSessions);
    await tx.delete(centres);
    for (let i = 0; i < data.centres.length; i += INSERT_BATCH) {
      await tx.execute(sql`${INSERT_CENTRES} from json_to_recordset(${JSON.stringify(data.centres.slice(i, i + INSERT_BATCH))}::json)
        as ${CENTRE_RECORD}`);
    }
    for (let i = 0; i < data.sessions.length; i += SESSION_INSERT_BATCH) {
      await tx.execute(sql`${INSERT_SESSIONS} from json_to_recordset(${JSON.stringify(data.sessions.slice(i, i + SESSION_INSERT_BATCH))}::json)
        as ${SESSION_RECORD}`);
    }
    return true;
  });
}

// Past this many changed sessions, a resuming consumer is better off reading the list again.
const MAX_REPLAY = 10_000;

/**
 * The sessions changed after version `since` up to `upTo` (a centre's change counts for each of its
 * sessions), for a consumer resuming the change stream; `reset` when the log cannot say (pruned
 * past `since`, a wholesale replacement, or more than a consumer should replay).
 */
export async function sessionsChangedBetween(db: Db, since: number, upTo: number): Promise<string[] | 'reset'> {
  if (since >= upTo) return since === upTo ? [] : 'reset';
  return db.transaction(
    async (tx) => {
      const changes = await tx
        .select({ version: catalogueChanges.version, entity: catalogueChanges.entity, id: catalogueChanges.id })
        .from(catalogueChanges)
        .where(and(gt(catalogueChanges.version, since), lte(catalogueChanges.version, upTo)))
        .orderBy(asc(catalogueChanges.version))
        .limit(MAX_REPLAY + 1);
      if (changes.length > MAX_REPLAY || changes[0]?.version !== since + 1) return 'reset';
      const sessions = new Set<string>();
      const centreIds: string[] = [];
      for (const c of changes) {
        if (c.entity === 'reset' || c.id === null) return 'reset';
        if (c.entity === 'centre') centreIds.push(c.id);
        else sessions.add(c.id);
      }
      if (centreIds.length) {
        const rows = await tx
          .select({ id: stageSessions.id })
          .from(stageSessions)
          .where(inArray(stageSessions.centreId, centreIds));
        for (const r of rows) sessions.add(r.id);
      }
      return sessions.size > MAX_REPLAY ? 'reset' : [...sessions];
    },
    { isolationLevel: 'repeatable read', accessMode: 'read only' },
  );
}

/**
 * Forgets what is only kept for a while: change-log rows older than `keep` (an instance or a
 * stream consumer further behind reloads whole) and stored Idempotency-Key answers older than `keep`
 * (a retry a day later is a new call). Returns how many rows of each went.
 */
export async function pruneHistory(
  db: Db,
  now: Date,
  keepMs: number,
): Promise<{ changes: number; idempotency: number }> {
  const before = new Date(now.getTime() - keepMs);
  const changes = await db
    .delete(catalogueChanges)
    .where(lt(catalogueChanges.changedAt, before))
    .returning({ version: catalogueChanges.version });
  const idempotency = await db
    .delete(idempotencyKeys)
    .where(lt(idempotencyKeys.createdAt, before))
    .returning({ key: idempotencyKeys.key });
  return { changes: changes.length, idempotency: idempotency.length };
}

/**
 * Marks a centre whose approval ended at `endedAt` as changed, unless a write since did: the change
 * log then carries its end to every instance and to the change stream (its sessions removed, with a
 * version a consumer resumes from). The first instance to notice writes; the others find it done.
 */
export async function touchEndedCentre(db: Db, id: string, endedAt: Date): Promise<void> {
  await db
    .update(centres)
    .set({ updatedAt: sql`now()` })
    .where(and(eq(centres.id, id), lt(centres.updatedAt, endedAt)));
}
