import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/connect.js';
import { reservationLinks, reservations, stageSessions } from '../../db/schema.js';
import { catalogueWrite, type Tx } from '../../db/write.js';
import { WriteRefused } from '../../db/write-refused.js';
import { emailKey } from '../form.js';
import { newLinkToken, newReference, secretHash } from '../secrets.js';
import type { BookingOutcome, BookingRequest, ReservationRow } from './rows.js';
import { centreOpen, sessionStart } from './session-start.js';

/**
 * How long after booking the same browser may be led to its reservation again. Compared with
 * the database's clock, which stamped the reservation's createdAt.
 */
const AGAIN_WINDOW = sql`interval '30 minutes'`;

async function addLink(tx: Tx, reservationId: string): Promise<string> {
  const token = newLinkToken();
  await tx.insert(reservationLinks).values({ tokenHash: secretHash(token), reservationId });
  return token;
}

/**
 * Books one place, in one transaction: the place is taken by one conditional UPDATE (never below
 * 0, whatever runs at the same time on any instance) and the reservation stored with it, or
 * neither. Like every catalogue write it first takes the catalogue's version lock, so bookings of
 * one catalogue commit one after the other and the same-address check below cannot race.
 */
export async function bookPlace(db: Db, request: BookingRequest): Promise<BookingOutcome> {
  const key = emailKey(request.details.email);
  const browserHash = secretHash(request.browser);
  for (let attempt = 1; ; attempt++) {
    try {
      return await catalogueWrite(db, async (tx): Promise<BookingOutcome> => {
        const [found] = await tx
          .select({ row: reservations, recent: sql<boolean>`${reservations.createdAt} > now() - ${AGAIN_WINDOW}` })
          .from(reservations)
          .where(
            and(
              eq(reservations.sessionId, request.sessionId),
              eq(reservations.emailKey, key),
              sql`${reservations.status} <> 'cancelled'`,
            ),
          );
        if (found) {
          const existing = found.row;
          // The same browser, shortly after: a second tap or a refresh of the form. Later, the cookie alone
          // (which a shared computer keeps) must not open the reservation again.
          const recent = found.recent;
          if (existing.browserHash !== browserHash || !recent) return { kind: 'duplicate' };
          return { kind: 'again', reservation: existing, token: await addLink(tx, existing.id) };
        }
        const [session] = await tx
          .update(stageSessions)
          .set({
            spotsAvailable: sql`${stageSessions.spotsAvailable} - 1`,
            heldHere: sql`${stageSessions.heldHere} + 1`,
            updatedAt: sql`now()`,
          })
          .where(
            and(
              eq(stageSessions.id, request.sessionId),
              eq(stageSessions.status, 'scheduled'),
              sql`${sessionStart} > ${request.now.toISOString()}::timestamptz`,
              sql`${stageSessions.spotsAvailable} > 0`,
              centreOpen(request.now),
            ),
          )
          .returning({ centreId: stageSessions.centreId });
        if (!session) {
          const [current] = await tx
            .select({
              status: stageSessions.status,
              begun: sql<boolean>`${sessionStart} <= ${request.now.toISOString()}::timestamptz or not ${centreOpen(request.now)}`,
            })
            .from(stageSessions)
            .where(eq(stageSessions.id, request.sessionId));
          return current && current.status === 'scheduled' && !current.begun ? { kind: 'full' } : { kind: 'closed' };
        }
        const d = request.details;
        const [reservation] = await tx
          .insert(reservations)
          .values({
            reference: newReference(),
            sessionId: request.sessionId,
            centreId: session.centreId,
            reason: d.reason,
            firstName: d.firstName,
            lastName: d.lastName,
            email: d.email,
            emailKey: key,
            phone: d.phone,
            browserHash,
            consentAt: sql`now()`,
          })
          .returning();
        const row = reservation as ReservationRow;
        const booked = { reservation: row, token: await addLink(tx, row.id) };
        await request.onBooked?.(tx, booked);
        return { kind: 'booked', ...booked };
      });
    } catch (err) {
      // Two references out of 2^40 collided: draw another.
      if (attempt < 3 && err instanceof WriteRefused && err.errors?.[0]?.name === 'reference') continue;
      throw err;
    }
  }
}
