import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { GUARD_REFUSED, registerSignedInArea } from '../accounts/area.js';
import { PEOPLE_HOME } from '../accounts/sign-in.js';
import type { User } from '../accounts/users.js';
import { personAgentsRoutes } from '../agent-claims/person-agents-routes.js';
import { dateIn } from '../core/clock.js';
import { UUID } from '../core/uuid.js';
import { cancelByEmail, reservationsForEmail } from '../reservations/repository.js';
import { ErrorPage } from '../web/error-page.js';
import { siteInfo } from '../web/layout.js';
import { privateHtml } from '../web/private-page.js';
import { renderPage } from '../web/render.js';
import { peopleAlertRoutes } from './alerts.js';
import { changeRoutes } from './change.js';
import { changeAllowed } from './change-rule.js';
import { registerPeopleData } from './data.js';
import { PeoplePage } from './page.js';

// A form of one hidden field.
const FORM_BODY_LIMIT = 4 * 1024;

const CANCELLED = 'Réservation annulée : la place est rendue aussitôt à d’autres personnes.';
const ALREADY = 'Cette réservation était déjà annulée.';
const BEGUN = 'Le stage a commencé : la réservation ne peut plus être annulée ici. Contactez le centre.';
const NOT_YOURS = 'Aucune de vos réservations ne porte ce numéro.';
const CHANGED =
  'Date changée : votre nouvelle place est réservée, en attente de confirmation par le centre. Un e-mail vous le confirme.';
const CHANGED_ALREADY = 'Ce changement de date était déjà fait : il n’a été fait qu’une fois.';

/**
 * The people's area (/mon-espace): a signed-in person (the shared emailed sign-in; any email)
 * sees every reservation made with their email and cancels one as the private link's page does.
 * Only the session cookie opens it.
 */
export async function registerPeopleArea(app: FastifyInstance): Promise<void> {
  const site = siteInfo(app.config);
  const { accounts } = app;
  const cutoffDays = app.config.reservations.changeCutoffDays;

  const page = async (
    request: FastifyRequest,
    reply: FastifyReply,
    user: User,
    status: number,
    messages: { notice?: string; problem?: string } = {},
  ) => {
    const now = app.clock.now();
    const listed = (await reservationsForEmail(app.database.db, user.email)).map((reservation) => {
      const today = dateIn(now, reservation.centre.timeZone);
      return {
        reservation,
        upcoming: reservation.session.day2 >= today,
        cancellable: reservation.status !== 'cancelled' && reservation.session.day1 > today,
        changeable: changeAllowed(reservation.session, reservation.centre.timeZone, now, cutoffDays),
      };
    });
    // Upcoming first, soonest first; then the rest, latest first (the list comes latest first).
    listed.sort((a, b) =>
      a.upcoming !== b.upcoming
        ? a.upcoming
          ? -1
          : 1
        : a.upcoming
          ? a.reservation.session.day1.localeCompare(b.reservation.session.day1)
          : 0,
    );
    return privateHtml(
      reply,
      status,
      renderPage(
        <PeoplePage
          site={site}
          user={user}
          formToken={accounts.guard.tokenFor(request, reply)}
          reservations={listed}
          {...messages}
        />,
      ),
    );
  };

  await registerSignedInArea(app, { bodyLimit: FORM_BODY_LIMIT }, (scope) => {
    const userOf = (request: FastifyRequest) => request.areaUser as User;
    const hidden = { schema: { hide: true } };

    scope.get(PEOPLE_HOME, hidden, async (request, reply) => {
      const query = request.query as Record<string, unknown>;
      const notice =
        query.annule === '1'
          ? CANCELLED
          : query.deja === '1'
            ? ALREADY
            : query.change === '1'
              ? CHANGED
              : query.change === 'deja'
                ? CHANGED_ALREADY
                : undefined;
      return page(request, reply, userOf(request), 200, { notice });
    });

    // Back or a reload after a refused cancel: the address itself is not a page.
    scope.get('/mon-espace/reservations/:id/annulation', hidden, async (_request, reply) =>
      reply.redirect(PEOPLE_HOME, 303),
    );

    scope.post('/mon-espace/reservations/:id/annulation', hidden, async (request, reply) => {
      const user = userOf(request);
      const { id } = request.params as { id: string };
      const form = (request.body ?? {}) as Record<string, unknown>;
      if (accounts.guard.check(request, form._csrf) !== 'ok')
        return page(request, reply, user, 403, { problem: GUARD_REFUSED });
      const today = (sessionId: string) => {
        const entry = app.catalogue.snapshot.sessionsById.get(sessionId);
        return dateIn(app.clock.now(), entry?.centre.timeZone);
      };
      const result = UUID.test(id)
        ? await cancelByEmail(app.database.db, id, user.email, today)
        : ({ kind: 'unknown' } as const);
      if (result.kind === 'unknown')
        return privateHtml(reply, 404, renderPage(<ErrorPage site={site} status={404} message={NOT_YOURS} />));
      if (result.kind === 'begun') return page(request, reply, user, 409, { problem: BEGUN });
      if (result.kind === 'already') return reply.redirect(`${PEOPLE_HOME}?deja=1`, 303);
      await app.catalogue.refresh();
      return reply.redirect(`${PEOPLE_HOME}?annule=1`, 303);
    });

    changeRoutes(app, scope);
    personAgentsRoutes(app, scope); // /mon-espace/agents: the agents the person authorised, and withdrawing one
    peopleAlertRoutes(scope, app); // /mon-espace/alertes
  });
  await registerPeopleData(app);
}
