import type { FastifyInstance } from 'fastify';
import { registerEventsRoute } from './events-route.js';
import { stagesRoutes } from './routes.js';
import { sessionRoute } from './session-route.js';

/** The catalogue's REST door: GET /api/stages, GET /api/stages/{id}, GET /api/stages/events. */
export async function registerCatalogueApi(app: FastifyInstance): Promise<void> {
  await app.register(stagesRoutes);
  await registerEventsRoute(app, app.config.events);
  await app.register(sessionRoute);
}
