import { eq } from 'drizzle-orm';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ADMIN_SECURITY, authResponses, IdParams, scopeOf, unreachable } from '../admin/routes/shared.js';
import { DomainError } from '../core/errors.js';
import { centres } from '../db/schema.js';
import { problemResponse } from '../http/problem.js';
import {
  CreatedWebhookSchema,
  deliveryView,
  WebhookDetailSchema,
  WebhookInputSchema,
  WebhookSchema,
  webhookView,
} from './schemas.js';
import { urlRefusal } from './send.js';
import { newSigningSecret } from './signing.js';
import {
  createSubscription,
  deleteSubscription,
  getSubscription,
  lastDeliveries,
  listSubscriptions,
} from './subscriptions.js';
import { queueTestEvent } from './test-event.js';

const TAGS = ['webhooks'];
const auth = authResponses(
  'An agent access token, or a partner key asking for another centre’s webhooks (or an id that is not of its centre).',
);

/** A partner key naming another centre is refused before its body is validated, as on every admin route. */
async function ownCentreOnly(request: FastifyRequest): Promise<void> {
  const { centreId } = scopeOf(request);
  const asked = (request.body as { centreId?: unknown } | undefined)?.centreId;
  if (centreId !== null && asked !== undefined && asked !== centreId)
    throw new DomainError(403, 'forbidden', 'A partner key may only subscribe for its own centre.');
}

/** /api/admin/webhooks: subscriptions to the events of one centre (partner key) or all (operator key). */
export const webhookRoutes: FastifyPluginAsyncZod = async (app) => {
  const db = app.database.db;
  const { allowPrivate } = app.config.webhooks;

  app.post(
    '/api/admin/webhooks',
    {
      preValidation: ownCentreOnly,
      schema: {
        operationId: 'adminCreateWebhook',
        summary: 'Subscribe a URL to events',
        description:
          'Events are delivered as Standard Webhooks (signed POSTs), at least once and in order per session; see /docs and docs/webhooks.md. A partner key subscribes for its own centre (`centreId` implied); an operator key for one centre or, without `centreId`, all. The answer shows the signing secret once. Only https URLs on the public internet.',
        tags: TAGS,
        security: ADMIN_SECURITY,
        body: WebhookInputSchema,
        response: {
          201: CreatedWebhookSchema,
          400: problemResponse('Invalid body; `errors` names each field.'),
          422: problemResponse('`centreId` names no centre.'),
          ...auth,
        },
      },
    },
    async (request, reply) => {
      const scope = scopeOf(request);
      const { url, events } = request.body;
      const refusal = urlRefusal(new URL(url), allowPrivate);
      if (refusal) throw new DomainError(400, 'invalid_parameters', refusal, [{ name: 'url', reason: refusal }]);
      const centreId = scope.centreId ?? request.body.centreId ?? null;
      if (centreId !== null && scope.centreId === null) {
        const [centre] = await db.select({ id: centres.id }).from(centres).where(eq(centres.id, centreId));
        if (!centre)
          throw new DomainError(422, 'unknown_centre', `No centre has the id ${centreId}.`, [
            { name: 'centreId', reason: 'no centre has this id' },
          ]);
      }
      const secret = newSigningSecret();
      const identity = request.identity;
      const row = await createSubscription(db, {
        centreId,
        url,
        events,
        secret,
        createdBy: identity.kind === 'apiKey' ? identity.keyId : null,
      });
      return reply
        .code(201)
        .header('cache-control', 'no-store')
        .header('location', `/api/admin/webhooks/${row.id}`)
        .send({ ...webhookView(row), secret });
    },
  );

  app.get(
    '/api/admin/webhooks',
    {
      schema: {
        operationId: 'adminListWebhooks',
        summary: 'List webhook subscriptions',
        description: 'Newest first, without their secrets. A partner key sees its own centre’s.',
        tags: TAGS,
        security: ADMIN_SECURITY,
        response: { 200: z.object({ data: z.array(WebhookSchema) }), ...auth },
      },
    },
    async (request, reply) => {
      const rows = await listSubscriptions(db, scopeOf(request));
      return reply.header('cache-control', 'no-store').send({ data: rows.map(webhookView) });
    },
  );

  app.get(
    '/api/admin/webhooks/:id',
    {
      schema: {
        operationId: 'adminGetWebhook',
        summary: 'Read a webhook subscription and its last deliveries',
        description: 'Without its secret; with its newest delivery tries (time, event, status code, attempt, error).',
        tags: TAGS,
        security: ADMIN_SECURITY,
        params: IdParams,
        response: {
          200: WebhookDetailSchema,
          404: problemResponse('No subscription has this id (operator key).'),
          ...auth,
        },
      },
    },
    async (request, reply) => {
      const row = await getSubscription(db, request.params.id, scopeOf(request));
      if (!row) throw unreachable(request, 'webhook', request.params.id);
      const deliveries = await lastDeliveries(db, row.id);
      return reply
        .header('cache-control', 'no-store')
        .send({ ...webhookView(row), deliveries: deliveries.map(deliveryView) });
    },
  );

  app.delete(
    '/api/admin/webhooks/:id',
    {
      schema: {
        operationId: 'adminDeleteWebhook',
        summary: 'Delete a webhook subscription',
        description: 'It receives nothing more; its deliveries still waiting are dropped.',
        tags: TAGS,
        security: ADMIN_SECURITY,
        params: IdParams,
        response: {
          204: z.null().describe('Deleted.'),
          404: problemResponse('No subscription has this id (operator key).'),
          ...auth,
        },
      },
    },
    async (request, reply) => {
      if (!(await deleteSubscription(db, request.params.id, scopeOf(request))))
        throw unreachable(request, 'webhook', request.params.id);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/api/admin/webhooks/:id/test',
    {
      schema: {
        operationId: 'adminTestWebhook',
        summary: 'Send a test event',
        description:
          'Queues a `webhook.test` delivery to the subscription, signed like any other; its outcome shows in the subscription’s deliveries.',
        tags: TAGS,
        security: ADMIN_SECURITY,
        params: IdParams,
        response: {
          202: z.object({ eventId: z.string() }),
          404: problemResponse('No subscription has this id (operator key).'),
          409: problemResponse('The subscription is disabled.'),
          ...auth,
        },
      },
    },
    async (request, reply) => {
      const row = await getSubscription(db, request.params.id, scopeOf(request));
      if (!row) throw unreachable(request, 'webhook', request.params.id);
      if (row.disabledAt) throw new DomainError(409, 'webhook_disabled', 'This subscription is disabled.');
      const eventId = await queueTestEvent(db, app.clock, row);
      app.jobs.wake();
      return reply.code(202).send({ eventId });
    },
  );
};
