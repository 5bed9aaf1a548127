import { and, eq } from 'drizzle-orm';
import type { Db } from '../db/connect.js';
import { alerts } from '../db/schema.js';

/**
 * Ends one alert the agent made under this claim (deleted, as an unsubscribe does). `false` when
 * no such alert is the claim's: another claim's, the site's, or already gone — the same answer for
 * each, so an agent learns nothing of alerts that are not its own.
 */
export async function removeWatch(db: Db, claimId: string, alertId: string): Promise<boolean> {
  const deleted = await db
    .delete(alerts)
    .where(and(eq(alerts.id, alertId), eq(alerts.claimId, claimId)))
    .returning({ id: alerts.id });
  return deleted.length > 0;
}
