import { and, eq, gt, isNull } from 'drizzle-orm';
import { secretHash } from '../core/secrets.js';
import type { Db } from '../db/connect.js';
import { alertLinks, alerts } from '../db/schema.js';

/** How long an alert may wait for its confirmation before it is deleted (purge.ts). */
export const UNCONFIRMED_DAYS = 7;

/** Whether `token` confirms a running alert (the confirmation page shows its button only then). */
export async function confirmLinkUsable(db: Db, token: string, now: Date): Promise<boolean> {
  const [row] = await db
    .select({ id: alerts.id })
    .from(alertLinks)
    .innerJoin(alerts, eq(alerts.id, alertLinks.alertId))
    .where(and(eq(alertLinks.tokenHash, secretHash(token)), eq(alertLinks.purpose, 'confirm'), gt(alerts.endsAt, now)));
  return row !== undefined;
}

/**
 * Confirms the alert of a confirmation link (the double opt-in's second step): from now on it is
 * matched. The link is spent. `confirmed` also when it already was (a second tap).
 */
export async function confirmAlert(db: Db, token: string, now: Date): Promise<'confirmed' | 'invalid'> {
  return db.transaction(async (tx) => {
    const [link] = await tx
      .delete(alertLinks)
      .where(and(eq(alertLinks.tokenHash, secretHash(token)), eq(alertLinks.purpose, 'confirm')))
      .returning({ alertId: alertLinks.alertId });
    if (!link) return 'invalid';
    const [alert] = await tx
      .update(alerts)
      .set({ confirmedAt: now })
      .where(and(eq(alerts.id, link.alertId), isNull(alerts.confirmedAt), gt(alerts.endsAt, now)))
      .returning({ id: alerts.id });
    if (alert) return 'confirmed';
    const [running] = await tx
      .select({ id: alerts.id })
      .from(alerts)
      .where(and(eq(alerts.id, link.alertId), gt(alerts.endsAt, now)));
    return running ? 'confirmed' : 'invalid';
  });
}
