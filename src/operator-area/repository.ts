import { and, asc, desc, eq, ilike, isNotNull, or, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../db/connect.js';
import { centres, reservations, stageSessions } from '../db/schema.js';

/*
 * What the operators' pages read that no other door reads: centres searched by what an operator
 * types, the approvals ending soon, and a centre's bookings with their sessions. Writes go through
 * the admin API's own functions (src/admin/repository), not here.
 */

export type CentreRow = typeof centres.$inferSelect;

/** Most centres a search page shows. */
export const SEARCH_LIMIT = 50;

const likePattern = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * Centres whose name, city or approval number contains `query` (any case), or whose department is
 * it; all of them (by name, at most SEARCH_LIMIT) when it is empty.
 */
export async function searchCentres(db: Db, query: string): Promise<CentreRow[]> {
  const q = query.trim();
  const where: SQL | undefined = q
    ? or(
        ilike(centres.name, likePattern(q)),
        ilike(centres.city, likePattern(q)),
        ilike(centres.agrementNumber, likePattern(q)),
        eq(centres.deptCode, q.toUpperCase()),
      )
    : undefined;
  return db.select().from(centres).where(where).orderBy(asc(centres.name), asc(centres.id)).limit(SEARCH_LIMIT);
}

/** Centres whose approval (5 years from approved_on) ends within `days` of `today`, or has ended: soonest first. */
export async function approvalsEnding(db: Db, today: string, days: number): Promise<CentreRow[]> {
  return db
    .select()
    .from(centres)
    .where(
      and(
        isNotNull(centres.approvedOn),
        sql`(${centres.approvedOn} + interval '5 years')::date <= ${today}::date + ${days}::int`,
      ),
    )
    .orderBy(asc(centres.approvedOn), asc(centres.name));
}

/** The suspended centres, most recently suspended first. */
export async function suspendedCentres(db: Db): Promise<CentreRow[]> {
  return db.select().from(centres).where(isNotNull(centres.suspendedAt)).orderBy(desc(centres.suspendedAt));
}

export async function centreById(db: Db, id: string): Promise<CentreRow | undefined> {
  const [row] = await db.select().from(centres).where(eq(centres.id, id));
  return row;
}

export interface CentreBooking {
  id: string;
  reference: string;
  status: string;
  firstName: string | null;
  lastName: string | null;
  email: string | null;
  phone: string | null;
  createdAt: Date;
  day1: string;
  startTime: string;
  courseNumber: string;
}

/** A centre's bookings made on the site, newest first, with their session's day: kept while it is suspended. */
export async function centreBookings(db: Db, centreId: string, limit = 200): Promise<CentreBooking[]> {
  return db
    .select({
      id: reservations.id,
      reference: reservations.reference,
      status: reservations.status,
      firstName: reservations.firstName,
      lastName: reservations.lastName,
      email: reservations.email,
      phone: reservations.phone,
      createdAt: reservations.createdAt,
      day1: stageSessions.day1,
      startTime: stageSessions.startTime,
      courseNumber: stageSessions.courseNumber,
    })
    .from(reservations)
    .innerJoin(stageSessions, eq(stageSessions.id, reservations.sessionId))
    .where(eq(reservations.centreId, centreId))
    .orderBy(desc(reservations.createdAt), desc(reservations.id))
    .limit(limit);
}
