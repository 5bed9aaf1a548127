import { desc, eq } from 'drizzle-orm';
import { OVERSEAS_TIME_ZONES } from '../../catalogue/geography.js';
import { METROPOLITAN_TIME_ZONE } from '../../core/clock.js';
import type { Db } from '../../db/connect.js';
import { centres, reservations, stageSessions } from '../../db/schema.js';
import { emailKey } from '../form.js';
import type { ReservationStatus } from './rows.js';

/** One of a person's reservations, with its session and centre, as their area lists it. */
export interface PersonReservation {
  id: string;
  reference: string;
  status: ReservationStatus;
  reason: string;
  cancelledBy: string | null;
  session: { id: string; day1: string; day2: string; startTime: string; endTime: string; cancelled: boolean };
  centre: {
    name: string;
    address: string;
    postalCode: string;
    city: string;
    phone: string | null;
    timeZone: string;
    cancellationTerms: string | null;
  };
}

/**
 * Every reservation made with `email` (compared lower-cased, as bookings store it), latest session
 * first. A purged reservation has no email left, so it is nobody's any more and is not listed.
 */
export async function reservationsForEmail(db: Db, email: string): Promise<PersonReservation[]> {
  const rows = await db
    .select({
      id: reservations.id,
      reference: reservations.reference,
      status: reservations.status,
      reason: reservations.reason,
      cancelledBy: reservations.cancelledBy,
      sessionId: reservations.sessionId,
      day1: stageSessions.day1,
      day2: stageSessions.day2,
      startTime: stageSessions.startTime,
      endTime: stageSessions.endTime,
      sessionStatus: stageSessions.status,
      name: centres.name,
      address: centres.address,
      postalCode: centres.postalCode,
      city: centres.city,
      phone: centres.phone,
      deptCode: centres.deptCode,
      cancellationTerms: centres.cancellationTerms,
    })
    .from(reservations)
    .innerJoin(stageSessions, eq(stageSessions.id, reservations.sessionId))
    .innerJoin(centres, eq(centres.id, reservations.centreId))
    .where(eq(reservations.emailKey, emailKey(email)))
    .orderBy(desc(stageSessions.day1), desc(reservations.createdAt));
  return rows.map((r) => ({
    id: r.id,
    reference: r.reference,
    status: r.status as ReservationStatus,
    reason: r.reason,
    cancelledBy: r.cancelledBy,
    session: {
      id: r.sessionId,
      day1: r.day1,
      day2: r.day2,
      startTime: r.startTime,
      endTime: r.endTime,
      cancelled: r.sessionStatus === 'cancelled',
    },
    centre: {
      name: r.name,
      address: r.address,
      postalCode: r.postalCode,
      city: r.city,
      phone: r.phone,
      timeZone: OVERSEAS_TIME_ZONES[r.deptCode] ?? METROPOLITAN_TIME_ZONE,
      cancellationTerms: r.cancellationTerms,
    },
  }));
}
