import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { ArticleLibrary } from '../../src/articles/articles.js';
import { replaceCatalogue } from '../../src/catalogue/repository.js';
import type { Database, Db } from '../../src/db/connect.js';
import { frozenClock, testConfig } from './app.js';
import { openTestDatabase, type TestDatabase } from './database.js';
import { FIXTURE_CATALOGUE, FIXTURE_NOW } from './fixtures.js';

export interface AnnouncedApp {
  db: TestDatabase;
  app: FastifyInstance;
  /** Delivers a notification's payload to the app, as the database would (none: a reconnection). */
  announce: (payload?: string) => void;
  close(): Promise<void>;
}

/**
 * The service on the fixture catalogue, hearing only the announcements the test delivers (the
 * database's own are not listened to), so that their content and moment are known; `wrap` may stand
 * in for the app's database handle (the test's own writes go through `db`). Caught up once built.
 */
export async function announcedApp(wrap: (db: Db) => Db = (db) => db): Promise<AnnouncedApp> {
  const db = await openTestDatabase();
  await replaceCatalogue(db.database.db, FIXTURE_CATALOGUE);
  let announce: (payload?: string) => void = () => {};
  const database: Database = {
    ...db.database,
    db: wrap(db.database.db),
    async listenCatalogueChanges(onChange) {
      announce = onChange;
      return async () => {};
    },
  };
  const app = await buildApp(testConfig(), {
    database,
    logger: false,
    articles: await ArticleLibrary.load(),
    clock: frozenClock(FIXTURE_NOW),
  });
  await app.ready();
  await app.catalogue.refresh();
  return {
    db,
    app,
    announce: (payload) => announce(payload),
    async close() {
      await app.close();
      await db.dispose();
    },
  };
}
