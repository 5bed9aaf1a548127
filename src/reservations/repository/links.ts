import { eq } from 'drizzle-orm';
import type { Db } from '../../db/connect.js';
import { reservationLinks, reservations } from '../../db/schema.js';
import { secretHash } from '../secrets.js';
import type { ReservationRow } from './rows.js';

/** The reservation a private link leads to (purged reservations have no links left). */
export async function findByToken(db: Db, token: string): Promise<ReservationRow | undefined> {
  const [row] = await db
    .select({ r: reservations })
    .from(reservationLinks)
    .innerJoin(reservations, eq(reservations.id, reservationLinks.reservationId))
    .where(eq(reservationLinks.tokenHash, secretHash(token)));
  return row?.r;
}
