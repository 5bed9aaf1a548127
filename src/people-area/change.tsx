import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { GUARD_REFUSED } from '../accounts/area.js';
import { newSubmissionId, SUBMISSION_MISSING, submissionIdOf } from '../accounts/form-submissions.js';
import { PEOPLE_HOME } from '../accounts/sign-in.js';
import type { User } from '../accounts/users.js';
import { dateIn } from '../core/clock.js';
import { UUID } from '../core/uuid.js';
import { sendsMail } from '../mail/transport.js';
import { queueBookedMails } from '../reservations/booked-mails.js';
import type { Reason } from '../reservations/form.js';
import {
  changeDate,
  type DateChangeOutcome,
  type PersonReservation,
  reservationsForEmail,
} from '../reservations/repository.js';
import { ErrorPage } from '../web/error-page.js';
import { siteInfo } from '../web/layout.js';
import { privateHtml } from '../web/private-page.js';
import { renderPage } from '../web/render.js';
import { changeCandidates } from './change-candidates.js';
import { ChangePage } from './change-page.js';
import { changeAllowed } from './change-rule.js';

const NOT_YOURS = 'Aucune de vos réservations ne porte ce numéro.';
const CANCELLED =
  'Cette réservation est annulée : il n’y a plus de date à changer. Vous pouvez chercher un autre stage.';
const PAST = 'Ce stage a commencé ou est passé : sa date ne peut plus être changée.';
const GONE = 'Ce stage n’est plus proposé sur le site : pour changer de date, contactez le centre.';
const tooLate = (days: number) =>
  `Le stage commence dans moins de ${days} jour${days > 1 ? 's' : ''} : la date ne peut plus être changée ici. Contactez le centre, qui peut encore vous proposer une solution.`;

/** What the page says when a change was refused; nothing was changed in any of these cases. */
const REFUSED: Partial<Record<DateChangeOutcome['kind'], string>> = {
  full: 'Ce stage vient d’être complet : rien n’a changé, votre réservation reste à sa date. Choisissez un autre stage.',
  closed:
    'Ce stage ne peut plus être réservé (annulé, commencé ou fermé) : rien n’a changé. Choisissez un autre stage.',
  duplicate: 'Vous avez déjà une réservation pour ce stage : rien n’a changé.',
};

/**
 * The date change of a person's reservation (/mon-espace/reservations/:id/changement): the
 * sessions one may move to, and the change itself (reservations/repository/change.ts). Registered
 * in the people's area scope (signed-in person, form parser).
 */
export function changeRoutes(app: FastifyInstance, scope: FastifyInstance): void {
  const site = siteInfo(app.config);
  const { accounts } = app;
  const cutoffDays = app.config.reservations.changeCutoffDays;
  const mailEnabled = sendsMail(app.config.mail);
  const context = { site, paymentNote: app.config.reservations.paymentNote };
  const hidden = { schema: { hide: true } };
  const userOf = (request: FastifyRequest) => request.areaUser as User;

  const notYours = (reply: FastifyReply) =>
    privateHtml(reply, 404, renderPage(<ErrorPage site={site} status={404} message={NOT_YOURS} />));

  /** The person's reservations, and the one asked for (undefined: not theirs, or no such id). */
  const find = async (user: User, id: string) => {
    if (!UUID.test(id)) return undefined;
    const all = await reservationsForEmail(app.database.db, user.email);
    const reservation = all.find((r) => r.id === id);
    return reservation && { reservation, all };
  };

  const page = (
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    found: { reservation: PersonReservation; all: PersonReservation[] },
    problem?: string,
  ) => {
    const r = found.reservation;
    const now = app.clock.now();
    const entry = app.catalogue.snapshot.sessionsById.get(r.session.id);
    let closed: string | undefined;
    if (r.status === 'cancelled') closed = CANCELLED;
    else if (r.session.day1 <= dateIn(now, r.centre.timeZone)) closed = PAST;
    else if (!changeAllowed(r.session, r.centre.timeZone, now, cutoffDays)) closed = tooLate(cutoffDays);
    else if (!entry) closed = GONE;
    // Sessions the person holds already (this one included) are not offered.
    const held = new Set(found.all.filter((o) => o.status !== 'cancelled').map((o) => o.session.id));
    const candidates = closed || !entry ? undefined : changeCandidates(app.catalogue.snapshot, entry, now, held);
    return privateHtml(
      reply,
      status,
      renderPage(
        <ChangePage
          site={site}
          reservation={r}
          formToken={accounts.guard.tokenFor(request, reply)}
          submissionId={newSubmissionId()}
          candidates={candidates}
          closed={closed}
          problem={problem}
          cutoffDays={cutoffDays}
        />,
      ),
    );
  };

  scope.get('/mon-espace/reservations/:id/changement', hidden, async (request, reply) => {
    const { id } = request.params as { id: string };
    const found = await find(userOf(request), id);
    if (!found) return notYours(reply);
    return page(request, reply, 200, found);
  });

  scope.post('/mon-espace/reservations/:id/changement', hidden, async (request, reply) => {
    const user = userOf(request);
    const { id } = request.params as { id: string };
    const form = (request.body ?? {}) as Record<string, unknown>;
    const found = await find(user, id);
    if (!found) return notYours(reply);
    if (accounts.guard.check(request, form._csrf) !== 'ok') return page(request, reply, 403, found, GUARD_REFUSED);
    const submission = submissionIdOf(form);
    if (!submission) return page(request, reply, 400, found, SUBMISSION_MISSING);
    const target = typeof form.sessionId === 'string' ? form.sessionId.toLowerCase() : '';
    const entry = UUID.test(target) ? app.catalogue.snapshot.sessionsById.get(target) : undefined;
    if (!entry) return page(request, reply, 409, found, REFUSED.closed);
    const now = app.clock.now();
    const outcome = await changeDate(app.database.db, {
      reservationId: found.reservation.id,
      email: user.email,
      targetSessionId: entry.record.id,
      now,
      cutoffDays,
      submission: { id: submission, userId: user.id, at: now },
      ...(mailEnabled
        ? {
            onChanged: (tx, changed) =>
              queueBookedMails(tx, context, {
                reservation: changed.reservation,
                token: changed.token,
                entry,
                person: {
                  firstName: changed.reservation.firstName ?? '',
                  lastName: changed.reservation.lastName ?? '',
                  email: changed.reservation.email ?? user.email,
                  phone: changed.reservation.phone ?? '',
                  reason: changed.reservation.reason as Reason,
                },
                now,
                changedFrom: { reservation: changed.previous, otherCentre: changed.otherCentre },
              }),
          }
        : {}),
    });
    switch (outcome.kind) {
      case 'changed':
        // Its emails are committed: sent now rather than at the worker's next poll; this instance
        // shows both sessions' places before answering, the others follow within a second.
        app.jobs.wake();
        await app.catalogue.refresh();
        return reply.redirect(`${PEOPLE_HOME}?change=1`, 303);
      case 'repeated':
      case 'same':
        return reply.redirect(`${PEOPLE_HOME}?change=deja`, 303);
      case 'unknown':
        return notYours(reply);
      case 'too-late':
        return page(request, reply, 409, found, tooLate(cutoffDays));
      case 'cancelled':
        return page(request, reply, 409, found, CANCELLED);
      default:
        await app.catalogue.refresh();
        return page(request, reply, 409, found, REFUSED[outcome.kind]);
    }
  });
}
