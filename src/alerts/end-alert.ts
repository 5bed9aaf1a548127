import { and, eq } from 'drizzle-orm';
import { secretHash } from '../core/secrets.js';
import type { Db } from '../db/connect.js';
import { alertLinks, alerts } from '../db/schema.js';

/**
 * Ends the alert of an unsubscribe link (any of its emails' links): it is deleted with its email,
 * criteria and links at once. `false` when the link leads to no alert (already ended, or never was).
 */
export async function unsubscribe(db: Db, token: string): Promise<boolean> {
  const [link] = await db
    .select({ alertId: alertLinks.alertId })
    .from(alertLinks)
    .where(and(eq(alertLinks.tokenHash, secretHash(token)), eq(alertLinks.purpose, 'unsubscribe')));
  if (!link) return false;
  const deleted = await db.delete(alerts).where(eq(alerts.id, link.alertId)).returning({ id: alerts.id });
  return deleted.length > 0;
}

/** Removes one of a signed-in person's alerts (/mon-espace): only one made with their email. */
export async function removeAlertOf(db: Db, alertId: string, emailKey: string): Promise<boolean> {
  const deleted = await db
    .delete(alerts)
    .where(and(eq(alerts.id, alertId), eq(alerts.emailKey, emailKey)))
    .returning({ id: alerts.id });
  return deleted.length > 0;
}
