import { eq, sql } from 'drizzle-orm';
import { DomainError } from '../../core/errors.js';
import type { Db } from '../../db/connect.js';
import { reservations } from '../../db/schema.js';
import { catalogueWrite } from '../../db/write.js';
import type { Actor } from '../../history/actor.js';
import { reservationStatusChange } from '../../history/changes.js';
import { recordChanges } from '../../history/record.js';
import { cancelIn } from './cancel.js';
import type { ReadScope } from './list.js';
import type { ReservationRow } from './rows.js';

/** A status change the reservation's state refuses (unknown to this key, or already cancelled). */
export class StatusRefused extends DomainError {}

/**
 * The centre (or the operator) confirms or cancels: pending → confirmed, pending or confirmed →
 * cancelled (the place goes back). A cancelled reservation stays cancelled: a new booking is a new
 * reservation. Asking for the status it already has changes nothing.
 */
export async function setReservationStatus(
  db: Db,
  id: string,
  status: 'confirmed' | 'cancelled',
  scope: ReadScope,
  actor: Actor,
): Promise<ReservationRow> {
  return catalogueWrite(db, async (tx) => {
    const [row] = await tx.select().from(reservations).where(eq(reservations.id, id)).for('update');
    if (!row || (scope.centreId !== null && row.centreId !== scope.centreId))
      throw new StatusRefused(404, 'not_found', `No reservation of yours has the id ${id}.`);
    if (row.status === status) return row;
    if (row.status === 'cancelled')
      throw new StatusRefused(
        409,
        'reservation_cancelled',
        'This reservation is cancelled and its place was given back; it cannot be confirmed again. The person can book again.',
      );
    // Its status only: the history never holds the person's name, email or phone.
    await recordChanges(tx, actor, reservationStatusChange(row, row.status, status));
    if (status === 'cancelled') return cancelIn(tx, row, scope.centreId === null ? 'operator' : 'centre');
    const [confirmed] = await tx
      .update(reservations)
      .set({ status: 'confirmed', confirmedAt: sql`now()`, updatedAt: sql`now()` })
      .where(eq(reservations.id, id))
      .returning();
    return confirmed as ReservationRow;
  });
}
