import { and, desc, eq, isNull, like, lt, sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../core/clock.js';
import type { Db } from '../db/connect.js';
import { centres, jobs, webhookDeliveries, webhookSubscriptions } from '../db/schema.js';
import { errorSummary, PermanentJobError } from '../jobs/errors.js';
import type { JobHandler } from '../jobs/worker.js';
import { queueMail } from '../mail/outbox.js';
import { eventBody } from './event-body.js';
import { type DeliveryPayload, deliveryPayload, orderingPrefix } from './events.js';
import { DeliveryError, sendDelivery } from './send.js';
import { signatureHeader } from './signing.js';
import type { SubscriptionRow } from './subscriptions.js';

/** An event's deliveries are retried this long, then marked failed (later events then go on). */
export const RETRY_WINDOW_MS = 24 * 3_600_000;
/** A subscription whose deliveries have failed, without a success, this long is disabled. */
export const DISABLE_AFTER_MS = 3 * 24 * 3_600_000;
/** Delivery tries kept per subscription for its owner to read. */
const KEPT_DELIVERIES = 100;

export type DeliveryOutcome = 'delivered' | 'retried' | 'failed' | 'dropped';

export interface DeliveryDeps {
  db: Db;
  clock: Clock;
  log: FastifyBaseLogger;
  allowPrivate: boolean;
  /** Whether mail goes out (SMTP_URL); without it, a disabling is only logged. */
  mailEnabled: boolean;
  /** Told of all-centre subscriptions' disabling (WEBHOOK_ALERT_EMAIL). */
  alertEmail: string | undefined;
  platformName: string;
  /** Where a centre's owner manages its subscriptions (the centres' area, when served), for the disabling email. */
  manageUrl(centreId: string): string | undefined;
  observe(outcome: DeliveryOutcome): void;
}

async function logTry(
  db: Db,
  event: DeliveryPayload,
  attempt: number,
  at: Date,
  outcome: { statusCode?: number; error?: string },
): Promise<void> {
  await db.insert(webhookDeliveries).values({
    subscriptionId: event.subscriptionId,
    eventId: event.eventId,
    type: event.type,
    attempt,
    statusCode: outcome.statusCode ?? null,
    error: outcome.error ?? null,
    at,
  });
  const [oldestKept] = await db
    .select({ id: webhookDeliveries.id })
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.subscriptionId, event.subscriptionId))
    .orderBy(desc(webhookDeliveries.id))
    .offset(KEPT_DELIVERIES - 1)
    .limit(1);
  if (oldestKept)
    await db
      .delete(webhookDeliveries)
      .where(and(eq(webhookDeliveries.subscriptionId, event.subscriptionId), lt(webhookDeliveries.id, oldestKept.id)));
}

/**
 * A failure: the subscription's run of failures starts now if it had not; past three days of
 * it, the subscription is disabled and its owner told (the centre's contact address, or for an
 * all-centre subscription WEBHOOK_ALERT_EMAIL), in one transaction.
 */
async function noteFailure(deps: DeliveryDeps, sub: SubscriptionRow, now: Date): Promise<void> {
  const since = sub.failingSince ?? now;
  if (!sub.failingSince)
    await deps.db
      .update(webhookSubscriptions)
      .set({ failingSince: now })
      .where(and(eq(webhookSubscriptions.id, sub.id), isNull(webhookSubscriptions.failingSince)));
  if (now.getTime() - since.getTime() < DISABLE_AFTER_MS) return;
  await deps.db.transaction(async (tx) => {
    const [disabled] = await tx
      .update(webhookSubscriptions)
      .set({ disabledAt: now })
      .where(and(eq(webhookSubscriptions.id, sub.id), isNull(webhookSubscriptions.disabledAt)))
      .returning({ id: webhookSubscriptions.id });
    if (!disabled) return;
    let to = deps.alertEmail;
    if (sub.centreId) {
      const [centre] = await tx.select({ email: centres.email }).from(centres).where(eq(centres.id, sub.centreId));
      to = centre?.email ?? undefined;
    }
    deps.log.warn(
      { subscription: sub.id, emailed: Boolean(to && deps.mailEnabled) },
      'webhooks: subscription disabled',
    );
    if (!to || !deps.mailEnabled) return;
    const host = new URL(sub.url).host;
    const manageUrl = sub.centreId ? deps.manageUrl(sub.centreId) : undefined;
    await queueMail(
      tx,
      {
        to,
        subject: `${deps.platformName} : webhook désactivé (${host})`,
        text: [
          'Bonjour,',
          '',
          `Les envois vers votre webhook ${sub.url} échouent depuis le ${since.toISOString()} : il a été désactivé le ${now.toISOString()} et ne reçoit plus d’événements.`,
          `Identifiant de l’abonnement : ${sub.id}.`,
          '',
          'Vérifiez que l’adresse répond (2xx en moins de 10 secondes), puis créez un nouvel abonnement :',
          manageUrl
            ? `dans votre espace centre, ${manageUrl}, ou par l’API (POST /api/admin/webhooks).`
            : 'par l’API (POST /api/admin/webhooks).',
        ].join('\n'),
      },
      { secret: false },
    );
  });
}

/** A success after failures: the run of failures ends, and this subscription's waiting retries go now. */
async function noteRecovery(db: Db, sub: SubscriptionRow): Promise<void> {
  if (!sub.failingSince) return;
  await db.update(webhookSubscriptions).set({ failingSince: null }).where(eq(webhookSubscriptions.id, sub.id));
  await db
    .update(jobs)
    .set({ runAt: sql`now()` })
    .where(
      and(eq(jobs.state, 'pending'), like(jobs.orderingKey, `${orderingPrefix(sub.id)}%`), sql`${jobs.runAt} > now()`),
    );
}

/**
 * The delivery job: signs the event's body for its subscription and POSTs it (send.ts). A
 * failure is retried by the worker with its backoff until 24 hours after the event, then the
 * job fails for good (and the next event of the session goes). A deleted subscription's events
 * are dropped; a disabled one's fail at once.
 */
export function deliveryHandler(deps: DeliveryDeps): JobHandler {
  return async (payload, job) => {
    const parsed = deliveryPayload.safeParse(payload);
    if (!parsed.success) throw new PermanentJobError('BadWebhookPayload');
    const event = parsed.data;
    const [sub] = await deps.db
      .select()
      .from(webhookSubscriptions)
      .where(eq(webhookSubscriptions.id, event.subscriptionId));
    if (!sub) return deps.observe('dropped');
    if (sub.disabledAt) {
      deps.observe('dropped');
      throw new PermanentJobError('SubscriptionDisabled');
    }
    const body = await eventBody(deps.db, event, sub);
    const now = deps.clock.now();
    const timestamp = Math.floor(now.getTime() / 1000);
    const headers = {
      'webhook-id': event.eventId,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signatureHeader(sub.secret, event.eventId, timestamp, body),
    };
    try {
      const statusCode = await sendDelivery(sub.url, headers, body, { allowPrivate: deps.allowPrivate });
      await logTry(deps.db, event, job.attempts, now, { statusCode });
      await noteRecovery(deps.db, sub);
      deps.observe('delivered');
    } catch (err) {
      const error = errorSummary(err);
      await logTry(deps.db, event, job.attempts, now, {
        statusCode: err instanceof DeliveryError ? err.status : undefined,
        error,
      });
      await noteFailure(deps, sub, now);
      if (now.getTime() - Date.parse(event.occurredAt) >= RETRY_WINDOW_MS) {
        deps.observe('failed');
        throw new PermanentJobError(`Expired:${error}`);
      }
      deps.observe('retried');
      throw err;
    }
  };
}
