import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { newSubmissionId, SUBMISSION_MISSING, submissionIdOf, writeOnce } from '../../accounts/form-submissions.js';
import type { Membership, User } from '../../accounts/users.js';
import { UUID } from '../../core/uuid.js';
import type { FieldError } from '../../web/field.js';
import { siteInfo } from '../../web/layout.js';
import { privateHtml } from '../../web/private-page.js';
import { renderPage } from '../../web/render.js';
import { WebhookInputSchema } from '../../webhooks/schemas.js';
import { type UrlRefusalReason, urlRefusalReason } from '../../webhooks/send.js';
import { newSigningSecret } from '../../webhooks/signing.js';
import {
  createSubscription,
  deleteSubscription,
  getSubscription,
  lastDeliveries,
  listSubscriptions,
} from '../../webhooks/subscriptions.js';
import { queueTestEvent } from '../../webhooks/test-event.js';
import { NOT_YOURS, refusalPage, requirePart } from '../access.js';
import { type AreaContext, areaUser, GUARD_REFUSED } from '../context.js';
import { WEBHOOK_ALREADY_CREATED, WebhooksPage, type WebhooksPageProps, webhooksPath } from '../webhooks-page.js';

/** Delivery tries shown per subscription. */
const SHOWN_DELIVERIES = 10;

const URL_REFUSALS: Record<UrlRefusalReason, string> = {
  scheme: 'L’adresse doit commencer par https://.',
  credentials: 'L’adresse ne doit contenir ni identifiant ni mot de passe.',
  private: 'L’adresse doit être sur internet : pas une adresse privée, locale ou de bouclage (127.0.0.1, 192.168…).',
};
const URL_INVALID = 'Saisissez une adresse complète, par exemple https://exemple.fr/webhooks.';
const NO_EVENT = 'Cochez au moins un événement.';
const UNKNOWN_EVENT = 'Cochez seulement les événements proposés.';

/** The form's fields as the admin API's body, or what is wrong with each, in French. */
function readForm(
  form: Record<string, unknown>,
  allowPrivate: boolean,
): { ok: true; url: string; events: string[] } | { ok: false; errors: FieldError[] } {
  const events = form.events === undefined ? [] : ([] as unknown[]).concat(form.events);
  const url = typeof form.url === 'string' ? form.url.trim() : '';
  const parsed = WebhookInputSchema.safeParse({ url, events });
  const errors: FieldError[] = [];
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const field = issue.path[0];
      if (field === 'url' && !errors.some((e) => e.field === 'url')) errors.push({ field, message: URL_INVALID });
      if (field === 'events' && !errors.some((e) => e.field === 'events'))
        errors.push({ field, message: events.length === 0 ? NO_EVENT : UNKNOWN_EVENT });
    }
  }
  if (!errors.some((e) => e.field === 'url')) {
    const reason = urlRefusalReason(new URL(url), allowPrivate);
    if (reason) errors.unshift({ field: 'url', message: URL_REFUSALS[reason] });
  }
  if (errors.length > 0) return { ok: false, errors };
  return { ok: true, url, events: parsed.data?.events ?? [] };
}

/**
 * The centre's webhooks, its owner's alone (access.ts): GET lists its subscriptions and their
 * last deliveries with a form to add one; the posts add (the secret shown once, on the answer),
 * delete and send a test, through the webhooks module's own functions (src/webhooks/).
 */
export function webhooksRoute(app: FastifyInstance, context: AreaContext): void {
  const db = app.database.db;
  const site = siteInfo(app.config);
  const { allowPrivate } = app.config.webhooks;

  async function page(
    request: FastifyRequest,
    reply: FastifyReply,
    membership: Membership,
    status: number,
    extra: Partial<WebhooksPageProps> = {},
  ) {
    const rows = await listSubscriptions(db, { centreId: membership.centreId });
    const subscriptions = await Promise.all(
      rows.map(async (subscription) => ({
        subscription,
        deliveries: await lastDeliveries(db, subscription.id, SHOWN_DELIVERIES),
      })),
    );
    return privateHtml(
      reply,
      status,
      renderPage(
        <WebhooksPage
          site={site}
          membership={membership}
          formToken={app.accounts.guard.tokenFor(request, reply)}
          submissionId={newSubmissionId()}
          subscriptions={subscriptions}
          {...extra}
        />,
      ),
    );
  }

  /** The owner's membership of the centre named in the path, or undefined once refused. */
  function owner(request: FastifyRequest, reply: FastifyReply): { user: User; membership?: Membership } {
    const user = areaUser(request);
    const { centreId } = request.params as { centreId: string };
    return { user, membership: requirePart(request, reply, user, centreId, 'webhooks') };
  }

  app.get('/espace-centre/centres/:centreId/webhooks', { schema: { hide: true } }, async (request, reply) => {
    const { membership } = owner(request, reply);
    if (!membership) return reply;
    const query = request.query as Record<string, unknown>;
    const notice =
      query.test === '1'
        ? 'Test envoyé : son résultat apparaît dans les derniers envois dans quelques secondes (rechargez la page).'
        : query.supprime === '1'
          ? 'Webhook supprimé : il ne recevra plus rien.'
          : query.deja === '1'
            ? WEBHOOK_ALREADY_CREATED
            : undefined;
    return page(request, reply, membership, 200, { notice });
  });

  app.post('/espace-centre/centres/:centreId/webhooks', { schema: { hide: true } }, async (request, reply) => {
    const { user, membership } = owner(request, reply);
    if (!membership) return reply;
    const form = (request.body ?? {}) as Record<string, unknown>;
    if (!context.formOk(request, form)) return page(request, reply, membership, 403, { problem: GUARD_REFUSED });
    const submission = submissionIdOf(form);
    if (!submission) return page(request, reply, membership, 400, { problem: SUBMISSION_MISSING });
    const input = readForm(form, allowPrivate);
    if (!input.ok) {
      const events = form.events === undefined ? [] : ([] as unknown[]).concat(form.events).map(String);
      return page(request, reply, membership, 400, {
        errors: input.errors,
        values: { url: typeof form.url === 'string' ? form.url : '', events },
      });
    }
    const secret = newSigningSecret();
    const once = await writeOnce(db, { id: submission, userId: user.id, at: app.clock.now() }, (tx) =>
      createSubscription(tx, {
        centreId: membership.centreId,
        url: input.url,
        events: input.events,
        secret,
        createdBy: null,
      }),
    );
    if (!once.written)
      return reply.header('cache-control', 'no-store').redirect(`${webhooksPath(membership.centreId)}?deja=1`, 303);
    const row = once.value;
    request.log.info({ subscription: row.id, user: user.id }, 'centre area: webhook created');
    return page(request, reply, membership, 201, { created: { id: row.id, secret } });
  });

  /** A subscription of the owner's centre named in the path, after the form's check; or a refusal sent. */
  async function subscriptionOf(request: FastifyRequest, reply: FastifyReply, membership: Membership) {
    const { id } = request.params as { id: string };
    const form = (request.body ?? {}) as Record<string, unknown>;
    // Another centre's subscription, or none: the same answer, so that ids cannot be probed.
    const row = UUID.test(id) ? await getSubscription(db, id, { centreId: membership.centreId }) : undefined;
    if (!row) {
      await refusalPage(request, reply, 404, 'Page introuvable', NOT_YOURS);
      return undefined;
    }
    if (!context.formOk(request, form)) {
      await page(request, reply, membership, 403, { problem: GUARD_REFUSED });
      return undefined;
    }
    return row;
  }

  app.post(
    '/espace-centre/centres/:centreId/webhooks/:id/supprimer',
    { schema: { hide: true } },
    async (request, reply) => {
      const { membership } = owner(request, reply);
      if (!membership) return reply;
      const row = await subscriptionOf(request, reply, membership);
      if (!row) return reply;
      await deleteSubscription(db, row.id, { centreId: membership.centreId });
      return reply.header('cache-control', 'no-store').redirect(`${webhooksPath(membership.centreId)}?supprime=1`, 303);
    },
  );

  app.post('/espace-centre/centres/:centreId/webhooks/:id/test', { schema: { hide: true } }, async (request, reply) => {
    const { membership } = owner(request, reply);
    if (!membership) return reply;
    const row = await subscriptionOf(request, reply, membership);
    if (!row) return reply;
    if (row.disabledAt)
      return page(request, reply, membership, 409, {
        problem: 'Ce webhook est désactivé : il ne reçoit plus rien. Ajoutez-en un nouveau.',
      });
    await queueTestEvent(db, app.clock, row);
    app.jobs.wake();
    return reply
      .header('cache-control', 'no-store')
      .redirect(`${webhooksPath(membership.centreId)}?test=1#webhook-${row.id}`, 303);
  });
}
