import type { FastifyInstance } from 'fastify';
import { registerAdminAuth } from '../admin/auth.js';
import { onCatalogueWrite } from '../db/write.js';
import { sendsMail } from '../mail/transport.js';
import { type DeliveryOutcome, deliveryHandler } from './deliver.js';
import { WEBHOOK_JOB } from './events.js';
import { anySubscription, recordWebhookEvents } from './record-events.js';
import { webhookRoutes } from './routes.js';

/**
 * Partners' webhooks: the subscriptions' routes (/api/admin/webhooks, behind the admin API's
 * keys), the events written with every catalogue write (db/write.ts's hook), and their delivery
 * on the one jobs table by whichever instance's worker claims them.
 */
export async function registerWebhooks(
  app: FastifyInstance,
  options: {
    /** The path of a centre's webhooks page in the centres' area, when the site serves it. */
    pagePath?: (centreId: string) => string;
  } = {},
): Promise<void> {
  const { config, clock } = app;
  onCatalogueWrite(app.database.db, 'webhooks', {
    wanted: anySubscription,
    run: (tx) => recordWebhookEvents(tx, clock),
  });

  let count: ((outcome: DeliveryOutcome) => void) | undefined;
  if (app.metrics) {
    const { Counter } = await import('prom-client');
    const deliveries = new Counter({
      name: 'webhook_deliveries_total',
      help: 'Webhook delivery tries by this instance, by outcome: delivered, retried (will try again), failed (given up after 24 hours), dropped (subscription deleted or disabled).',
      labelNames: ['outcome'],
      registers: [app.metrics],
    });
    count = (outcome) => deliveries.inc({ outcome });
  }
  app.jobs.handle(
    WEBHOOK_JOB,
    deliveryHandler({
      db: app.database.db,
      clock,
      log: app.log.child({ component: 'webhooks' }),
      allowPrivate: config.webhooks.allowPrivate,
      mailEnabled: sendsMail(config.mail),
      alertEmail: config.webhooks.alertEmail,
      platformName: config.platformName,
      manageUrl: (centreId) => {
        const path = options.pagePath?.(centreId);
        return path ? `${config.publicBaseUrl}${path}` : undefined;
      },
      observe: (outcome) => count?.(outcome),
    }),
    // Each subscription's receiver recovers by itself (deliver.ts hastens its own retries).
    { hastenOnRecovery: false },
  );

  await app.register(async (scope) => {
    registerAdminAuth(scope);
    await scope.register(webhookRoutes);
  });
}
