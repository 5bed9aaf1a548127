import { eq } from 'drizzle-orm';
import type { Db } from '../db/connect.js';
import { reservations, stageSessions } from '../db/schema.js';
import type { DeliveryPayload } from './events.js';

/**
 * Whether a subscription may receive a person's details: only a centre's own subscription (it
 * sees them in its bookings already), and only over https. All-centre subscriptions and http
 * URLs (WEBHOOK_ALLOW_PRIVATE) receive ids only.
 */
export function mayCarryPerson(subscription: { centreId: string | null; url: string }): boolean {
  return subscription.centreId !== null && subscription.url.startsWith('https://');
}

async function sessionData(db: Db, sessionId: string) {
  const [s] = await db
    .select({
      status: stageSessions.status,
      day1: stageSessions.day1,
      day2: stageSessions.day2,
      priceCents: stageSessions.priceCents,
      capacity: stageSessions.capacity,
      spotsAvailable: stageSessions.spotsAvailable,
    })
    .from(stageSessions)
    .where(eq(stageSessions.id, sessionId));
  if (!s) return { removed: true };
  const { priceCents, ...rest } = s;
  return { ...rest, priceEuros: priceCents / 100 };
}

async function reservationData(db: Db, reservationId: string, withPerson: boolean) {
  const [r] = await db.select().from(reservations).where(eq(reservations.id, reservationId));
  if (!r) return { reservation: { id: reservationId, removed: true } };
  const reservation = {
    id: r.id,
    reference: r.reference,
    status: r.status,
    createdAt: r.createdAt.toISOString(),
    confirmedAt: r.confirmedAt?.toISOString() ?? null,
    cancelledAt: r.cancelledAt?.toISOString() ?? null,
  };
  // Purged reservations have no details left: nothing to send, whoever asks.
  if (!withPerson || r.purgedAt) return { reservation };
  return {
    reservation: {
      ...reservation,
      person: { firstName: r.firstName, lastName: r.lastName, email: r.email, phone: r.phone },
    },
  };
}

/**
 * The body of a delivery, Standard Webhooks' `{type, timestamp, data}`: `data` names the changed
 * resource by its ids and gives it as it is when delivered (a later event says what changed after).
 */
export async function eventBody(
  db: Db,
  event: DeliveryPayload,
  subscription: { centreId: string | null; url: string },
): Promise<string> {
  const data: Record<string, unknown> = {};
  if (event.centreId) data.centreId = event.centreId;
  if (event.sessionId) data.sessionId = event.sessionId;
  if (event.type === 'session.changed' && event.sessionId) data.session = await sessionData(db, event.sessionId);
  if (event.reservationId)
    Object.assign(data, await reservationData(db, event.reservationId, mayCarryPerson(subscription)));
  // A date change names both sessions as they were at the change (the resource may change again).
  if (event.change) data.change = event.change;
  if (event.type === 'webhook.test') data.subscriptionId = event.subscriptionId;
  return JSON.stringify({ type: event.type, timestamp: event.occurredAt, data });
}
