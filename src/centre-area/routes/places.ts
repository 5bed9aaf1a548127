import type { FastifyInstance } from 'fastify';
import { changePlaces } from '../../admin/repository/places.js';
import { DomainError } from '../../core/errors.js';
import { UUID } from '../../core/uuid.js';
import { userActor } from '../../history/actor.js';
import { may, membershipFor } from '../access.js';
import { type AreaContext, areaUser, GUARD_REFUSED } from '../context.js';
import { centreOfSession } from '../repository.js';

/** The French for a refused place change (the API's refusals, said to a centre). */
function refusalText(err: DomainError): string {
  if (err.code === 'session_cancelled') return 'Ce stage est annulé : ses places ne changent plus.';
  return 'Impossible : les places libres ne peuvent pas passer sous 0, ni dépasser la capacité moins les places réservées ici.';
}

/**
 * POST /espace-centre/seances/:id/places: −1 or +1 place, the partner API's atomic change
 * (admin/repository/places.ts), recorded in the history as the signed-in user's.
 */
export function placesRoute(app: FastifyInstance, context: AreaContext): void {
  const db = app.database.db;
  app.post('/espace-centre/seances/:id/places', { schema: { hide: true } }, async (request, reply) => {
    const user = areaUser(request);
    const { id } = request.params as { id: string };
    const form = (request.body ?? {}) as Record<string, unknown>;
    if (!context.formOk(request, form)) return context.dashboard(request, reply, user, 403, { problem: GUARD_REFUSED });
    const change = form.change === '1' ? 1 : form.change === '-1' ? -1 : undefined;
    if (change === undefined)
      return context.dashboard(request, reply, user, 400, { problem: 'Choisissez −1 ou +1 place.' });
    // Another centre's session, or none: the same answer, so that ids cannot be probed.
    const centreId = UUID.test(id) ? await centreOfSession(db, id) : undefined;
    const membership = centreId ? membershipFor(user, centreId) : undefined;
    if (!centreId || !membership || !may(membership.role, 'places'))
      return context.dashboard(request, reply, user, 404, { problem: 'Ce stage n’est pas l’un des vôtres.' });
    try {
      await changePlaces(db, id, change, { centreId }, undefined, userActor(user));
    } catch (err) {
      if (err instanceof DomainError && err.status === 409)
        return context.dashboard(request, reply, user, 409, { problem: refusalText(err) });
      throw err;
    }
    await app.catalogue.refresh();
    return reply.header('cache-control', 'no-store').redirect(`/espace-centre?modifie=1#seance-${id}`, 303);
  });
}
