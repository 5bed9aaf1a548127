import type { FastifyInstance } from 'fastify';
import { type AreaContext, areaUser } from '../context.js';

/** GET /espace-centre: the user's centres and their upcoming sessions. */
export function dashboardRoute(app: FastifyInstance, context: AreaContext): void {
  app.get('/espace-centre', { schema: { hide: true } }, async (request, reply) => {
    const query = request.query as Record<string, unknown>;
    const count = (value: unknown) =>
      typeof value === 'string' && /^\d{1,3}$/.test(value) ? Number(value) : undefined;
    const created = count(query.cree) ?? 0;
    const told = count(query.annule);
    return context.dashboard(request, reply, areaUser(request), 200, {
      ...(query.modifie === '1' ? { notice: 'Places mises à jour : elles sont déjà servies partout.' } : {}),
      ...(created > 0
        ? { notice: `${created} stage${created > 1 ? 's' : ''} créé${created > 1 ? 's' : ''} : déjà en ligne partout.` }
        : {}),
      ...(query.deja === '1'
        ? {
            notice:
              'Ces stages étaient déjà créés : le formulaire a été envoyé deux fois, rien n’a été créé en double. Ils figurent ci-dessous.',
          }
        : {}),
      ...(told !== undefined
        ? {
            notice: `Stage annulé : ${told === 0 ? 'personne n’y était inscrit ici' : `${told} personne${told > 1 ? 's' : ''} prévenue${told > 1 ? 's' : ''} par e-mail, avec votre raison`}.`,
          }
        : {}),
    });
  });
}
