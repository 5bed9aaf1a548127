import { z } from 'zod';
import { uuidField } from '../admin/schemas.js';
import { WEBHOOK_EVENTS } from './events.js';
import type { DeliveryRow, SubscriptionRow } from './subscriptions.js';

export const WebhookInputSchema = z
  .object({
    url: z
      .string({ error: 'url must be a string' })
      .max(2000, 'url must be at most 2000 characters')
      .pipe(z.url({ error: 'url must be an absolute URL' })),
    events: z
      .array(z.enum(WEBHOOK_EVENTS, { error: `each event must be one of ${WEBHOOK_EVENTS.join(', ')}` }), {
        error: 'events must be an array of event names',
      })
      .min(1, 'events must name at least one event')
      .refine((e) => new Set(e).size === e.length, 'events must not repeat an event'),
    centreId: uuidField('centreId')
      .optional()
      .describe('The centre whose events it receives; absent with an operator key: every centre.'),
  })
  .strict();

const iso = (d: Date | null) => d?.toISOString() ?? null;

export const WebhookSchema = z
  .object({
    id: z.uuid(),
    url: z.string(),
    events: z.array(z.enum(WEBHOOK_EVENTS)),
    centreId: z.uuid().nullable().describe('Null: every centre (operator subscription).'),
    createdAt: z.iso.datetime(),
    failingSince: z.iso
      .datetime()
      .nullable()
      .describe('Since when deliveries fail without a success; null when they work.'),
    disabledAt: z.iso.datetime().nullable().describe('Disabled after 3 days of failures: it receives nothing more.'),
  })
  .meta({ id: 'Webhook' });

export const CreatedWebhookSchema = WebhookSchema.extend({
  secret: z.string().describe('The signing secret (whsec_…), shown this once: keep it.'),
}).meta({ id: 'CreatedWebhook' });

export const DeliverySchema = z
  .object({
    at: z.iso.datetime(),
    eventId: z.string().describe('The webhook-id header sent.'),
    type: z.string(),
    attempt: z.int(),
    statusCode: z.int().nullable().describe('The receiver’s HTTP status; null when none came (refused, timeout).'),
    error: z.string().nullable().describe('Why the try failed (a class and code); null on success.'),
  })
  .meta({ id: 'WebhookDelivery' });

export const WebhookDetailSchema = WebhookSchema.extend({
  deliveries: z.array(DeliverySchema).describe('The newest delivery tries, newest first.'),
}).meta({ id: 'WebhookDetail' });

export function webhookView(s: SubscriptionRow): z.infer<typeof WebhookSchema> {
  return {
    id: s.id,
    url: s.url,
    events: s.events as z.infer<typeof WebhookSchema>['events'],
    centreId: s.centreId,
    createdAt: s.createdAt.toISOString(),
    failingSince: iso(s.failingSince),
    disabledAt: iso(s.disabledAt),
  };
}

export function deliveryView(d: DeliveryRow): z.infer<typeof DeliverySchema> {
  return {
    at: d.at.toISOString(),
    eventId: d.eventId,
    type: d.type,
    attempt: d.attempt,
    statusCode: d.statusCode,
    error: d.error,
  };
}
