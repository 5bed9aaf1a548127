import { count, eq, sql } from 'drizzle-orm';
import type { Db } from '../db/connect.js';
import { catalogueState, centres, stageSessions } from '../db/schema.js';
import type { CentreRecord, SessionRecord } from './read-model.js';

export interface CatalogueData {
  centres: CentreRecord[];
  sessions: SessionRecord[];
}

export interface StoredCatalogue extends CatalogueData {
  version: number;
  updatedAt: Date;
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
};

const sessionColumns = {
  id: stageSessions.id,
  centreId: stageSessions.centreId,
  courseNumber: stageSessions.courseNumber,
  day1: stageSessions.day1,
  day2: stageSessions.day2,
  startTime: stageSessions.startTime,
  endTime: stageSessions.endTime,
  priceCents: stageSessions.priceCents,
  capacity: stageSessions.capacity,
  spotsAvailable: stageSessions.spotsAvailable,
};

export async function readCatalogueVersion(db: Db): Promise<number> {
  const [row] = await db
    .select({ version: catalogueState.version })
    .from(catalogueState)
    .where(eq(catalogueState.id, 1));
  return row?.version ?? 0;
}

/** Reads the whole catalogue in one consistent snapshot of the database. */
export async function loadCatalogue(db: Db): Promise<StoredCatalogue> {
  return db.transaction(
    async (tx) => {
      const [state] = await tx.select().from(catalogueState).where(eq(catalogueState.id, 1));
      const centreRows = await tx.select(centreColumns).from(centres);
      const sessionRows = await tx.select(sessionColumns).from(stageSessions);
      return {
        version: state?.version ?? 0,
        updatedAt: state?.updatedAt ?? new Date(0),
        centres: centreRows,
        sessions: sessionRows,
      };
    },
    { isolationLevel: 'repeatable read', accessMode: 'read only' },
  );
}

export async function countCentres(db: Db): Promise<number> {
  const [row] = await db.select({ n: count() }).from(centres);
  return row?.n ?? 0;
}

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
    if (options.onlyIfEmpty) {
      const [row] = await tx.select({ n: count() }).from(centres);
      if ((row?.n ?? 0) > 0) return false;
    }
    await tx.delete(stageSessions);
    await tx.delete(centres);
    for (let i = 0; i < data.centres.length; i += INSERT_BATCH) {
      await tx.insert(centres).values(data.centres.slice(i, i + INSERT_BATCH));
    }
    for (let i = 0; i < data.sessions.length; i += INSERT_BATCH) {
      await tx.insert(stageSessions).values(data.sessions.slice(i, i + INSERT_BATCH));
    }
    return true;
  });
}
