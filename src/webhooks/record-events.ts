import { randomUUID } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import type { Clock } from '../core/clock.js';
import { catalogueChangesPending, reservations, stageSessions, webhookSubscriptions } from '../db/schema.js';
import type { Tx } from '../db/write.js';
import { enqueueMany } from '../jobs/enqueue.js';
import { type DeliveryPayload, orderingKey, WEBHOOK_JOB, type WebhookEventType } from './events.js';
import { activeSubscriptions } from './subscriptions.js';

/** A receiver down for 24 hours gets about 40 tries (worker backoff up to an hour); this only bounds a runaway. */
export const DELIVERY_MAX_ATTEMPTS = 200;

interface ChangeEvent {
  type: WebhookEventType;
  centreId: string;
  sessionId: string;
  reservationId?: string;
  change?: { fromSessionId: string; toSessionId: string };
}

/**
 * A reservation's event from what this transaction did to it (every write stamps updated_at = now()).
 * A person's date change comes first: the row it cancelled (another centre) or created there is
 * a `reservation.changed`, so that a receiver tells it from a plain cancellation or booking.
 */
function reservationEvent(r: {
  created: boolean;
  cancelled: boolean;
  confirmed: boolean;
  dateChanged: boolean;
}): WebhookEventType {
  if (r.dateChanged) return 'reservation.changed';
  if (r.created) return 'reservation.created';
  if (r.cancelled) return 'reservation.cancelled';
  if (r.confirmed) return 'reservation.confirmed';
  return 'reservation.changed';
}

/** Whether anyone subscribed: otherwise a write has no event to record (one indexed lookup). */
export const anySubscription = () =>
  sql`exists (select 1 from ${webhookSubscriptions} where ${webhookSubscriptions.disabledAt} is null)`;

/**
 * The webhook events of one catalogue write, written in its transaction (a CatalogueWriteHook,
 * db/write.ts): so whatever door changed a session or a reservation — admin API, import, the
 * site's booking form, the person's private link — its subscribers hear of it, and only if it
 * commits. One delivery job per (event, subscription): each subscription's deliveries are retried,
 * ordered and given up on by themselves, so a receiver that is down holds back no other.
 * Reservation events come before their session's `session.changed` (a booking takes a place).
 */
export async function recordWebhookEvents(tx: Tx, clock: Clock): Promise<void> {
  const changedReservations = await tx
    .select({
      id: reservations.id,
      sessionId: reservations.sessionId,
      centreId: reservations.centreId,
      created: sql<boolean>`${reservations.createdAt} = now()`,
      cancelled: sql<boolean>`coalesce(${reservations.cancelledAt} = now(), false)`,
      confirmed: sql<boolean>`coalesce(${reservations.confirmedAt} = now(), false)`,
      dateChanged: sql<boolean>`coalesce(${reservations.changedAt} = now(), false)`,
      changedFrom: reservations.changedFromSessionId,
      changedTo: reservations.changedToSessionId,
    })
    .from(reservations)
    .where(sql`${reservations.updatedAt} = now()`)
    .orderBy(reservations.createdAt, reservations.id);
  const changedSessions = await tx
    .selectDistinct({ sessionId: stageSessions.id, centreId: stageSessions.centreId })
    .from(catalogueChangesPending)
    .innerJoin(stageSessions, eq(stageSessions.id, catalogueChangesPending.id))
    .where(eq(catalogueChangesPending.entity, 'session'))
    .orderBy(stageSessions.id);
  const events: ChangeEvent[] = [
    ...changedReservations.map((r) => ({
      type: reservationEvent(r),
      centreId: r.centreId,
      sessionId: r.sessionId,
      reservationId: r.id,
      ...(r.dateChanged && r.changedFrom && r.changedTo
        ? { change: { fromSessionId: r.changedFrom, toSessionId: r.changedTo } }
        : {}),
    })),
    ...changedSessions.map((s) => ({ type: 'session.changed' as const, centreId: s.centreId, sessionId: s.sessionId })),
  ];
  if (events.length === 0) return;
  const subscriptions = await activeSubscriptions(tx, [...new Set(events.map((e) => e.centreId))]);
  const occurredAt = clock.now().toISOString();
  const items: { payload: DeliveryPayload; orderingKey: string }[] = [];
  for (const event of events) {
    // One id per event: each subscription receives the same webhook-id for it.
    const eventId = `evt_${randomUUID()}`;
    for (const s of subscriptions) {
      if (s.centreId !== null && s.centreId !== event.centreId) continue;
      if (!s.events.includes(event.type)) continue;
      items.push({
        payload: { eventId, subscriptionId: s.id, occurredAt, ...event },
        orderingKey: orderingKey(s.id, event.sessionId),
      });
    }
  }
  await enqueueMany(tx, WEBHOOK_JOB, items, { maxAttempts: DELIVERY_MAX_ATTEMPTS });
}
