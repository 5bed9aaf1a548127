import { eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/connect.js';
import { reservations } from '../../db/schema.js';
import { catalogueWrite } from '../../db/write.js';
import type { Actor } from '../../history/actor.js';
import { recordChanges } from '../../history/record.js';
import type { ReadScope } from './list.js';
import type { ReservationRow } from './rows.js';
import { StatusRefused } from './status.js';

/**
 * The centre marks a reservation paid (or takes the mark back): `paid_at` is the time it was
 * marked (`at`, the service's clock), and the history records who did it (field `paid`, no → yes). Marking it as it already is
 * changes nothing and records nothing. A catalogue write, so that subscribers hear
 * `reservation.changed` like for any other change of a reservation.
 */
export async function setReservationPaid(
  db: Db,
  id: string,
  paid: boolean,
  scope: ReadScope,
  actor: Actor,
  at: Date,
): Promise<ReservationRow> {
  return catalogueWrite(db, async (tx) => {
    const [row] = await tx.select().from(reservations).where(eq(reservations.id, id)).for('update');
    if (!row || (scope.centreId !== null && row.centreId !== scope.centreId))
      throw new StatusRefused(404, 'not_found', `No reservation of yours has the id ${id}.`);
    if ((row.paidAt !== null) === paid) return row;
    await recordChanges(tx, actor, [
      {
        centreId: row.centreId,
        entity: 'reservation',
        entityId: row.id,
        field: 'paid',
        oldValue: paid ? 'no' : 'yes',
        newValue: paid ? 'yes' : 'no',
      },
    ]);
    const [changed] = await tx
      .update(reservations)
      .set({ paidAt: paid ? at : null, updatedAt: sql`now()` })
      .where(eq(reservations.id, id))
      .returning();
    return changed as ReservationRow;
  });
}
