import { and, eq, gt, isNotNull, sql } from 'drizzle-orm';
import type { CatalogueSnapshot } from '../catalogue/read-model.js';
import { alerts, catalogueChangesPending, catalogueState, reservations, stageSessions } from '../db/schema.js';
import type { Tx } from '../db/write.js';
import { enqueue } from '../jobs/enqueue.js';

/** The jobs table's kind of an alert match: the sessions of one catalogue write that gained places or appeared. */
export const ALERT_MATCH_JOB = 'alert-match';

/** Whether some confirmed alert runs at `now`: otherwise a write has none to tell (one indexed lookup). */
export const anyRunningAlert = (now: Date) =>
  sql`exists (select 1 from ${alerts} where ${and(isNotNull(alerts.confirmedAt), gt(alerts.endsAt, now))})`;

/**
 * At the end of every catalogue write, in its transaction (a CatalogueWriteHook, db/write.ts):
 * when some confirmed alert runs, the sessions this write freed a place on (a cancellation, by any
 * door), gave more places to, or created with places, go into one match job (match.ts) — so that
 * whichever door made the change, and only if it commits, the alerts hear of it. "More places"
 * compares with this instance's read model, which holds the catalogue as it was before the write.
 * The payload holds session ids and the catalogue version only.
 */
export async function recordFreedPlaces(tx: Tx, snapshot: CatalogueSnapshot) {
  const changed = await tx
    .selectDistinct({ id: stageSessions.id, spots: stageSessions.spotsAvailable, status: stageSessions.status })
    .from(catalogueChangesPending)
    .innerJoin(stageSessions, eq(stageSessions.id, catalogueChangesPending.id))
    .where(eq(catalogueChangesPending.entity, 'session'));
  const cancelled = await tx
    .selectDistinct({ id: reservations.sessionId })
    .from(reservations)
    .where(and(sql`${reservations.updatedAt} = now()`, sql`${reservations.cancelledAt} = now()`));
  const gained = new Set(cancelled.map((r) => r.id));
  for (const s of changed) {
    if (s.status !== 'scheduled' || s.spots <= 0) continue;
    const before = snapshot.sessionsById.get(s.id);
    if (!before || before.record.spotsAvailable < s.spots) gained.add(s.id);
  }
  if (gained.size === 0) return;
  const [state] = await tx
    .select({ version: catalogueState.version })
    .from(catalogueState)
    .where(eq(catalogueState.id, 1));
  // The write takes its version at COMMIT (db/write.ts): the next one is the least it can be, and
  // the job waits for the catalogue's version as it finds it (match.ts), which holds the write.
  await enqueue(tx, ALERT_MATCH_JOB, { sessionIds: [...gained].sort(), version: (state?.version ?? 0) + 1 });
}
