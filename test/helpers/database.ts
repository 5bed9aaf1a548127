import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
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
 * What every embedded database of a worker starts from, read and compiled once per worker (test
 * files share workers, see vitest.config.ts): the template's uncompressed data directory and
 * PGlite's WebAssembly modules and file-system bundle. Each start then only copies them into a
 * new instance: about a third of a second instead of one and a half.
 */
interface PgliteStart {
  dataDir: Blob;
  pgliteWasmModule: WebAssembly.Module;
  initdbWasmModule: WebAssembly.Module;
  fsBundle: Blob;
}
let pgliteStart: Promise<PgliteStart> | undefined;

async function loadPgliteStart(): Promise<PgliteStart> {
  const dist = dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite'));
  const [dataDir, pgliteWasm, initdbWasm, fsBundle] = await Promise.all([
    readFile(inject('pgliteTemplate')),
    readFile(join(dist, 'pglite.wasm')),
    readFile(join(dist, 'initdb.wasm')),
    readFile(join(dist, 'pglite.data')),
  ]);
  return {
    dataDir: new Blob([dataDir]),
    pgliteWasmModule: await WebAssembly.compile(pgliteWasm),
    initdbWasmModule: await WebAssembly.compile(initdbWasm),
    fsBundle: new Blob([fsBundle]),
  };
}

// The service runs its embedded database with these settings (src/db/connect.ts); so do the tests.
const EMBEDDED_SETTINGS = ['shared_buffers = 16MB'];

/**
 * PGlite from the template's dump. Its WASM start-up has failed once in a thousand starts on a
 * loaded machine ("PGlite failed to initialize properly", the same dump starting fine at once
 * after): that is the test bed, not the code under test, so it gets one more try, said aloud.
 */
async function startPglite(): Promise<PGlite> {
  pgliteStart ??= loadPgliteStart();
  const { dataDir, ...modules } = await pgliteStart;
  const options = { loadDataDir: dataDir, postgresqlconf: EMBEDDED_SETTINGS, ...modules };
  try {
    return await PGlite.create(options);
  } catch (err) {
    console.warn(`PGlite did not start (${(err as Error).message}); trying once more`);
    return PGlite.create(options);
  }
}

/** A fresh, migrated database holding the demo catalogue, private to the caller. */
export async function openTestDatabase(): Promise<TestDatabase> {
  if (TEST_DB === 'pglite') {
    const pglite = await startPglite();
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
