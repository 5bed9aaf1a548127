import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { registerBearerAuth } from '../../src/auth/bearer.js';
import type { Clock } from '../../src/core/clock.js';
import type { Database } from '../../src/db/connect.js';
import { testConfig } from './app.js';

export const PROBE_PATH = '/test/probe';

/**
 * The service plus one throwaway route guarded by registerBearerAuth, answering with the
 * identity it saw: the same hook the MCP endpoint uses, tested on its own.
 */
export async function buildProbeApp(
  database: Database,
  clock: Clock,
  env: Record<string, string> = {},
): Promise<FastifyInstance> {
  const app = await buildApp(testConfig(env), { database, clock, logger: false });
  await app.register(async (scope) => {
    registerBearerAuth(scope);
    scope.post(PROBE_PATH, async (request) => ({ identity: request.identity }));
  });
  await app.ready();
  return app;
}
