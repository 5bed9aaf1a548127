import type { FastifyInstance } from 'fastify';
import { DomainError } from '../../core/errors.js';
import { UUID } from '../../core/uuid.js';
import { userActor } from '../../history/actor.js';
import { sendsMail } from '../../mail/transport.js';
import { centreContact } from '../../reservations/repository/contact.js';
import { cancelSessionForCentre } from '../cancel-session.js';
import { type AreaContext, areaUser, GUARD_REFUSED } from '../context.js';
import { sessionToCancel } from '../repository.js';

/**
 * POST /espace-centre/seances/:id/annulation: the centre cancels a session with a reason; the
 * people booked are emailed it, their reservations cancelled (cancel-session.ts).
 */
export function cancelSessionRoute(app: FastifyInstance, context: AreaContext): void {
  const db = app.database.db;
  app.post('/espace-centre/seances/:id/annulation', { schema: { hide: true } }, async (request, reply) => {
    const user = areaUser(request);
    const { id } = request.params as { id: string };
    const form = (request.body ?? {}) as Record<string, unknown>;
    if (!context.formOk(request, form)) return context.dashboard(request, reply, user, 403, { problem: GUARD_REFUSED });
    // From the database, not the public catalogue: a suspended centre, or one whose approval has
    // ended, still cancels its sessions and tells the people booked.
    const session = UUID.test(id) ? await sessionToCancel(db, id.toLowerCase()) : undefined;
    if (!session || !user.memberships.some((m) => m.centreId === session.centreId))
      return context.dashboard(request, reply, user, 404, { problem: 'Ce stage n’est pas l’un des vôtres.' });
    const reason = typeof form.raison === 'string' ? form.raison.trim() : '';
    if (reason.length < 3 || reason.length > 500)
      return context.dashboard(request, reply, user, 400, {
        problem:
          'Pour annuler un stage, écrivez sa raison (3 à 500 caractères) : elle est envoyée aux personnes inscrites.',
      });
    const centre = await centreContact(db, session.centreId);
    let told: number;
    try {
      told = await cancelSessionForCentre(db, session, reason, {
        clock: app.clock,
        actor: userActor(user),
        mail: sendsMail(app.config.mail),
        platformName: app.config.platformName,
        centre: { name: centre?.name ?? session.centreName, phone: centre?.phone ?? null },
      });
    } catch (err) {
      if (err instanceof DomainError && err.status < 500)
        return context.dashboard(request, reply, user, err.status, {
          problem: 'Ce stage ne peut pas être annulé ici.',
        });
      throw err;
    }
    await app.catalogue.refresh();
    app.jobs.wake();
    return reply.header('cache-control', 'no-store').redirect(`/espace-centre?annule=${told}`, 303);
  });
}
