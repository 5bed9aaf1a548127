import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { User } from '../../accounts/users.js';
import { DomainError } from '../../core/errors.js';
import { UUID } from '../../core/uuid.js';
import { userActor } from '../../history/actor.js';
import { getReservation, listReservations } from '../../reservations/repository/list.js';
import { setReservationStatus } from '../../reservations/repository/status.js';
import { reservationView } from '../../reservations/reservation-view.js';
import { siteInfo } from '../../web/layout.js';
import { privateHtml } from '../../web/private-page.js';
import { renderPage } from '../../web/render.js';
import { BookingsPage } from '../bookings-page.js';
import { type AreaContext, areaUser, GUARD_REFUSED, type Messages } from '../context.js';
import { areaSession } from '../repository.js';
import { trainersOf } from '../trainers.js';

const NOT_YOURS = 'Ce stage n’est pas l’un des vôtres.';

/**
 * GET /espace-centre/seances/:id: the bookings made here for one of the user's sessions; POST
 * /espace-centre/reservations/:id confirms or cancels one (the admin API's status change, recorded
 * as the user's; a cancellation gives the place back).
 */
export function bookingsRoutes(app: FastifyInstance, context: AreaContext): void {
  const db = app.database.db;
  const site = siteInfo(app.config);

  const page = async (
    request: FastifyRequest,
    reply: FastifyReply,
    user: User,
    sessionId: string,
    status: number,
    messages: Messages = {},
  ) => {
    const session = UUID.test(sessionId) ? await areaSession(db, sessionId.toLowerCase()) : undefined;
    const membership = session && user.memberships.find((m) => m.centreId === session.centreId);
    if (!session || !membership) return context.dashboard(request, reply, user, 404, { problem: NOT_YOURS });
    const rows = await listReservations(db, { centreId: session.centreId }, { sessionId: session.id, limit: 500 });
    return privateHtml(
      reply,
      status,
      renderPage(
        <BookingsPage
          site={site}
          session={session}
          centreName={membership.centreName}
          bookings={rows.map((r) => ({ id: r.id, view: reservationView(r) }))}
          trainers={await trainersOf(db, session.id)}
          formToken={app.accounts.guard.tokenFor(request, reply)}
          {...messages}
        />,
      ),
    );
  };

  app.get('/espace-centre/seances/:id', { schema: { hide: true } }, async (request, reply) => {
    const { id } = request.params as { id: string };
    const query = request.query as Record<string, unknown>;
    const notice =
      query.fait === 'confirmer'
        ? 'Réservation confirmée.'
        : query.fait === 'annuler'
          ? 'Réservation annulée : la place est rendue.'
          : query.fait === 'modifier'
            ? 'Stage modifié : il est déjà servi partout ainsi.'
            : undefined;
    return page(request, reply, areaUser(request), id, 200, notice ? { notice } : {});
  });

  app.post('/espace-centre/reservations/:id', { schema: { hide: true } }, async (request, reply) => {
    const user = areaUser(request);
    const { id } = request.params as { id: string };
    const form = (request.body ?? {}) as Record<string, unknown>;
    const reservation = UUID.test(id) ? await getReservation(db, id.toLowerCase()) : undefined;
    // Another centre's reservation, or none: the same answer.
    if (!reservation || !user.memberships.some((m) => m.centreId === reservation.centreId))
      return context.dashboard(request, reply, user, 404, { problem: 'Cette réservation n’est pas l’une des vôtres.' });
    if (!context.formOk(request, form))
      return page(request, reply, user, reservation.sessionId, 403, { problem: GUARD_REFUSED });
    const action = form.action === 'confirmer' ? 'confirmed' : form.action === 'annuler' ? 'cancelled' : undefined;
    if (!action)
      return page(request, reply, user, reservation.sessionId, 400, { problem: 'Choisissez Confirmer ou Annuler.' });
    try {
      await setReservationStatus(db, reservation.id, action, { centreId: reservation.centreId }, userActor(user));
    } catch (err) {
      if (err instanceof DomainError && err.status === 409)
        return page(request, reply, user, reservation.sessionId, 409, {
          problem: 'Une réservation annulée ne peut plus être confirmée.',
        });
      throw err;
    }
    await app.catalogue.refresh();
    return reply
      .header('cache-control', 'no-store')
      .redirect(`/espace-centre/seances/${reservation.sessionId}?fait=${form.action}`, 303);
  });
}
