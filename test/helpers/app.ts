import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { ArticleLibrary } from '../../src/articles/articles.js';
import { type CatalogueData, replaceCatalogue } from '../../src/catalogue/repository.js';
import { type Config, loadConfig } from '../../src/config.js';
import type { Clock } from '../../src/core/clock.js';
import { openTestDatabase, type TestDatabase } from './database.js';

export const BASE_URL = 'https://stages.example.test';

export function testConfig(env: Record<string, string> = {}): Config {
  // Rate limiting is off unless a test turns it on: suites send many requests from one address.
  // The jobs' worker does not poll: a test runs the due jobs when it chooses (app.jobs.drain()).
  return loadConfig({ PUBLIC_BASE_URL: BASE_URL, LOG_LEVEL: 'silent', RATE_LIMIT: 'off', JOBS_POLL_MS: '0', ...env });
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

// The articles never change during a run, and nothing writes to a library: read them once per worker.
let articles: Promise<ArticleLibrary> | undefined;

/**
 * The whole service on a private database: the demo catalogue, or `catalogue` in its place.
 *
 * `database` puts the app on a database the caller already opened, and keeps open when the app
 * closes: for files whose tests each need a differently configured app but none needs a pristine
 * database (rate limits, say), opening one per file instead of one per test.
 */
export async function buildTestApp(
  options: { catalogue?: CatalogueData; clock?: Clock; env?: Record<string, string>; database?: TestDatabase } = {},
): Promise<TestApp> {
  const db = options.database ?? (await openTestDatabase());
  if (options.catalogue) await replaceCatalogue(db.database.db, options.catalogue);
  articles ??= ArticleLibrary.load();
  const app = await buildApp(testConfig(options.env), {
    database: db.database,
    logger: false,
    articles: await articles,
    ...(options.clock ? { clock: options.clock } : {}),
  });
  await app.ready();
  return {
    app,
    db,
    async close() {
      await app.close();
      if (!options.database) await db.dispose();
    },
  };
}
