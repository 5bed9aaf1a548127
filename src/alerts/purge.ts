import { and, inArray, isNull, lt, lte, or } from 'drizzle-orm';
import type { Db } from '../db/connect.js';
import { alertConfirmationsSent, alerts, stageSessions } from '../db/schema.js';
import { UNCONFIRMED_DAYS } from './confirm-alert.js';

const DAY_MS = 86_400_000;

/**
 * Deletes, with their email, criteria and links, the alerts that ended — their end passed (a
 * session alert's session started, a search alert's window closed), or their session was
 * cancelled (a session gone from the catalogue takes its alerts with it: the foreign key) — and
 * those left unconfirmed for UNCONFIRMED_DAYS; and forgets confirmation emails counted more than a
 * day ago. Run every hour by every instance (plugin.ts). Returns how many alerts were deleted.
 */
export async function purgeAlerts(db: Db, now: Date): Promise<number> {
  const cancelledSessions = db
    .select({ id: stageSessions.id })
    .from(stageSessions)
    .where(inArray(stageSessions.status, ['cancelled']));
  const deleted = await db
    .delete(alerts)
    .where(
      or(
        lte(alerts.endsAt, now),
        inArray(alerts.sessionId, cancelledSessions),
        and(isNull(alerts.confirmedAt), lt(alerts.createdAt, new Date(now.getTime() - UNCONFIRMED_DAYS * DAY_MS))),
      ),
    )
    .returning({ id: alerts.id });
  await db.delete(alertConfirmationsSent).where(lt(alertConfirmationsSent.sentAt, new Date(now.getTime() - DAY_MS)));
  return deleted.length;
}
