import { and, desc, eq, inArray, isNull, like, sql } from 'drizzle-orm';
import type { Db } from '../db/connect.js';
import { jobs, webhookDeliveries, webhookSubscriptions } from '../db/schema.js';
import type { Tx } from '../db/write.js';
import { orderingPrefix } from './events.js';

export type SubscriptionRow = typeof webhookSubscriptions.$inferSelect;
export type DeliveryRow = typeof webhookDeliveries.$inferSelect;

/** Which subscriptions a key reaches: all (operator) or one centre's (partner). */
export interface SubscriptionScope {
  centreId: string | null;
}

const inScope = (scope: SubscriptionScope) =>
  scope.centreId === null ? undefined : eq(webhookSubscriptions.centreId, scope.centreId);

export async function createSubscription(
  db: Db,
  values: { centreId: string | null; url: string; events: string[]; secret: string; createdBy: string | null },
): Promise<SubscriptionRow> {
  const [row] = await db.insert(webhookSubscriptions).values(values).returning();
  return row as SubscriptionRow;
}

export async function listSubscriptions(db: Db, scope: SubscriptionScope): Promise<SubscriptionRow[]> {
  return db
    .select()
    .from(webhookSubscriptions)
    .where(inScope(scope))
    .orderBy(desc(webhookSubscriptions.createdAt), desc(webhookSubscriptions.id));
}

/** One subscription, or undefined when it does not exist or is out of the scope. */
export async function getSubscription(
  db: Db,
  id: string,
  scope: SubscriptionScope,
): Promise<SubscriptionRow | undefined> {
  const [row] = await db
    .select()
    .from(webhookSubscriptions)
    .where(and(eq(webhookSubscriptions.id, id), inScope(scope)));
  return row;
}

/** The newest delivery tries of a subscription. */
export async function lastDeliveries(db: Db, subscriptionId: string, limit = 20): Promise<DeliveryRow[]> {
  return db
    .select()
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.subscriptionId, subscriptionId))
    .orderBy(desc(webhookDeliveries.id))
    .limit(limit);
}

/** Deletes a subscription, its delivery log and its deliveries still waiting; false when out of reach. */
export async function deleteSubscription(db: Db, id: string, scope: SubscriptionScope): Promise<boolean> {
  return db.transaction(async (tx) => {
    const gone = await tx
      .delete(webhookSubscriptions)
      .where(and(eq(webhookSubscriptions.id, id), inScope(scope)))
      .returning({ id: webhookSubscriptions.id });
    if (gone.length === 0) return false;
    await tx.delete(jobs).where(and(eq(jobs.state, 'pending'), like(jobs.orderingKey, `${orderingPrefix(id)}%`)));
    return true;
  });
}

/** The active subscriptions that may want events (any centre's, or all-centre ones). */
export async function activeSubscriptions(db: Db | Tx, centreIds: string[]): Promise<SubscriptionRow[]> {
  if (centreIds.length === 0) return [];
  return db
    .select()
    .from(webhookSubscriptions)
    .where(
      and(
        isNull(webhookSubscriptions.disabledAt),
        sql`(${webhookSubscriptions.centreId} is null or ${inArray(webhookSubscriptions.centreId, centreIds)})`,
      ),
    );
}
