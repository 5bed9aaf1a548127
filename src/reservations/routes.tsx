import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SessionEntry } from '../catalogue/read-model.js';
import { sessionStatus } from '../catalogue/session-status.js';
import { dateIn } from '../core/clock.js';
import { isDatabaseUnavailable, rootCause } from '../db/unavailable.js';
import { ErrorPage } from '../web/error-page.js';
import type { SiteInfo } from '../web/layout.js';
import { HTML_CONTENT_TYPE, renderPage } from '../web/render.js';
import { type FormState, readForm } from './form.js';
import type { FormGuard, GuardVerdict } from './form-guard.js';
import { type BookedMailFacts, centreNoticeMail, confirmationMail, type Mailer } from './mail.js';
import { ReservationPage } from './pages/reservation-page.js';
import { bookPlace, cancelByPerson, centreContact, findByToken, type ReservationRow } from './repository.js';
import { reservationView } from './reservation-view.js';
import { LINK_TOKEN } from './secrets.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
// A form of six short fields; anything bigger is not from our page.
const FORM_BODY_LIMIT = 8 * 1024;

/** How the site renders a session page with the reservation form in a given state. */
export type SessionPageRenderer = (
  entry: SessionEntry,
  booking: { formToken: string; state?: FormState | undefined; notice?: string | undefined },
) => string;

export interface ReservationOptions {
  site: SiteInfo;
  guard: FormGuard;
  renderSessionPage: SessionPageRenderer;
  mailer: Mailer | undefined;
  paymentNote: string;
}

const GUARD_NOTICES: Record<Exclude<GuardVerdict, 'ok'>, string> = {
  'cross-site':
    'Ce formulaire a été envoyé depuis un autre site : par sécurité, rien n’a été enregistré. Remplissez-le ici, sur cette page.',
  'no-cookie':
    'Votre navigateur n’a pas renvoyé le cookie de sécurité du formulaire (cookies bloqués, ou page ouverte depuis longtemps) : rien n’a été enregistré. Vérifiez que les cookies sont permis pour ce site, puis envoyez à nouveau le formulaire ci-dessous.',
  mismatch:
    'Ce formulaire a expiré (il a été ouvert dans une autre fenêtre, ou avant un redémarrage du navigateur) : rien n’a été enregistré. Envoyez à nouveau le formulaire ci-dessous.',
};

function privatePath(token: string): string {
  return `/reservations/${token}`;
}

/**
 * Reservations on the site: the session page's form is posted here; a place is taken and the
 * reservation stored in one transaction, then the browser is sent (303) to the reservation's
 * private page, so that a refresh or a second tap never books twice. Every refusal is a page
 * that says why, with what was typed kept in the form. Encapsulated: its body parser and its
 * error pages apply to these routes only.
 */
export function reservationRoutes(options: ReservationOptions) {
  const { site, guard } = options;
  return async (app: FastifyInstance): Promise<void> => {
    app.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT },
      (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(body as string))),
    );

    const html = (reply: FastifyReply, status: number, body: string) =>
      reply
        .code(status)
        .type(HTML_CONTENT_TYPE)
        .header('cache-control', 'no-store')
        .header('x-robots-tag', 'noindex')
        .send(body);
    const errorPage = (reply: FastifyReply, status: number, message: string) =>
      html(reply, status, renderPage(<ErrorPage site={site} status={status} message={message} />));

    app.setErrorHandler((err: FastifyError, request, reply) => {
      if (isDatabaseUnavailable(err)) {
        // Never the wrapper's message: it quotes the statement's parameters (names, email, phone).
        request.log.warn({ cause: rootCause(err) }, 'database unavailable; reservation page answered 503');
        return errorPage(
          reply.header('retry-after', 5),
          503,
          'Le service ne peut pas enregistrer de réservation en ce moment. Rien n’a été enregistré : réessayez dans quelques instants.',
        );
      }
      if (err.statusCode === 413)
        return errorPage(reply, 413, 'Le formulaire envoyé est trop long. Rien n’a été enregistré.');
      if (err.statusCode === 415 || err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return notAForm(reply);
      if (err.statusCode === 429)
        return errorPage(
          reply,
          429,
          'Vous avez fait beaucoup de demandes en peu de temps. Rien n’a été enregistré : réessayez dans une minute.',
        );
      if (err.statusCode !== undefined && err.statusCode < 500)
        return errorPage(reply, err.statusCode, 'Cette demande n’a pas pu être traitée. Rien n’a été enregistré.');
      request.log.error({ cause: rootCause(err) }, 'reservation failed');
      return errorPage(reply, 500, 'La réservation n’a pas pu être enregistrée. Rien n’a été enregistré : réessayez.');
    });

    const localToday = (entry: SessionEntry) => dateIn(app.clock.now(), entry.centre.timeZone);

    /** The session page again, with the form as it was sent and why it was refused. */
    const formAgain = (
      request: FastifyRequest,
      reply: FastifyReply,
      status: number,
      entry: SessionEntry,
      state: FormState | undefined,
      notice?: string,
    ) =>
      html(
        reply.header('referrer-policy', 'same-origin'),
        status,
        options.renderSessionPage(entry, { formToken: guard.tokenFor(request, reply), state, notice }),
      );

    const isForm = (request: FastifyRequest) =>
      (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ===
      'application/x-www-form-urlencoded';
    const notAForm = (reply: FastifyReply) =>
      errorPage(reply, 415, 'Ce formulaire doit être envoyé depuis la page du stage. Rien n’a été enregistré.');

    app.post('/stages/:id/reservation', { schema: { hide: true } }, async (request, reply) => {
      if (!isForm(request)) return notAForm(reply);
      const { id } = request.params as { id: string };
      const entry = UUID.test(id) ? app.catalogue.snapshot.sessionsById.get(id.toLowerCase()) : undefined;
      if (!entry) return errorPage(reply, 404, 'Ce stage n’existe pas ou plus : aucune réservation n’a été faite.');
      const body = (request.body ?? {}) as Record<string, unknown>;

      const verdict = guard.check(request, body.formToken);
      // From another site: no form and no new cookie (which would replace this browser's own).
      if (verdict === 'cross-site') return errorPage(reply, 403, GUARD_NOTICES[verdict]);
      const typed = readForm(body);
      const kept = { values: typed.ok ? typed.values : typed.state.values, errors: [] };
      if (verdict !== 'ok') return formAgain(request, reply, 403, entry, kept, GUARD_NOTICES[verdict]);
      // People never see this field; a robot filling every field gets a refusal and nothing stored.
      if (typeof body.website === 'string' && body.website !== '')
        return formAgain(request, reply, 400, entry, kept, 'Cette demande n’a pas pu être enregistrée.');
      if (sessionStatus(entry, app.clock.now()) !== 'available')
        return formAgain(request, reply, 409, entry, undefined);

      const form = typed;
      if (!form.ok) return formAgain(request, reply, 400, entry, form.state);

      const budget = await app.chargeReservation(request);
      if (!budget.allowed) {
        const minutes = Math.max(1, Math.ceil(budget.retryAfterSeconds / 60));
        return errorPage(
          reply.header('retry-after', budget.retryAfterSeconds),
          429,
          `Trop de réservations ont été faites depuis votre connexion en une heure. Rien n’a été enregistré : réessayez dans ${minutes} minute${minutes > 1 ? 's' : ''}, ou appelez directement le centre.`,
        );
      }

      const outcome = await bookPlace(app.database.db, {
        sessionId: entry.record.id,
        today: localToday(entry),
        details: form.details,
        browser: guard.cookie(request) as string,
      });
      // This instance shows the change before answering; the others follow within a second.
      await app.catalogue.refresh();
      const now = app.catalogue.snapshot.sessionsById.get(entry.record.id) ?? entry;
      switch (outcome.kind) {
        case 'booked':
          void sendMails(outcome.reservation, outcome.token, now, form.details);
          // An explicit fragment: without one, the browser would keep the form's (#reserver) on the redirect.
          return reply.redirect(`${privatePath(outcome.token)}#reservation`, 303);
        case 'again':
          return reply.redirect(`${privatePath(outcome.token)}?deja=1#reservation`, 303);
        case 'duplicate':
          return formAgain(
            request,
            reply,
            409,
            now,
            { values: form.values, errors: [] },
            'Cette adresse e-mail a déjà une réservation sur ce stage : aucune place de plus n’a été prise. Retrouvez-la avec le lien reçu lors de la réservation, ou contactez le centre.',
          );
        case 'full':
          return formAgain(request, reply, 409, now, undefined);
        case 'closed':
          return formAgain(request, reply, 409, now, undefined);
      }
    });

    async function sendMails(
      reservation: ReservationRow,
      token: string,
      entry: SessionEntry,
      person: BookedMailFacts['person'],
    ) {
      const mailer = options.mailer;
      if (!mailer) return;
      try {
        const centre = await centreContact(app.database.db, reservation.centreId);
        const facts: BookedMailFacts = {
          reference: reservation.reference,
          entry,
          person,
          centre: { name: centre?.name ?? entry.view.centre.name, phone: centre?.phone ?? null },
          privateUrl: `${site.baseUrl}${privatePath(token)}`,
          paymentNote: options.paymentNote,
          platformName: site.name,
        };
        await mailer.send(confirmationMail(facts));
        if (centre?.email) await mailer.send(centreNoticeMail(facts, centre.email));
      } catch (err) {
        // The reservation stands; the page already shows the reference and the private link.
        // The code only: an SMTP server's refusal text often quotes the recipient's address.
        const { code, responseCode } = err as { code?: unknown; responseCode?: unknown };
        app.log.warn({ reservation: reservation.id, code, responseCode }, 'reservation mail not sent');
      }
    }

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
        reservation.status !== 'cancelled' && entry !== undefined && entry.record.day1 > localToday(entry);
      const centre = await centreContact(app.database.db, reservation.centreId);
      return html(
        reply,
        status,
        renderPage(
          <ReservationPage
            site={site}
            reservation={reservationView(reservation)}
            entry={entry}
            centre={centre}
            paymentNote={options.paymentNote}
            mailEnabled={options.mailer !== undefined}
            privateUrl={`${site.baseUrl}${privatePath(token)}`}
            cancel={
              cancellable
                ? { action: `${privatePath(token)}/annulation`, formToken: guard.tokenFor(request, reply) }
                : undefined
            }
            notice={notice}
          />,
        ),
      );
    };

    const notFound = (reply: FastifyReply) =>
      errorPage(
        reply,
        404,
        'Ce lien ne mène à aucune réservation : il est incomplet, ou la réservation a été effacée après le stage.',
      );

    app.get('/reservations/:token', { schema: { hide: true }, config: { logUrl: false } }, async (request, reply) => {
      const { token } = request.params as { token: string };
      const reservation = LINK_TOKEN.test(token) ? await findByToken(app.database.db, token) : undefined;
      if (!reservation) return notFound(reply);
      const again = (request.query as Record<string, unknown>).deja === '1';
      return reservationPage(
        request,
        reply,
        token,
        reservation,
        200,
        again
          ? 'Vous aviez déjà réservé ce stage avec cette adresse e-mail : voici cette réservation. Aucune place de plus n’a été prise.'
          : undefined,
      );
    });

    // Back, forward or a reload after a cancel form was refused: the address itself is not a page.
    app.get(
      '/reservations/:token/annulation',
      { schema: { hide: true }, config: { logUrl: false } },
      async (request, reply) => {
        const { token } = request.params as { token: string };
        if (!LINK_TOKEN.test(token)) return notFound(reply);
        return reply.redirect(privatePath(token), 303);
      },
    );

    app.post(
      '/reservations/:token/annulation',
      { schema: { hide: true }, config: { logUrl: false } },
      async (request, reply) => {
        const { token } = request.params as { token: string };
        if (!LINK_TOKEN.test(token)) return notFound(reply);
        if (!isForm(request)) return notAForm(reply);
        const body = (request.body ?? {}) as Record<string, unknown>;
        const verdict = guard.check(request, body.formToken);
        if (verdict !== 'ok') {
          const reservation = await findByToken(app.database.db, token);
          if (!reservation) return notFound(reply);
          return reservationPage(request, reply, token, reservation, 403, GUARD_NOTICES[verdict]);
        }
        const result = await cancelByPerson(app.database.db, token, (sessionId) => {
          const entry = app.catalogue.snapshot.sessionsById.get(sessionId);
          return entry ? localToday(entry) : dateIn(app.clock.now());
        });
        if (result.kind === 'unknown') return notFound(reply);
        if (result.kind === 'begun')
          return reservationPage(
            request,
            reply,
            token,
            result.reservation,
            409,
            'Le stage a commencé : la réservation ne peut plus être annulée ici. Contactez le centre.',
          );
        await app.catalogue.refresh();
        return reply.redirect(privatePath(token), 303);
      },
    );
  };
}
