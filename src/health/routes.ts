import type { FastifyInstance } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { SERVICE_VERSION } from '../core/version.js';
import { NOT_RATE_LIMITED } from '../http/rate-limit.js';
import { cachedProbe } from './cached-probe.js';

export const HealthSchema = z
  .object({
    status: z
      .enum(['ok', 'unavailable', 'draining'])
      .describe('"ok" when the service and its database work; "draining" while the instance shuts down.'),
    version: z.string().describe('Service version.'),
    database: z.object({
      kind: z.enum(['pglite', 'postgres']).describe('Embedded PGlite or a PostgreSQL server.'),
      status: z.enum(['up', 'down']),
      latencyMs: z
        .number()
        .optional()
        .describe('Round trip of a trivial query, when up (measured at most once a second).'),
    }),
    rateLimit: z
      .object({
        store: z.enum(['memory', 'redis']).describe('Where the counters live.'),
        status: z
          .enum(['up', 'down'])
          .describe('"down": the Redis store is unreachable; requests are let through until it is back.'),
      })
      .optional()
      .describe('Absent when rate limiting is off.'),
    catalogue: z.object({
      version: z
        .int()
        .describe(
          'Version of the served read model: instances on one database serve the same version within a second.',
        ),
      centres: z.int().describe('Centres in the served read model.'),
      sessions: z.int().describe('Sessions in the served read model, past ones included, cancelled ones not.'),
      updatedAt: z.iso.datetime({ offset: true }).describe("Time of the catalogue's last change."),
      stale: z
        .boolean()
        .describe(
          'true while changes may not be reaching this instance (its change notifications are cut off, or its last reload failed); it catches up within about a second once the database answers again.',
        ),
    }),
  })
  .meta({ id: 'Health' });

/** How long one database probe answers for every /api/health call. */
export const HEALTH_PROBE_TTL_MS = 1000;

export const healthRoutes: FastifyPluginAsyncZod = async (app) => {
  const probe = cachedProbe(
    () => app.database.ping(1500),
    HEALTH_PROBE_TTL_MS,
    (err) => app.log.warn({ err }, 'health check: database unreachable'),
  );
  app.get(
    '/api/health',
    {
      config: NOT_RATE_LIMITED,
      schema: {
        operationId: 'health',
        summary: 'Service and database status',
        description:
          'Whether the service answers and its database is reachable, with the served catalogue (version, counts, last change) and the rate-limit store. 200 when ready; 503 when the database is unavailable or the instance is shutting down. Not rate limited, never cached.',
        tags: ['health'],
        response: {
          200: HealthSchema.describe('Service and database operational.'),
          503: HealthSchema.describe('Database unavailable, or the instance is shutting down (`draining`).'),
        },
      },
    },
    async (_request, reply) => {
      const { up, latencyMs } = await probe();
      const snapshot = app.catalogue.snapshot;
      const rateLimit = app.rateLimitStatus();
      // Draining wins over everything: load balancers must stop sending here at once.
      const draining = app.lifecycle.draining;
      return reply
        .code(up && !draining ? 200 : 503)
        .header('cache-control', 'no-store')
        .send({
          status: draining ? 'draining' : up ? 'ok' : 'unavailable',
          version: SERVICE_VERSION,
          database: {
            kind: app.database.kind,
            status: up ? 'up' : 'down',
            ...(latencyMs === undefined ? {} : { latencyMs }),
          },
          ...(rateLimit ? { rateLimit } : {}),
          catalogue: {
            version: snapshot.version,
            centres: snapshot.centreCount,
            sessions: snapshot.sessions.length,
            updatedAt: snapshot.updatedAtIso,
            stale: app.catalogue.stale,
          },
        });
    },
  );
};

/** The health door: GET /api/health. */
export async function registerHealth(app: FastifyInstance): Promise<void> {
  await app.register(healthRoutes);
}
