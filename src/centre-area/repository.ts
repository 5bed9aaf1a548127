import { and, asc, eq, gte, inArray } from 'drizzle-orm';
import type { Db } from '../db/connect.js';
import { centres, stageSessions } from '../db/schema.js';

export interface AreaSession {
  id: string;
  centreId: string;
  day1: string;
  startTime: string;
  endTime: string;
  priceCents: number;
  capacity: number;
  spotsAvailable: number;
  /** Places held by bookings made on this service. */
  heldHere: number;
  /** The day it was declared to the prefecture, if it was. */
  declaredOn: string | null;
  /** The centre's department: its time zone says what "today" is for it. */
  deptCode: string;
}

/** The centres' scheduled sessions from `today` on, by date. */
export async function upcomingSessions(db: Db, centreIds: readonly string[], today: string): Promise<AreaSession[]> {
  if (centreIds.length === 0) return [];
  return db
    .select({
      id: stageSessions.id,
      centreId: stageSessions.centreId,
      day1: stageSessions.day1,
      startTime: stageSessions.startTime,
      endTime: stageSessions.endTime,
      priceCents: stageSessions.priceCents,
      capacity: stageSessions.capacity,
      spotsAvailable: stageSessions.spotsAvailable,
      heldHere: stageSessions.heldHere,
      declaredOn: stageSessions.declaredOn,
      deptCode: centres.deptCode,
    })
    .from(stageSessions)
    .innerJoin(centres, eq(centres.id, stageSessions.centreId))
    .where(
      and(
        inArray(stageSessions.centreId, [...centreIds]),
        eq(stageSessions.status, 'scheduled'),
        gte(stageSessions.day1, today),
      ),
    )
    .orderBy(asc(stageSessions.day1), asc(stageSessions.startTime));
}

/** The centre a session belongs to, if it exists. */
export async function centreOfSession(db: Db, id: string): Promise<string | undefined> {
  const [row] = await db
    .select({ centreId: stageSessions.centreId })
    .from(stageSessions)
    .where(eq(stageSessions.id, id));
  return row?.centreId;
}

/** A course may be cancelled by the prefecture's rules when fewer than this many people take it. */
export const MIN_TAKEN = 6;
/** How many days before its start a thin session stands out. */
export const RISK_DAYS = 10;

/**
 * Whether a session risks cancellation: fewer than MIN_TAKEN places taken through every channel
 * (capacity − places left) within RISK_DAYS days of its first day.
 */
export function atRisk(session: AreaSession, today: string): boolean {
  const days = (Date.parse(`${session.day1}T00:00:00Z`) - Date.parse(`${today}T00:00:00Z`)) / 86_400_000;
  return days <= RISK_DAYS && session.capacity - session.spotsAvailable < MIN_TAKEN;
}

/** One session as the area shows it, whatever its date or state. */
export async function areaSession(db: Db, id: string): Promise<AreaSession | undefined> {
  const [row] = await db
    .select({
      id: stageSessions.id,
      centreId: stageSessions.centreId,
      day1: stageSessions.day1,
      startTime: stageSessions.startTime,
      endTime: stageSessions.endTime,
      priceCents: stageSessions.priceCents,
      capacity: stageSessions.capacity,
      spotsAvailable: stageSessions.spotsAvailable,
      heldHere: stageSessions.heldHere,
      declaredOn: stageSessions.declaredOn,
      deptCode: centres.deptCode,
    })
    .from(stageSessions)
    .innerJoin(centres, eq(centres.id, stageSessions.centreId))
    .where(eq(stageSessions.id, id));
  return row;
}

/** What cancelling a session and telling its people needs of it, whether or not its centre is on sale. */
export async function sessionToCancel(db: Db, id: string) {
  const [row] = await db
    .select({
      id: stageSessions.id,
      centreId: stageSessions.centreId,
      day1: stageSessions.day1,
      day2: stageSessions.day2,
      city: centres.city,
      centreName: centres.name,
    })
    .from(stageSessions)
    .innerJoin(centres, eq(centres.id, stageSessions.centreId))
    .where(eq(stageSessions.id, id));
  return row;
}

/** How many days before its start a session not yet declared to the prefecture stands out. */
export const DECLARE_WARNING_DAYS = 12;

/** Calendar days from `today` to the session's first day. */
export function daysBefore(session: { day1: string }, today: string): number {
  return Math.round((Date.parse(`${session.day1}T00:00:00Z`) - Date.parse(`${today}T00:00:00Z`)) / 86_400_000);
}

/**
 * Whether a session stands out as not yet declared: no declaredOn, and its first day within
 * DECLARE_WARNING_DAYS calendar days of `today` (the centre's today).
 */
export function notDeclared(session: { day1: string; declaredOn: string | null }, today: string): boolean {
  const days = daysBefore(session, today);
  return session.declaredOn === null && days >= 0 && days <= DECLARE_WARNING_DAYS;
}
