import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/connect.js';
import { reservations } from '../../db/schema.js';
import { catalogueWrite } from '../../db/write.js';
import { WriteRefused } from '../../db/write-refused.js';
import { emailKey } from '../form.js';
import { newReference, secretHash } from '../secrets.js';
import { holdBecame, takeHeldPlace } from './held-place.js';
import { addLink } from './links.js';
import { takePlace, whyNoPlace } from './places.js';
import type { BookingOutcome, BookingRequest, ReservationRow } from './rows.js';

/**
 * How long after booking the same browser may be led to its reservation again. Compared with
 * the database's clock, which stamped the reservation's createdAt.
 */
const AGAIN_WINDOW = sql`interval '30 minutes'`;

/**
 * Books one place, in one transaction: the place is taken by one conditional UPDATE (never below
 * 0, whatever runs at the same time on any instance) and the reservation stored with it, or
 * neither. Like every catalogue write it first takes the catalogue's version lock, so bookings of
 * one catalogue commit one after the other and the same-address check below cannot race.
 * With `holdId`, the place an agent held for the person is the booking's, when the hold still
 * holds it (src/reservations/repository/held-place.ts): no second place is taken.
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
        // The place an agent held for this booking, if its hold still holds one; else a place on sale.
        const held = request.holdId
          ? await takeHeldPlace(tx, request.holdId, request.sessionId, request.now)
          : undefined;
        const session = held ?? (await takePlace(tx, request.sessionId, request.now));
        if (!session) return { kind: await whyNoPlace(tx, request.sessionId, request.now) };
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
        if (held && request.holdId) await holdBecame(tx, request.holdId, row.id);
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
