import { randomUUID } from 'node:crypto';
import type { Clock } from '../core/clock.js';
import type { Db } from '../db/connect.js';
import { enqueue } from '../jobs/enqueue.js';
import { orderingKey, TEST_EVENT, WEBHOOK_JOB } from './events.js';
import { DELIVERY_MAX_ATTEMPTS } from './record-events.js';
import type { SubscriptionRow } from './subscriptions.js';

/**
 * Queues a `webhook.test` delivery to an (enabled) subscription, signed and retried like any
 * other event: the admin API's "send a test" and the centres' area's button. Returns its event id;
 * the caller wakes the worker.
 */
export async function queueTestEvent(db: Db, clock: Clock, subscription: SubscriptionRow): Promise<string> {
  const eventId = `evt_${randomUUID()}`;
  await enqueue(
    db,
    WEBHOOK_JOB,
    {
      eventId,
      type: TEST_EVENT,
      subscriptionId: subscription.id,
      occurredAt: clock.now().toISOString(),
      centreId: subscription.centreId,
    },
    { maxAttempts: DELIVERY_MAX_ATTEMPTS, orderingKey: orderingKey(subscription.id, undefined) },
  );
  return eventId;
}
