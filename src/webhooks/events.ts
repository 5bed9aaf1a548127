import { z } from 'zod';

/** The events a subscription may ask for. */
export const WEBHOOK_EVENTS = [
  'reservation.created',
  'reservation.cancelled',
  'reservation.confirmed',
  'reservation.changed',
  'session.changed',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENTS)[number];

/** Sent by "send a test" only; nobody subscribes to it. */
export const TEST_EVENT = 'webhook.test';

/** The jobs table's kind for one delivery: one event to one subscription. */
export const WEBHOOK_JOB = 'webhook';

/**
 * A delivery job's payload: ids and the event's time only. The body's data is read when it is
 * delivered (the resource as it then is), so no person's details sit in the jobs table and a
 * reservation purged meanwhile is sent without them.
 */
export const deliveryPayload = z.object({
  eventId: z.string(),
  type: z.union([z.enum(WEBHOOK_EVENTS), z.literal(TEST_EVENT)]),
  subscriptionId: z.string(),
  /** ISO instant of the change (the app's clock): the 24 hours of retries run from it. */
  occurredAt: z.string(),
  sessionId: z.string().optional(),
  centreId: z.string().nullable().optional(),
  reservationId: z.string().optional(),
  /** A person's date change (reservation.changed): the session left and the session taken. */
  change: z.object({ fromSessionId: z.string(), toSessionId: z.string() }).optional(),
});
export type DeliveryPayload = z.infer<typeof deliveryPayload>;

/** Events of one subscription and one session are delivered in order: the jobs' ordering key. */
export function orderingKey(subscriptionId: string, sessionId: string | undefined): string {
  return `webhook:${subscriptionId}:${sessionId ?? 'none'}`;
}

/** The ordering keys of a subscription all start with this (to find its pending deliveries). */
export function orderingPrefix(subscriptionId: string): string {
  return `webhook:${subscriptionId}:`;
}
