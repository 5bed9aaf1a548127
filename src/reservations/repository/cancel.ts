import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/connect.js';
import { reservationLinks, reservations, stageSessions } from '../../db/schema.js';
import { catalogueWrite, type Tx } from '../../db/write.js';
import { emailKey } from '../form.js';
import { secretHash } from '../secrets.js';
import { givePlaceBack } from './places.js';
import type { ReservationRow } from './rows.js';

export type Canceller = 'person' | 'centre' | 'operator';

/**
 * Cancels a reservation and gives its place back, in one transaction. The place goes back only
 * if the reservation was still holding it (not already cancelled): from held here to on sale.
 */
export async function cancelIn(tx: Tx, row: ReservationRow, by: Canceller): Promise<ReservationRow> {
  const [cancelled] = await tx
    .update(reservations)
    .set({ status: 'cancelled', cancelledAt: sql`now()`, cancelledBy: by, updatedAt: sql`now()` })
    .where(and(eq(reservations.id, row.id), sql`${reservations.status} <> 'cancelled'`))
    .returning();
  if (!cancelled) return row;
  await givePlaceBack(tx, row.sessionId);
  return cancelled;
}

export type PersonCancel =
  | { kind: 'cancelled'; reservation: ReservationRow }
  | { kind: 'already'; reservation: ReservationRow }
  | { kind: 'begun'; reservation: ReservationRow }
  | { kind: 'unknown' };

/** The person cancels from the private link, up to the day before the course. */
export async function cancelByPerson(
  db: Db,
  token: string,
  today: (sessionId: string) => string,
): Promise<PersonCancel> {
  return catalogueWrite(db, async (tx) => {
    const [found] = await tx
      .select({ r: reservations, day1: stageSessions.day1 })
      .from(reservationLinks)
      .innerJoin(reservations, eq(reservations.id, reservationLinks.reservationId))
      .innerJoin(stageSessions, eq(stageSessions.id, reservations.sessionId))
      .where(eq(reservationLinks.tokenHash, secretHash(token)))
      .for('update', { of: reservations });
    return personCancelIn(tx, found, today);
  });
}

/**
 * The same cancellation by a signed-in person from their area: the reservation `id`, only if it
 * was made with their email (compared lower-cased); another person's id is unknown.
 */
export async function cancelByEmail(
  db: Db,
  id: string,
  email: string,
  today: (sessionId: string) => string,
): Promise<PersonCancel> {
  return catalogueWrite(db, async (tx) => {
    const [found] = await tx
      .select({ r: reservations, day1: stageSessions.day1 })
      .from(reservations)
      .innerJoin(stageSessions, eq(stageSessions.id, reservations.sessionId))
      .where(and(eq(reservations.id, id), eq(reservations.emailKey, emailKey(email))))
      .for('update', { of: reservations });
    return personCancelIn(tx, found, today);
  });
}

/** The person's cancellation rule: up to the day before the course, once. */
async function personCancelIn(
  tx: Tx,
  found: { r: ReservationRow; day1: string } | undefined,
  today: (sessionId: string) => string,
): Promise<PersonCancel> {
  if (!found) return { kind: 'unknown' };
  if (found.r.status === 'cancelled') return { kind: 'already', reservation: found.r };
  if (found.day1 <= today(found.r.sessionId)) return { kind: 'begun', reservation: found.r };
  return { kind: 'cancelled', reservation: await cancelIn(tx, found.r, 'person') };
}
