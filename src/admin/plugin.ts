import type { FastifyInstance } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { registerAdminAuth } from './auth.js';
import { centreRoutes } from './routes/centres.js';
import { historyRoutes } from './routes/history.js';
import { importRoutes } from './routes/import.js';
import { placesRoutes } from './routes/places.js';
import { reservationAdminRoutes } from './routes/reservations.js';
import { sessionRoutes } from './routes/sessions.js';

/**
 * The operator and partner API: centres and sessions in, with validation that names each bad
 * field, optimistic concurrency (ETag / If-Match), atomic place changes with Idempotency-Key, and
 * all-or-nothing imports. Every committed write is applied to this instance's read model before
 * the answer (the writer reads its own write), and reaches every other instance through the change
 * log within about a second. Refusals are thrown as DomainError and answered by the one error
 * handler (http/errors.ts).
 */
export const adminPlugin: FastifyPluginAsyncZod = async (app) => {
  registerAdminAuth(app);

  // In this order: it is the order of the paths in /openapi.json.
  await app.register(reservationAdminRoutes);
  await app.register(centreRoutes);
  await app.register(sessionRoutes);
  await app.register(placesRoutes);
  await app.register(importRoutes);
  await app.register(historyRoutes);
};

/** The operator and partner door: /api/admin/* (API keys only). */
export async function registerAdmin(app: FastifyInstance): Promise<void> {
  await app.register(adminPlugin);
}
