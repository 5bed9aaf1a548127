import type { FastifyInstance, FastifyReply } from 'fastify';
import type { SessionEntry } from '../../catalogue/read-model.js';
import { sessionStatus } from '../../catalogue/session-status.js';
import { sessionAt } from '../../web/components.js';
import { errorAnswer, GUARD_NOTICES, htmlAnswer, isForm, notAForm, privatePath } from '../answers.js';
import { queueBookedMails } from '../booked-mails.js';
import type { ReservationContext } from '../context.js';
import { type FormState, readForm } from '../form.js';
import { holdEndedNotice, holdUntil } from '../hold-notices.js';
import type { BookingState } from '../pages/booking-form.js';
import { bookPlace, HOLD_ID, heldPlaceOf } from '../repository.js';

const DUPLICATE =
  'Cette adresse e-mail a déjà une réservation sur ce stage : aucune place de plus n’a été prise. Retrouvez-la avec le lien reçu lors de la réservation, ou contactez le centre.';

function tooManyBookings(retryAfterSeconds: number): string {
  const minutes = Math.max(1, Math.ceil(retryAfterSeconds / 60));
  return `Trop de réservations ont été faites depuis votre connexion en une heure. Rien n’a été enregistré : réessayez dans ${minutes} minute${minutes > 1 ? 's' : ''}, ou appelez directement le centre.`;
}

/** The session page again, with the form as it was sent and why it was refused. */
function formAgain(
  context: ReservationContext,
  reply: FastifyReply,
  status: number,
  entry: SessionEntry,
  state: FormState | undefined,
  notice?: string,
  hold?: BookingState['hold'],
) {
  // Same-origin: form posts carry a real Origin (see FormGuard), and a hold's address, a capability,
  // is never sent to another site as a referrer.
  reply.header('referrer-policy', 'same-origin');
  const booking = { state, notice, mailEnabled: context.mailEnabled, hold };
  return htmlAnswer(reply, status, context.renderSessionPage(entry, booking));
}

/**
 * POST /stages/:id/reservation, the session page's form: a place is taken and the reservation
 * stored in one transaction, then the browser is sent (303) to the reservation's private page,
 * so that a refresh or a second tap never books twice. Every refusal is a page that says why,
 * with what was typed kept in the form.
 */
export function bookingRoute(app: FastifyInstance, context: ReservationContext): void {
  const { site, guard } = context;

  app.post('/stages/:id/reservation', { schema: { hide: true } }, async (request, reply) => {
    if (!isForm(request)) return notAForm(reply, site);
    const { id } = request.params as { id: string };
    const entry = sessionAt(app.catalogue.snapshot, id);
    if (!entry)
      return errorAnswer(reply, site, 404, 'Ce stage n’existe pas ou plus : aucune réservation n’a été faite.');
    const body = (request.body ?? {}) as Record<string, unknown>;
    // The place an agent held for this person (the hold's page), while the hold keeps it: a
    // refused form keeps it too.
    const holdId = typeof body.hold === 'string' && HOLD_ID.test(body.hold) ? body.hold : undefined;
    const held = holdId ? await heldPlaceOf(app.database.db, holdId, id, app.clock.now()) : undefined;
    const hold =
      holdId && held?.state === 'active' ? { id: holdId, until: holdUntil(entry, held.expiresAt) } : undefined;
    const again = (status: number, state: FormState | undefined, notice?: string) =>
      formAgain(context, reply, status, entry, state, notice, hold);

    // From another site: no form and no new cookie (which would replace this browser's own).
    if (!guard.fromThisSite(request)) return errorAnswer(reply, site, 403, GUARD_NOTICES['cross-site']);
    const form = readForm(body);
    const kept = { values: form.ok ? form.values : form.state.values, errors: [] };
    // People never see this field; a robot filling every field gets a refusal and nothing stored.
    if (typeof body.website === 'string' && body.website !== '')
      return again(400, kept, 'Cette demande n’a pas pu être enregistrée.');
    const status = sessionStatus(entry, app.clock.now());
    if (status !== 'available' && !(status === 'full' && hold))
      return again(409, undefined, holdId ? holdEndedNotice(entry, held) : undefined);
    if (!form.ok) return again(400, form.state);

    const budget = await app.chargeReservation(request);
    if (!budget.allowed)
      return errorAnswer(
        reply.header('retry-after', budget.retryAfterSeconds),
        site,
        429,
        tooManyBookings(budget.retryAfterSeconds),
      );

    const bookedAt = app.clock.now();
    const outcome = await bookPlace(app.database.db, {
      sessionId: entry.record.id,
      details: form.details,
      // This browser's cookie (set now on the answer when it has none): a resubmission from it is led
      // to its reservation rather than refused as a duplicate.
      browser: guard.tokenFor(request, reply),
      now: bookedAt,
      holdId,
      ...(context.mailEnabled
        ? {
            onBooked: (tx, booked) =>
              queueBookedMails(tx, context, { ...booked, entry, person: form.details, now: bookedAt }),
          }
        : {}),
    });
    // Its emails are committed: this instance's worker sends them now rather than at its next poll.
    if (outcome.kind === 'booked') app.jobs.wake();
    // This instance shows the change before answering; the others follow within a second.
    await app.catalogue.refresh();
    const now = app.catalogue.snapshot.sessionsById.get(entry.record.id) ?? entry;
    switch (outcome.kind) {
      case 'booked':
        // An explicit fragment: without one, the browser would keep the form's (#reserver) on the redirect.
        return reply.redirect(`${privatePath(outcome.token)}#reservation`, 303);
      case 'again':
        return reply.redirect(`${privatePath(outcome.token)}?deja=1#reservation`, 303);
      case 'duplicate':
        return formAgain(context, reply, 409, now, { values: form.values, errors: [] }, DUPLICATE, hold);
      case 'full':
      case 'closed': {
        // A hold that ended before the form was sent: say so, rather than only "full".
        const ended = holdId ? await heldPlaceOf(app.database.db, holdId, id, bookedAt) : undefined;
        return formAgain(context, reply, 409, now, undefined, holdId ? holdEndedNotice(now, ended) : undefined);
      }
    }
  });
}
