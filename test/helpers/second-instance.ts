import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { type Database, openDatabase } from '../../src/db/connect.js';
import { frozenClock, type TestApp, testConfig } from './app.js';
import { TEST_DB } from './database.js';
import { FIXTURE_NOW } from './fixtures.js';

export interface SecondInstance {
  app: FastifyInstance;
  /** Its listening address. */
  base: string;
  close(): Promise<void>;
}

/**
 * Another instance of the service on the database of `first`, listening on a loopback port: on
 * PostgreSQL with a pool of its own, so that a change made on one reaches the other only through
 * the database's notifications, as between two machines behind a load balancer.
 */
export async function secondInstance(first: TestApp, env: Record<string, string> = {}): Promise<SecondInstance> {
  if (TEST_DB !== 'postgres') throw new Error('a second instance needs PostgreSQL (PGlite belongs to one process)');
  const database: Database = await openDatabase({ kind: 'postgres', url: first.db.url as string });
  const app = await buildApp(testConfig(env), { database, logger: false, clock: frozenClock(FIXTURE_NOW) });
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  return {
    app,
    base,
    async close() {
      await app.close();
      await database.close();
    },
  };
}
