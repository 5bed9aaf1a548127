import { eq } from 'drizzle-orm';
import type { Db } from '../../db/connect.js';
import { reservationLinks, reservations } from '../../db/schema.js';
import type { Tx } from '../../db/write.js';
import { newLinkToken, secretHash } from '../secrets.js';
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

/** A new private link to a reservation, in the caller's transaction: its secret, in clear only here. */
export async function addLink(tx: Tx, reservationId: string): Promise<string> {
  const token = newLinkToken();
  await tx.insert(reservationLinks).values({ tokenHash: secretHash(token), reservationId });
  return token;
}
