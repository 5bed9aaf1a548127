import type { FastifyInstance } from 'fastify';
import { DomainError } from '../../core/errors.js';
import { UUID } from '../../core/uuid.js';
import { userActor } from '../../history/actor.js';
import { sendsMail } from '../../mail/transport.js';
import { centreContact } from '../../reservations/repository/contact.js';
import { cancelSessionForCentre } from '../cancel-session.js';
import { type AreaContext, areaUser, GUARD_REFUSED } from '../context.js';

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
    const entry = UUID.test(id) ? app.catalogue.snapshot.sessionsById.get(id.toLowerCase()) : undefined;
    if (!entry || !user.memberships.some((m) => m.centreId === entry.record.centreId))
      return context.dashboard(request, reply, user, 404, { problem: 'Ce stage n’est pas l’un des vôtres.' });
    const reason = typeof form.raison === 'string' ? form.raison.trim() : '';
    if (reason.length < 3 || reason.length > 500)
      return context.dashboard(request, reply, user, 400, {
        problem:
          'Pour annuler un stage, écrivez sa raison (3 à 500 caractères) : elle est envoyée aux personnes inscrites.',
      });
    const centre = await centreContact(db, entry.record.centreId);
    let told: number;
    try {
      told = await cancelSessionForCentre(db, entry, reason, {
        clock: app.clock,
        actor: userActor(user),
        mail: sendsMail(app.config.mail),
        platformName: app.config.platformName,
        centre: { name: centre?.name ?? entry.centre.view.name, phone: centre?.phone ?? null },
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
