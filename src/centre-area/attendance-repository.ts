import { and, asc, eq, inArray, ne, sql } from 'drizzle-orm';
import { OVERSEAS_TIME_ZONES } from '../catalogue/geography.js';
import { METROPOLITAN_TIME_ZONE } from '../core/clock.js';
import type { Db } from '../db/connect.js';
import { attendance, centres, reservations, sessionFollowUp, stageSessions } from '../db/schema.js';
import type { Actor } from '../history/actor.js';
import { recordChanges } from '../history/record.js';

/** The four half-days of a course, in order: present at all four is the attestation's condition. */
export const HALF_DAYS = [
  { n: 1, day: 1, label: 'Jour 1, matin', short: 'J1 matin' },
  { n: 2, day: 1, label: 'Jour 1, après-midi', short: 'J1 après-midi' },
  { n: 3, day: 2, label: 'Jour 2, matin', short: 'J2 matin' },
  { n: 4, day: 2, label: 'Jour 2, après-midi', short: 'J2 après-midi' },
] as const;

/** A session with its centre's address and its paperwork, as the attendance pages and the convocation need it. */
export interface SessionFile {
  id: string;
  centreId: string;
  courseNumber: string;
  day1: string;
  day2: string;
  startTime: string;
  endTime: string;
  status: string;
  centre: { name: string; address: string; postalCode: string; city: string; phone: string | null; timeZone: string };
  convocationSentAt: Date | null;
  attendanceExportedAt: Date | null;
}

export async function sessionFile(db: Db, id: string): Promise<SessionFile | undefined> {
  const [row] = await db
    .select({
      id: stageSessions.id,
      centreId: stageSessions.centreId,
      courseNumber: stageSessions.courseNumber,
      day1: stageSessions.day1,
      day2: stageSessions.day2,
      startTime: stageSessions.startTime,
      endTime: stageSessions.endTime,
      status: stageSessions.status,
      name: centres.name,
      address: centres.address,
      postalCode: centres.postalCode,
      city: centres.city,
      phone: centres.phone,
      deptCode: centres.deptCode,
      convocationSentAt: sessionFollowUp.convocationSentAt,
      attendanceExportedAt: sessionFollowUp.attendanceExportedAt,
    })
    .from(stageSessions)
    .innerJoin(centres, eq(centres.id, stageSessions.centreId))
    .leftJoin(sessionFollowUp, eq(sessionFollowUp.sessionId, stageSessions.id))
    .where(eq(stageSessions.id, id));
  if (!row) return undefined;
  const { name, address, postalCode, city, phone, deptCode, ...session } = row;
  return {
    ...session,
    centre: {
      name,
      address,
      postalCode,
      city,
      phone,
      timeZone: OVERSEAS_TIME_ZONES[deptCode] ?? METROPOLITAN_TIME_ZONE,
    },
  };
}

/** A person booked (not cancelled) on a session, with their presence per half-day (null: not marked). */
export interface BookedPerson {
  id: string;
  reference: string;
  firstName: string | null;
  lastName: string | null;
  email: string | null;
  reason: string;
  status: string;
  marks: [boolean | null, boolean | null, boolean | null, boolean | null];
}

/** The session's bookings that are not cancelled, by name, with their marks. */
export async function bookedPeople(db: Db, sessionId: string): Promise<BookedPerson[]> {
  const rows = await db
    .select({
      id: reservations.id,
      reference: reservations.reference,
      firstName: reservations.firstName,
      lastName: reservations.lastName,
      email: reservations.email,
      reason: reservations.reason,
      status: reservations.status,
    })
    .from(reservations)
    .where(and(eq(reservations.sessionId, sessionId), ne(reservations.status, 'cancelled')))
    .orderBy(sql`lower(${reservations.lastName})`, sql`lower(${reservations.firstName})`, asc(reservations.reference));
  if (rows.length === 0) return [];
  const marks = await db
    .select()
    .from(attendance)
    .where(
      inArray(
        attendance.reservationId,
        rows.map((r) => r.id),
      ),
    );
  return rows.map((r) => {
    const mine: BookedPerson['marks'] = [null, null, null, null];
    for (const m of marks) if (m.reservationId === r.id) mine[m.halfDay - 1] = m.present;
    return { ...r, marks: mine };
  });
}

/** Whether this person was marked present at all four half-days: the attestation's condition. */
export const attendedAll = (p: BookedPerson) => p.marks.every((m) => m === true);

/**
 * The roll call of one half-day: each booked person of the session (not cancelled) is marked present
 * if named in `present`, absent otherwise, by `userId` at `at`; a new call replaces the earlier one.
 */
export async function markHalfDay(
  db: Db,
  people: readonly { id: string }[],
  halfDay: number,
  present: ReadonlySet<string>,
  userId: string,
  at: Date,
): Promise<void> {
  if (people.length === 0) return;
  await db
    .insert(attendance)
    .values(
      people.map((p) => ({ reservationId: p.id, halfDay, present: present.has(p.id), markedAt: at, markedBy: userId })),
    )
    .onConflictDoUpdate({
      target: [attendance.reservationId, attendance.halfDay],
      set: {
        present: sql`excluded.present`,
        markedAt: sql`excluded.marked_at`,
        markedBy: sql`excluded.marked_by`,
      },
    });
}

/**
 * Records that the list of those who attended was exported (the time of the latest export, and
 * who in the history): from then on the purge may erase the session's names (reservations/repository/purge.ts).
 */
export async function markAttendanceExported(
  db: Db,
  session: { id: string; centreId: string },
  actor: Actor,
  at: Date,
): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.insert(sessionFollowUp).values({ sessionId: session.id }).onConflictDoNothing();
    const [state] = await tx
      .select({ exportedAt: sessionFollowUp.attendanceExportedAt })
      .from(sessionFollowUp)
      .where(eq(sessionFollowUp.sessionId, session.id))
      .for('update');
    await tx.update(sessionFollowUp).set({ attendanceExportedAt: at }).where(eq(sessionFollowUp.sessionId, session.id));
    await recordChanges(tx, actor, [
      {
        centreId: session.centreId,
        entity: 'session',
        entityId: session.id,
        field: 'attendanceExportedAt',
        oldValue: state?.exportedAt?.toISOString() ?? null,
        newValue: at.toISOString(),
      },
    ]);
  });
}
