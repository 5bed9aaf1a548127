import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { type CatalogueData, replaceCatalogue } from '../../src/catalogue/repository.js';
import { type Config, loadConfig } from '../../src/config.js';
import type { Clock } from '../../src/core/clock.js';
import { openTestDatabase, type TestDatabase } from './database.js';

export const BASE_URL = 'https://stages.example.test';

export function testConfig(env: Record<string, string> = {}): Config {
  // Rate limiting is off unless a test turns it on: suites send many requests from one address.
  return loadConfig({ PUBLIC_BASE_URL: BASE_URL, LOG_LEVEL: 'silent', RATE_LIMIT: 'off', ...env });
}

export function frozenClock(iso: string): Clock & { set(iso: string): void } {
  let now = new Date(iso);
  return {
    now: () => now,
    set(next: string) {
      now = new Date(next);
    },
  };
}

export interface TestApp {
  app: FastifyInstance;
  db: TestDatabase;
  close(): Promise<void>;
}

/**
 * The whole service on a private database: the demo catalogue, or `catalogue` in its place.
 */
export async function buildTestApp(
  options: { catalogue?: CatalogueData; clock?: Clock; env?: Record<string, string> } = {},
): Promise<TestApp> {
  const db = await openTestDatabase();
  if (options.catalogue) await replaceCatalogue(db.database.db, options.catalogue);
  const app = await buildApp(testConfig(options.env), {
    database: db.database,
    logger: false,
    ...(options.clock ? { clock: options.clock } : {}),
  });
  await app.ready();
  return {
    app,
    db,
    async close() {
      await app.close();
      await db.dispose();
    },
  };
}
