import type { FastifyInstance } from 'fastify';
import { sessionStatus } from '../../catalogue/session-status.js';
import { sessionAt, sessionPath } from '../../web/components.js';
import { errorAnswer, htmlAnswer } from '../answers.js';
import type { ReservationContext } from '../context.js';
import { holdEndedNotice, holdUntil } from '../hold-notices.js';
import { HOLD_ID, heldPlaceOf } from '../repository.js';

/**
 * GET /stages/:id/reservation?hold=…, a hold's completeUrl: the session page with the booking
 * form, which books the place an agent holds for the person (until the time it says), even when
 * no other place is left. A hold that has ended leaves the ordinary page, saying why. The page is
 * the person's only (the link is the hold's capability): never cached nor indexed, and sent as a
 * referrer to this site only (its posts then carry a real Origin, see FormGuard).
 */
export function holdPageRoute(app: FastifyInstance, context: ReservationContext): void {
  app.get('/stages/:id/reservation', { schema: { hide: true } }, async (request, reply) => {
    const { id } = request.params as { id: string };
    const entry = sessionAt(app.catalogue.snapshot, id);
    if (!entry)
      return errorAnswer(reply, context.site, 404, 'Ce stage n’existe pas ou plus : aucune place n’y est retenue.');
    const hold = (request.query as { hold?: unknown }).hold;
    // Without a hold, this is the session page's form: the session page itself.
    if (typeof hold !== 'string' || hold === '') return reply.redirect(`${sessionPath(id)}#reserver`, 303);
    const now = app.clock.now();
    const held = HOLD_ID.test(hold) ? await heldPlaceOf(app.database.db, hold, id, now) : undefined;
    const active = held?.state === 'active' && sessionStatus(entry, now) !== 'cancelled';
    reply.header('referrer-policy', 'same-origin');
    const booking = {
      mailEnabled: context.mailEnabled,
      ...(active && held ? { hold: { id: hold, until: holdUntil(entry, held.expiresAt) } } : {}),
      notice: active ? undefined : holdEndedNotice(entry, held),
    };
    return htmlAnswer(reply, 200, context.renderSessionPage(entry, booking));
  });
}
