import { and, asc, eq, inArray, isNotNull, ne, notInArray, sql } from 'drizzle-orm';
import type { Db } from '../../db/connect.js';
import {
  attendance,
  centres,
  reservationLinks,
  reservations,
  sessionFollowUp,
  stageSessions,
} from '../../db/schema.js';
import type { Tx } from '../../db/write.js';
import { emailKey } from '../form.js';
import { PURGED } from './purge.js';

/** A reservation as the person's data export gives it: what they typed, and what became of it. */
export interface ReservationData {
  reference: string;
  status: string;
  reason: string;
  firstName: string | null;
  lastName: string | null;
  email: string | null;
  phone: string | null;
  bookedAt: string;
  consentAt: string;
  confirmedAt: string | null;
  cancelledAt: string | null;
  cancelledBy: string | null;
  paidAt: string | null;
  /** When the person last moved it to another date (its session is the one now booked). */
  changedAt: string | null;
  session: { courseNumber: string; day1: string; day2: string; startTime: string; endTime: string };
  centre: { name: string; address: string; postalCode: string; city: string; phone: string | null };
  /** The centre's marks of presence, per half-day (1: day 1 morning … 4: day 2 afternoon). */
  attendance: { halfDay: number; present: boolean }[];
}

const iso = (d: Date | null) => d?.toISOString() ?? null;

/**
 * Every reservation still made with `email` (compared lower-cased), oldest first, with its session,
 * its centre and its presence marks; not the internal ids and hashes (the private links', the
 * browser's), which identify nothing a person could read.
 */
export async function reservationDataOf(db: Db, email: string): Promise<ReservationData[]> {
  const rows = await db
    .select({ r: reservations, s: stageSessions, c: centres })
    .from(reservations)
    .innerJoin(stageSessions, eq(stageSessions.id, reservations.sessionId))
    .innerJoin(centres, eq(centres.id, reservations.centreId))
    .where(eq(reservations.emailKey, emailKey(email)))
    .orderBy(asc(reservations.createdAt), asc(reservations.id));
  const ids = rows.map((row) => row.r.id);
  const marks = ids.length
    ? await db.select().from(attendance).where(inArray(attendance.reservationId, ids)).orderBy(asc(attendance.halfDay))
    : [];
  return rows.map(({ r, s, c }) => ({
    reference: r.reference,
    status: r.status,
    reason: r.reason,
    firstName: r.firstName,
    lastName: r.lastName,
    email: r.email,
    phone: r.phone,
    bookedAt: r.createdAt.toISOString(),
    consentAt: r.consentAt.toISOString(),
    confirmedAt: iso(r.confirmedAt),
    cancelledAt: iso(r.cancelledAt),
    cancelledBy: r.cancelledBy,
    paidAt: iso(r.paidAt),
    changedAt: iso(r.changedAt),
    session: { courseNumber: s.courseNumber, day1: s.day1, day2: s.day2, startTime: s.startTime, endTime: s.endTime },
    centre: { name: c.name, address: c.address, postalCode: c.postalCode, city: c.city, phone: c.phone },
    attendance: marks.filter((m) => m.reservationId === r.id).map((m) => ({ halfDay: m.halfDay, present: m.present })),
  }));
}

/**
 * A person's erasure of their reservations (their "Mes données" page), after their upcoming ones were
 * cancelled by their own cancel path. Each reservation made with `email` is erased as the purge
 * erases it (purge.ts: names, email, phone, hashes, private links; the reference replaced, times cut
 * to the day), except one the centre still needs: not cancelled (the course has begun, so it could
 * not be cancelled) and its list of attendees not yet exported. That one keeps the person's name,
 * reason and reference — the centre sends the prefecture the attestation of the course with them
 * (Code de la route R223-8) — and loses the email, phone, hashes and links; the monthly purge erases
 * the rest by its own rule. Erasing again finds nothing more. Returns how many of each.
 */
export async function eraseReservationsOf(tx: Tx, email: string): Promise<{ erased: number; keptForCentre: number }> {
  const key = emailKey(email);
  const exported = tx
    .select({ id: sessionFollowUp.sessionId })
    .from(sessionFollowUp)
    .where(isNotNull(sessionFollowUp.attendanceExportedAt));
  // First the ones the centre needs (their email key goes, so the next update no longer finds them)…
  const kept = await tx
    .update(reservations)
    .set({ email: null, emailKey: null, phone: null, browserHash: null, updatedAt: sql`now()` })
    .where(
      and(
        eq(reservations.emailKey, key),
        ne(reservations.status, 'cancelled'),
        notInArray(reservations.sessionId, exported),
      ),
    )
    .returning({ id: reservations.id });
  // …then every other.
  const erased = await tx
    .update(reservations)
    .set(PURGED)
    .where(eq(reservations.emailKey, key))
    .returning({ id: reservations.id });
  const ids = [...kept, ...erased].map((r) => r.id);
  if (ids.length) await tx.delete(reservationLinks).where(inArray(reservationLinks.reservationId, ids));
  return { erased: erased.length, keptForCentre: kept.length };
}
