import { and, desc, eq, getTableColumns, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../db/connect.js';
import { reservations } from '../../db/schema.js';
import type { ReservationRow, ReservationStatus } from './rows.js';

/** Which reservations a key may see: all (operator) or its centre's (partner). */
export interface ReadScope {
  centreId: string | null;
}

export interface ReservationFilter {
  sessionId?: string | undefined;
  status?: ReservationStatus | undefined;
  reference?: string | undefined;
  /** Reservations after this one in (createdAt desc, id desc) order: the previous page's cursor. */
  before?: { createdAt: Date; id: string } | undefined;
  limit: number;
}

// Pages are cut on (creation time, id). The database keeps microseconds and a cursor carries a
// JavaScript date (milliseconds): both sides compare at millisecond precision, or rows would be skipped.
const CREATED_MS = sql<Date>`date_trunc('milliseconds', ${reservations.createdAt})`;

/** Newest first. */
export async function listReservations(db: Db, scope: ReadScope, filter: ReservationFilter) {
  const conditions: (SQL | undefined)[] = [
    scope.centreId === null ? undefined : eq(reservations.centreId, scope.centreId),
    filter.sessionId ? eq(reservations.sessionId, filter.sessionId) : undefined,
    filter.status ? eq(reservations.status, filter.status) : undefined,
    filter.reference ? eq(reservations.reference, filter.reference) : undefined,
    filter.before
      ? sql`(${CREATED_MS}, ${reservations.id}) < (${filter.before.createdAt.toISOString()}::timestamptz, ${filter.before.id}::uuid)`
      : undefined,
  ];
  return db
    .select({
      ...getTableColumns(reservations),
      /** This row's position for the next page's cursor, at the precision the cursor compares. */
      cursorAt: sql<string>`to_char(${CREATED_MS} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`,
    })
    .from(reservations)
    .where(and(...conditions))
    .orderBy(desc(CREATED_MS), desc(reservations.id))
    .limit(filter.limit);
}

export async function getReservation(db: Db, id: string): Promise<ReservationRow | undefined> {
  const [row] = await db.select().from(reservations).where(eq(reservations.id, id));
  return row;
}
