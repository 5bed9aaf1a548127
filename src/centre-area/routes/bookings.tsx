import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { User } from '../../accounts/users.js';
import { dateIn } from '../../core/clock.js';
import { DomainError } from '../../core/errors.js';
import { UUID } from '../../core/uuid.js';
import { userActor } from '../../history/actor.js';
import { sendsMail } from '../../mail/transport.js';
import { getReservation, listReservations } from '../../reservations/repository/list.js';
import { setReservationPaid } from '../../reservations/repository/paid.js';
import { setReservationStatus } from '../../reservations/repository/status.js';
import { reservationView } from '../../reservations/reservation-view.js';
import { frenchDate } from '../../web/format.js';
import { siteInfo } from '../../web/layout.js';
import { privateHtml } from '../../web/private-page.js';
import { renderPage } from '../../web/render.js';
import { requirePart } from '../access.js';
import { sessionFile } from '../attendance-repository.js';
import { BookingsPage } from '../bookings-page.js';
import { type AreaContext, areaUser, GUARD_REFUSED, type Messages } from '../context.js';
import { sendConvocations } from '../convocation.js';
import { areaSession } from '../repository.js';
import { sessionForPart } from '../session-access.js';
import { trainersOf } from '../trainers.js';

const NOT_YOURS = 'Ce stage n’est pas l’un des vôtres.';

/** What the page says after a form did its work (`?fait=`). */
const DONE: Record<string, string> = {
  confirmer: 'Réservation confirmée.',
  annuler: 'Réservation annulée : la place est rendue.',
  paye: 'Réservation marquée payée.',
  impaye: 'Réservation marquée non payée.',
  modifier: 'Stage modifié : il est déjà servi partout ainsi.',
};

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
    const file = await sessionFile(db, session.id);
    return privateHtml(
      reply,
      status,
      renderPage(
        <BookingsPage
          site={site}
          session={session}
          centreName={membership.centreName}
          convocationSentAt={file?.convocationSentAt ?? null}
          cancelled={file?.status === 'cancelled'}
          bookings={rows.map((r) => ({ id: r.id, view: reservationView(r), paidAt: r.paidAt }))}
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
    const sent = Number(query.envoyes);
    const notice =
      query.fait === 'convocation' && Number.isInteger(sent)
        ? `Convocation envoyée à ${sent} personne${sent > 1 ? 's' : ''}.`
        : typeof query.fait === 'string'
          ? DONE[query.fait]
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

  // Paid, or not paid after all (a mistake, a refund): recorded with the time and, in the
  // history, who marked it. Any of the centre's bookings, cancelled ones too (a refund is owed).
  app.post('/espace-centre/reservations/:id/paiement', { schema: { hide: true } }, async (request, reply) => {
    const user = areaUser(request);
    const { id } = request.params as { id: string };
    const form = (request.body ?? {}) as Record<string, unknown>;
    const reservation = UUID.test(id) ? await getReservation(db, id.toLowerCase()) : undefined;
    // Another centre's reservation, or none: the same answer.
    if (!reservation || !user.memberships.some((m) => m.centreId === reservation.centreId))
      return context.dashboard(request, reply, user, 404, { problem: 'Cette réservation n’est pas l’une des vôtres.' });
    if (!requirePart(request, reply, user, reservation.centreId, 'bookings')) return reply;
    if (!context.formOk(request, form))
      return page(request, reply, user, reservation.sessionId, 403, { problem: GUARD_REFUSED });
    const paid = form.action === 'paye' ? true : form.action === 'impaye' ? false : undefined;
    if (paid === undefined)
      return page(request, reply, user, reservation.sessionId, 400, {
        problem: 'Choisissez « Marquer payée » ou « Marquer non payée ».',
      });
    if (reservation.purgedAt !== null)
      return page(request, reply, user, reservation.sessionId, 409, {
        problem: 'Les données de cette réservation ont été effacées : elle ne peut plus être modifiée.',
      });
    await setReservationPaid(
      db,
      reservation.id,
      paid,
      { centreId: reservation.centreId },
      userActor(user),
      app.clock.now(),
    );
    return reply
      .header('cache-control', 'no-store')
      .redirect(`/espace-centre/seances/${reservation.sessionId}?fait=${form.action}`, 303);
  });

  // The joining instructions to everybody booked: once, unless the centre asks to send them again.
  app.post('/espace-centre/seances/:id/convocation', { schema: { hide: true } }, async (request, reply) => {
    const access = await sessionForPart(db, request, reply, 'convocation');
    if (!access) return reply;
    const { user, session, today } = access;
    const form = (request.body ?? {}) as Record<string, unknown>;
    const again = (status: number, problem: string) => page(request, reply, user, session.id, status, { problem });
    if (!context.formOk(request, form)) return again(403, GUARD_REFUSED);
    if (session.status === 'cancelled') return again(409, 'Ce stage est annulé : aucune convocation n’est envoyée.');
    if (today > session.day2) return again(409, 'Ce stage est terminé : aucune convocation n’est envoyée.');
    if (!sendsMail(app.config.mail))
      return again(503, 'L’envoi d’e-mails n’est pas configuré sur ce service : aucune convocation n’a été envoyée.');
    const result = await sendConvocations(db, session, {
      resend: form.renvoyer === 'oui',
      actor: userActor(user),
      at: app.clock.now(),
      platformName: app.config.platformName,
    });
    if (result.kind === 'already')
      return again(
        409,
        `La convocation a déjà été envoyée le ${frenchDate(dateIn(result.sentAt, session.centre.timeZone))} : rien n’a été renvoyé. Pour l’envoyer une seconde fois à tout le monde, utilisez « Renvoyer la convocation ».`,
      );
    if (result.kind === 'nobody')
      return again(409, 'Personne n’est inscrit à ce stage (hors annulations) : aucune convocation n’a été envoyée.');
    app.jobs.wake();
    return reply
      .header('cache-control', 'no-store')
      .redirect(`/espace-centre/seances/${session.id}?fait=convocation&envoyes=${result.count}`, 303);
  });
}
