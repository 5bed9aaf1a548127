import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { newSubmissionId, SUBMISSION_MISSING, submissionIdOf, writeOnce } from '../../accounts/form-submissions.js';
import type { Membership } from '../../accounts/users.js';
import { createApiKey, listApiKeys, revokeApiKey } from '../../admin/api-keys.js';
import { ONE_LINE } from '../../admin/schemas.js';
import { userActor } from '../../history/actor.js';
import { siteInfo } from '../../web/layout.js';
import { privateHtml } from '../../web/private-page.js';
import { renderPage } from '../../web/render.js';
import { NOT_YOURS, refusalPage, requirePart } from '../access.js';
import { type AreaContext, areaUser, GUARD_REFUSED } from '../context.js';
import { KEY_ALREADY_CREATED, KeysPage, type KeysPageProps, keysPath } from '../keys-page.js';

const KEY_ID = /^[0-9a-f]{16}$/;
// Printable text on one line, as the admin schemas ask of names.
const NAME_INVALID = 'Donnez-lui un nom d’une ligne, de 1 à 100 caractères.';

/**
 * The centre's API keys, its owner's alone (access.tsx): the centre's partner keys (never another
 * centre's nor an operator's); create one, through the function the command line's apikey:create
 * uses, whose key is shown once on the answer and works at once on /api/admin/* for this centre
 * only; revoke one (apikey:revoke's function, limited to the centre), refused from the next request
 * on every instance.
 */
export function keysRoute(app: FastifyInstance, context: AreaContext): void {
  const db = app.database.db;
  const site = siteInfo(app.config);

  async function page(
    request: FastifyRequest,
    reply: FastifyReply,
    membership: Membership,
    status: number,
    extra: Partial<KeysPageProps> = {},
  ) {
    return privateHtml(
      reply,
      status,
      renderPage(
        <KeysPage
          site={site}
          membership={membership}
          formToken={app.accounts.guard.tokenFor(request, reply)}
          submissionId={newSubmissionId()}
          keys={await listApiKeys(db, { centreId: membership.centreId })}
          {...extra}
        />,
      ),
    );
  }

  function owner(request: FastifyRequest, reply: FastifyReply): Membership | undefined {
    const { centreId } = request.params as { centreId: string };
    return requirePart(request, reply, areaUser(request), centreId, 'keys');
  }

  app.get('/espace-centre/centres/:centreId/cles', { schema: { hide: true } }, async (request, reply) => {
    const membership = owner(request, reply);
    if (!membership) return reply;
    const query = request.query as Record<string, unknown>;
    const notice =
      query.revoquee === '1'
        ? 'Clé révoquée : l’API la refuse dès maintenant.'
        : query.deja === '1'
          ? KEY_ALREADY_CREATED
          : undefined;
    return page(request, reply, membership, 200, { notice });
  });

  app.post('/espace-centre/centres/:centreId/cles', { schema: { hide: true } }, async (request, reply) => {
    const membership = owner(request, reply);
    if (!membership) return reply;
    const form = (request.body ?? {}) as Record<string, unknown>;
    if (!context.formOk(request, form)) return page(request, reply, membership, 403, { problem: GUARD_REFUSED });
    const submission = submissionIdOf(form);
    if (!submission) return page(request, reply, membership, 400, { problem: SUBMISSION_MISSING });
    const typed = typeof form.name === 'string' ? form.name : '';
    const name = typed.trim();
    if (name.length === 0 || name.length > 100 || !ONE_LINE.test(name))
      return page(request, reply, membership, 400, {
        name: typed,
        errors: [{ field: 'name', message: NAME_INVALID }],
      });
    const once = await writeOnce(db, { id: submission, userId: areaUser(request).id, at: app.clock.now() }, (tx) =>
      createApiKey(tx, { name, role: 'partner', centreId: membership.centreId }, userActor(areaUser(request))),
    );
    if (!once.written)
      return reply.header('cache-control', 'no-store').redirect(`${keysPath(membership.centreId)}?deja=1`, 303);
    const { key, identity } = once.value;
    request.log.info(
      { key: identity.id, centre: membership.centreId, user: areaUser(request).id },
      'centre area: API key created',
    );
    return page(request, reply, membership, 201, { created: { id: identity.id, key } });
  });

  app.post(
    '/espace-centre/centres/:centreId/cles/:keyId/revoquer',
    { schema: { hide: true } },
    async (request, reply) => {
      const membership = owner(request, reply);
      if (!membership) return reply;
      const { keyId } = request.params as { keyId: string };
      const form = (request.body ?? {}) as Record<string, unknown>;
      const keys = await listApiKeys(db, { centreId: membership.centreId });
      // Another centre's key, an operator's, or none: the same answer, so that ids cannot be probed.
      const found = KEY_ID.test(keyId) ? keys.find((k) => k.id === keyId) : undefined;
      if (!found) return refusalPage(request, reply, 404, 'Page introuvable', NOT_YOURS);
      if (!context.formOk(request, form)) return page(request, reply, membership, 403, { problem: GUARD_REFUSED });
      if (found.revokedAt) return page(request, reply, membership, 409, { problem: 'Cette clé est déjà révoquée.' });
      await revokeApiKey(
        db,
        found.id,
        app.clock.now(),
        { centreId: membership.centreId },
        userActor(areaUser(request)),
      );
      request.log.info(
        { key: found.id, centre: membership.centreId, user: areaUser(request).id },
        'centre area: API key revoked',
      );
      return reply.header('cache-control', 'no-store').redirect(`${keysPath(membership.centreId)}?revoquee=1`, 303);
    },
  );
}
