import { eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/connect.js';
import { centres } from '../../db/schema.js';
import { catalogueWrite, type Tx } from '../../db/write.js';
import type { Actor } from '../../history/actor.js';
import { centreChanges } from '../../history/changes.js';
import { recordChanges } from '../../history/record.js';
import type { AdminCentre } from '../response-schemas.js';
import type { CentreInput } from '../schemas.js';
import { etagOf, matches, preconditionFailed } from './etag.js';
import { type CentreRow, centreValues, centreView, sameCentre } from './views.js';

export async function getCentre(db: Db | Tx, id: string): Promise<AdminCentre | undefined> {
  const [row] = await db.select().from(centres).where(eq(centres.id, id));
  return row ? centreView(row) : undefined;
}

/** Creates or replaces a centre. */
export async function putCentre(
  db: Db,
  id: string,
  input: CentreInput,
  ifMatch: string | undefined,
  actor: Actor,
): Promise<{ created: boolean; centre: AdminCentre }> {
  return catalogueWrite(db, async (tx) => {
    const [current] = await tx.select().from(centres).where(eq(centres.id, id)).for('update');
    if (!matches(ifMatch, current ? etagOf(centreView(current)) : undefined)) throw preconditionFailed();
    const values = centreValues(input);
    if (current && sameCentre(current, values)) return { created: false, centre: centreView(current) };
    const [row] = current
      ? await tx
          .update(centres)
          .set({ ...values, updatedAt: sql`now()` })
          .where(eq(centres.id, id))
          .returning()
      : await tx
          .insert(centres)
          .values({ id, ...values })
          .returning();
    await recordChanges(tx, actor, centreChanges(id, current, row as CentreRow));
    return { created: !current, centre: centreView(row as CentreRow) };
  });
}

/**
 * Suspends (with its reason) or restores a centre: one catalogue write, so that the change log and
 * its notification take the centre and its sessions off every instance's answers (or bring them
 * back) within a second. Its bookings are untouched. Returns undefined for no such centre.
 */
export async function setCentreSuspension(
  db: Db,
  id: string,
  change: { suspended: boolean; reason?: string | undefined },
  ifMatch: string | undefined,
  actor: Actor,
): Promise<AdminCentre | undefined> {
  return catalogueWrite(db, async (tx) => {
    const [current] = await tx.select().from(centres).where(eq(centres.id, id)).for('update');
    if (!current) return undefined;
    if (!matches(ifMatch, etagOf(centreView(current)))) throw preconditionFailed();
    const values = change.suspended
      ? {
          suspendedAt: current.suspendedAt ?? new Date(),
          suspensionReason: change.reason ?? current.suspensionReason,
        }
      : { suspendedAt: null, suspensionReason: null };
    if (
      current.suspendedAt?.getTime() === values.suspendedAt?.getTime() &&
      current.suspensionReason === values.suspensionReason
    )
      return centreView(current);
    const [row] = await tx
      .update(centres)
      .set({ ...values, updatedAt: sql`now()` })
      .where(eq(centres.id, id))
      .returning();
    await recordChanges(tx, actor, centreChanges(id, current, row as CentreRow));
    return centreView(row as CentreRow);
  });
}
