import type { FastifyInstance } from 'fastify';
import { type AreaContext, areaUser } from '../context.js';

/** GET /espace-centre: the user's centres and their upcoming sessions. */
export function dashboardRoute(app: FastifyInstance, context: AreaContext): void {
  app.get('/espace-centre', { schema: { hide: true } }, async (request, reply) => {
    const query = request.query as Record<string, unknown>;
    const created = typeof query.cree === 'string' && /^\d{1,2}$/.test(query.cree) ? Number(query.cree) : 0;
    return context.dashboard(request, reply, areaUser(request), 200, {
      ...(query.modifie === '1' ? { notice: 'Places mises à jour : elles sont déjà servies partout.' } : {}),
      ...(created > 0
        ? { notice: `${created} stage${created > 1 ? 's' : ''} créé${created > 1 ? 's' : ''} : déjà en ligne partout.` }
        : {}),
    });
  });
}
