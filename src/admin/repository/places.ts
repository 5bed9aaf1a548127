import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/connect.js';
import { stageSessions } from '../../db/schema.js';
import { catalogueWrite, type Told, type Tx } from '../../db/write.js';
import { WriteRefused } from '../../db/write-refused.js';
import type { Actor } from '../../history/actor.js';
import { recordChanges } from '../../history/record.js';
import type { AdminSession } from '../response-schemas.js';
import { claimIdempotencyKey, type Idempotency, rememberAnswer } from './idempotency.js';
import { forbiddenCentre, type WriteScope } from './scope.js';
import { sessionView } from './views.js';

/**
 * Adds `change` to the places on sale, atomically: one conditional UPDATE, so that concurrent calls
 * on any number of instances can never take the count below 0, nor above the capacity less the
 * places held by bookings made here (a relative change is the centre's own sale or release). With an
 * Idempotency-Key, the answer is stored in the same transaction and a retry gets it again instead
 * of a second change.
 */
export async function changePlaces(
  db: Db,
  id: string,
  change: number,
  scope: WriteScope,
  idempotency: Idempotency | undefined,
  actor: Actor,
  told?: Told,
): Promise<{ session: AdminSession; replayed: boolean }> {
  return catalogueWrite(
    db,
    async (tx) => {
      if (idempotency) {
        const stored = await claimIdempotencyKey(tx, idempotency);
        if (stored) return { session: stored, replayed: true };
      }
      const [row] = await tx
        .update(stageSessions)
        .set({ spotsAvailable: sql`${stageSessions.spotsAvailable} + ${change}`, updatedAt: sql`now()` })
        .where(
          and(
            eq(stageSessions.id, id),
            eq(stageSessions.status, 'scheduled'),
            scope.centreId === null ? undefined : eq(stageSessions.centreId, scope.centreId),
            sql`${stageSessions.spotsAvailable} + ${change} between 0 and ${stageSessions.capacity} - ${stageSessions.heldHere}`,
          ),
        )
        .returning();
      if (!row) throw await whyUnchanged(tx, id, change, scope);
      const session = sessionView(row);
      await recordChanges(tx, actor, [
        {
          centreId: row.centreId,
          entity: 'session',
          entityId: id,
          field: 'spotsAvailable',
          oldValue: String(row.spotsAvailable - change),
          newValue: String(row.spotsAvailable),
        },
      ]);
      if (idempotency) await rememberAnswer(tx, idempotency, session);
      return { session, replayed: false };
    },
    told,
  );
}

/** The conditional UPDATE matched nothing: says why (unknown, another centre's, cancelled, out of range). */
async function whyUnchanged(tx: Tx, id: string, change: number, scope: WriteScope): Promise<WriteRefused> {
  const [current] = await tx.select().from(stageSessions).where(eq(stageSessions.id, id));
  if (!current) return new WriteRefused(404, 'not_found', `No session has the id ${id}.`);
  if (scope.centreId !== null && current.centreId !== scope.centreId) return forbiddenCentre();
  if (current.status === 'cancelled')
    return new WriteRefused(409, 'session_cancelled', 'This session is cancelled: its places cannot change.');
  const after = current.spotsAvailable + change;
  const most = current.capacity - current.heldHere;
  const held = current.heldHere > 0 ? ` (${current.heldHere} held by reservations made here)` : '';
  return new WriteRefused(
    409,
    'places_out_of_range',
    `${current.spotsAvailable} place${current.spotsAvailable === 1 ? '' : 's'} on sale, capacity ${current.capacity}${held}: a change of ${change} would leave ${after}, outside 0 to ${most}.`,
  );
}
