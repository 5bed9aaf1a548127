import { and, inArray, lt, sql } from 'drizzle-orm';
import type { Db } from '../../db/connect.js';
import { reservationLinks, reservations, stageSessions } from '../../db/schema.js';

/**
 * Erases the personal data of reservations whose session ended before `before` (its second day
 * is earlier): names, email, phone and the browser hash are set to null and the private links
 * deleted. Status, reason and dates stay, so counts remain. Returns how many were erased.
 */
export async function purgePersonalData(db: Db, before: string): Promise<{ reservations: number; links: number }> {
  return db.transaction(async (tx) => {
    const ended = tx.select({ id: stageSessions.id }).from(stageSessions).where(lt(stageSessions.day2, before));
    const erased = await tx
      .update(reservations)
      .set({
        firstName: null,
        lastName: null,
        email: null,
        emailKey: null,
        phone: null,
        browserHash: null,
        // The reference is in the person's and the centre's mailboxes: it must lead to nobody now.
        // Times are kept to the day, enough for counts and not a fingerprint.
        reference: sql`'X-' || ${reservations.id}::text`,
        consentAt: sql`date_trunc('day', ${reservations.consentAt})`,
        createdAt: sql`date_trunc('day', ${reservations.createdAt})`,
        confirmedAt: sql`date_trunc('day', ${reservations.confirmedAt})`,
        cancelledAt: sql`date_trunc('day', ${reservations.cancelledAt})`,
        purgedAt: sql`date_trunc('day', now())`,
        updatedAt: sql`date_trunc('day', now())`,
      })
      .where(and(inArray(reservations.sessionId, ended), sql`${reservations.purgedAt} is null`))
      .returning({ id: reservations.id });
    const ids = erased.map((r) => r.id);
    const links = ids.length
      ? await tx.delete(reservationLinks).where(inArray(reservationLinks.reservationId, ids)).returning({
          h: reservationLinks.tokenHash,
        })
      : [];
    return { reservations: ids.length, links: links.length };
  });
}
