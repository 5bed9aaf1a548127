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
