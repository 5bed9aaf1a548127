import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { User } from '../accounts/users.js';
import { changePlaces } from '../admin/repository/places.js';
import { dateIn } from '../core/clock.js';
import { DomainError } from '../core/errors.js';
import { UUID } from '../core/uuid.js';
import { userActor } from '../history/actor.js';
import { siteInfo } from '../web/layout.js';
import { privateHtml } from '../web/private-page.js';
import { renderPage } from '../web/render.js';
import { DashboardPage } from './pages.js';
import { centreOfSession, upcomingSessions } from './repository.js';

const FORM_BODY_LIMIT = 4 * 1024;

const GUARD_REFUSED =
  'Ce formulaire n’a pas pu être vérifié (envoyé depuis un autre site, cookies bloqués, ou page ouverte depuis longtemps) : rien n’a été modifié.';

/** The French for a refused place change (the API's refusals, said to a centre). */
function refusalText(err: DomainError): string {
  if (err.code === 'session_cancelled') return 'Ce stage est annulé : ses places ne changent plus.';
  return 'Impossible : les places libres ne peuvent pas passer sous 0, ni dépasser la capacité moins les places réservées ici.';
}

/**
 * The centres' area (/espace-centre): a signed-in owner or staff member sees their centres'
 * upcoming sessions and changes their places in one tap, through the same atomic change as the
 * partner API (admin/repository/places.ts). Only the session cookie opens it: an API key or an
 * agent's token is sent to sign in like anyone else.
 */
export async function registerCentreArea(app: FastifyInstance): Promise<void> {
  const site = siteInfo(app.config);
  const db = app.database.db;
  const { accounts } = app;

  const dashboard = async (
    request: FastifyRequest,
    reply: FastifyReply,
    user: User,
    status: number,
    messages: { notice?: string; problem?: string } = {},
  ) => {
    const today = dateIn(app.clock.now());
    const sessions = await upcomingSessions(
      db,
      user.memberships.map((m) => m.centreId),
      today,
    );
    return privateHtml(
      reply,
      status,
      renderPage(
        <DashboardPage
          site={site}
          user={user}
          formToken={accounts.guard.tokenFor(request, reply)}
          today={today}
          sessions={sessions}
          {...messages}
        />,
      ),
    );
  };

  await app.register(async (scope: FastifyInstance) => {
    scope.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT },
      (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(body as string))),
    );
    // Before anything else of the area: who is signed in. Nobody: to the sign-in page.
    scope.addHook('onRequest', async (request, reply) => {
      const user = await accounts.user(request);
      if (!user) return reply.header('cache-control', 'no-store').redirect('/connexion', 303);
      request.areaUser = user;
    });

    scope.get('/espace-centre', { schema: { hide: true } }, async (request, reply) => {
      const query = request.query as Record<string, unknown>;
      return dashboard(request, reply, request.areaUser as User, 200, {
        ...(query.modifie === '1' ? { notice: 'Places mises à jour : elles sont déjà servies partout.' } : {}),
      });
    });

    scope.post('/espace-centre/seances/:id/places', { schema: { hide: true } }, async (request, reply) => {
      const user = request.areaUser as User;
      const { id } = request.params as { id: string };
      const form = (request.body ?? {}) as Record<string, unknown>;
      if (accounts.guard.check(request, form._csrf) !== 'ok')
        return dashboard(request, reply, user, 403, { problem: GUARD_REFUSED });
      const change = form.change === '1' ? 1 : form.change === '-1' ? -1 : undefined;
      if (change === undefined) return dashboard(request, reply, user, 400, { problem: 'Choisissez −1 ou +1 place.' });
      // Another centre's session, or none: the same answer, so that ids cannot be probed.
      const centreId = UUID.test(id) ? await centreOfSession(db, id) : undefined;
      if (!centreId || !user.memberships.some((m) => m.centreId === centreId))
        return dashboard(request, reply, user, 404, { problem: 'Ce stage n’est pas l’un des vôtres.' });
      try {
        await changePlaces(db, id, change, { centreId }, undefined, userActor(user));
      } catch (err) {
        if (err instanceof DomainError && err.status === 409)
          return dashboard(request, reply, user, 409, { problem: refusalText(err) });
        throw err;
      }
      await app.catalogue.refresh();
      return reply.header('cache-control', 'no-store').redirect(`/espace-centre?modifie=1#seance-${id}`, 303);
    });
  });
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in user of an area's request (set by the area's first hook). */
    areaUser?: User;
  }
}
