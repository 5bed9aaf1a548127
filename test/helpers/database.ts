import { readFile } from 'node:fs/promises';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { inject } from 'vitest';
import { type Database, openDatabase } from '../../src/db/connect.js';
import { databaseUrl } from '../setup/postgres.js';

export type TestDatabaseKind = 'pglite' | 'postgres';
export const TEST_DB: TestDatabaseKind = process.env.TEST_DB === 'postgres' ? 'postgres' : 'pglite';

export interface TestDatabase {
  database: Database;
  /** For PostgreSQL, the URL of this test's own database (to open a second instance on it). */
  url?: string;
  /** Closes the database and, for PostgreSQL, drops it. */
  dispose(): Promise<void>;
}

let counter = 0;

/**
 * PGlite from the template's dump. Its WASM start-up has failed once in a thousand starts on a
 * loaded machine ("PGlite failed to initialize properly", the same dump starting fine at once
 * after): that is the test bed, not the code under test, so it gets one more try, said aloud.
 */
async function startPglite(dump: Blob): Promise<PGlite> {
  try {
    return await PGlite.create({ loadDataDir: dump });
  } catch (err) {
    console.warn(`PGlite did not start (${(err as Error).message}); trying once more`);
    return PGlite.create({ loadDataDir: dump });
  }
}

/** A fresh, migrated database holding the demo catalogue, private to the caller. */
export async function openTestDatabase(): Promise<TestDatabase> {
  if (TEST_DB === 'pglite') {
    const dump = await readFile(inject('pgliteTemplate'));
    const pglite = await startPglite(new Blob([dump]));
    const database = await openDatabase({ kind: 'pglite', dataDir: 'memory://' }, { pglite });
    return { database, dispose: () => database.close() };
  }
  const { adminUrl, template } = inject('postgresTemplate');
  const name = `stages_t_${process.pid}_${Date.now()}_${counter++}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`create database ${name} template ${template}`);
  } finally {
    await admin.end();
  }
  const url = databaseUrl(adminUrl, name);
  const database = await openDatabase({ kind: 'postgres', url });
  return {
    database,
    url,
    async dispose() {
      await database.close();
      const a = new pg.Client({ connectionString: adminUrl });
      await a.connect();
      await a.query(`drop database if exists ${name} with (force)`);
      await a.end();
    },
  };
}
