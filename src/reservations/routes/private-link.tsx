import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SessionEntry } from '../../catalogue/read-model.js';
import { dateIn } from '../../core/clock.js';
import { renderPage } from '../../web/render.js';
import { GUARD_NOTICES, htmlAnswer, isForm, notAForm, privatePath, reservationNotFound } from '../answers.js';
import type { ReservationContext } from '../context.js';
import { ICS_CONTENT_TYPE, icsFacts, icsFileName, reservationIcs } from '../ics.js';
import { ReservationPage } from '../pages/reservation-page.js';
import { cancelByPerson, centreContact, findByToken, type ReservationRow } from '../repository.js';
import { reservationView } from '../reservation-view.js';
import { LINK_TOKEN } from '../secrets.js';

/** A private link's route: its address is a secret, kept out of the request log. */
const privateRoute = () => ({ schema: { hide: true }, config: { logUrl: false } });

const ALREADY_BOOKED =
  'Vous aviez déjà réservé ce stage avec cette adresse e-mail : voici cette réservation. Aucune place de plus n’a été prise.';
const BEGUN = 'Le stage a commencé : la réservation ne peut plus être annulée ici. Contactez le centre.';

/**
 * A reservation's private page (/reservations/:token), which the booking leads to and the
 * emails link to, and its cancel form (/reservations/:token/annulation): up to the day before
 * the course, the person cancels there and the place goes back to others.
 */
export function privateLinkRoutes(app: FastifyInstance, context: ReservationContext): void {
  const { site, guard } = context;
  const centreToday = (entry: SessionEntry) => dateIn(app.clock.now(), entry.centre.timeZone);
  const sessionToday = (sessionId: string) => {
    const entry = app.catalogue.snapshot.sessionsById.get(sessionId);
    return entry ? centreToday(entry) : dateIn(app.clock.now());
  };

  const reservationPage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    token: string,
    reservation: ReservationRow,
    status: number,
    notice?: string,
  ) => {
    const entry = app.catalogue.snapshot.sessionsById.get(reservation.sessionId);
    const cancellable =
      reservation.status !== 'cancelled' && entry !== undefined && entry.record.day1 > centreToday(entry);
    const centre = await centreContact(app.database.db, reservation.centreId);
    const cancel = cancellable
      ? { action: `${privatePath(token)}/annulation`, formToken: guard.tokenFor(request, reply) }
      : undefined;
    return htmlAnswer(
      reply,
      status,
      renderPage(
        <ReservationPage
          site={site}
          reservation={reservationView(reservation)}
          entry={entry}
          centre={centre}
          paymentNote={context.paymentNote}
          mailEnabled={context.mailEnabled}
          privateUrl={`${site.baseUrl}${privatePath(token)}`}
          calendarPath={entry ? `${privatePath(token)}/stage.ics` : undefined}
          cancel={cancel}
          notice={notice}
        />,
      ),
    );
  };

  app.get('/reservations/:token', privateRoute(), async (request, reply) => {
    const { token } = request.params as { token: string };
    const reservation = LINK_TOKEN.test(token) ? await findByToken(app.database.db, token) : undefined;
    if (!reservation) return reservationNotFound(reply, site);
    const again = (request.query as Record<string, unknown>).deja === '1';
    return reservationPage(request, reply, token, reservation, 200, again ? ALREADY_BOOKED : undefined);
  });

  // The reservation's calendar file. A cancelled one's events say STATUS:CANCELLED rather than
  // vanish behind a 404: a calendar that imported the file drops them when given it again.
  // Purged (the private link deleted) or a session no longer in the catalogue: 404.
  app.get('/reservations/:token/stage.ics', privateRoute(), async (request, reply) => {
    const { token } = request.params as { token: string };
    const reservation = LINK_TOKEN.test(token) ? await findByToken(app.database.db, token) : undefined;
    const entry = reservation ? app.catalogue.snapshot.sessionsById.get(reservation.sessionId) : undefined;
    if (!reservation || reservation.purgedAt !== null || !entry) return reservationNotFound(reply, site);
    const centre = await centreContact(app.database.db, reservation.centreId);
    const text = reservationIcs(icsFacts(reservation, entry, centre?.phone ?? null, app.clock.now(), site.baseUrl));
    return reply
      .code(200)
      .header('content-type', ICS_CONTENT_TYPE)
      .header('content-disposition', `attachment; filename="${icsFileName(reservation.reference)}"`)
      .header('cache-control', 'no-store')
      .header('x-robots-tag', 'noindex')
      .send(text);
  });

  // Back, forward or a reload after a cancel form was refused: the address itself is not a page.
  app.get('/reservations/:token/annulation', privateRoute(), async (request, reply) => {
    const { token } = request.params as { token: string };
    if (!LINK_TOKEN.test(token)) return reservationNotFound(reply, site);
    return reply.redirect(privatePath(token), 303);
  });

  app.post('/reservations/:token/annulation', privateRoute(), async (request, reply) => {
    const { token } = request.params as { token: string };
    if (!LINK_TOKEN.test(token)) return reservationNotFound(reply, site);
    if (!isForm(request)) return notAForm(reply, site);
    const body = (request.body ?? {}) as Record<string, unknown>;
    const verdict = guard.check(request, body.formToken);
    if (verdict !== 'ok') {
      const reservation = await findByToken(app.database.db, token);
      if (!reservation) return reservationNotFound(reply, site);
      return reservationPage(request, reply, token, reservation, 403, GUARD_NOTICES[verdict]);
    }
    const result = await cancelByPerson(app.database.db, token, sessionToday);
    if (result.kind === 'unknown') return reservationNotFound(reply, site);
    if (result.kind === 'begun') return reservationPage(request, reply, token, result.reservation, 409, BEGUN);
    await app.catalogue.refresh();
    return reply.redirect(privatePath(token), 303);
  });
}
