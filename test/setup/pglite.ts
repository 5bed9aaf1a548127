import { mkdir, writeFile } from 'node:fs/promises';
import { PGlite } from '@electric-sql/pglite';
import type { TestProject } from 'vitest/node';
import { loadDemoCatalogue } from '../../src/catalogue/demo/load.js';
import { dateIn } from '../../src/core/clock.js';
import { openDatabase } from '../../src/db/connect.js';

// Uncompressed: every embedded test database starts from it, and gunzipping cost each one a second.
export const PGLITE_TEMPLATE = '.test-data/pglite-template.tar';

/** Runs initdb, the migrations and the demo load once; each test file loads a copy. */
export default async function setup(project: TestProject): Promise<void> {
  const pglite = await PGlite.create();
  const database = await openDatabase({ kind: 'pglite', dataDir: 'memory://' }, { pglite });
  await database.migrate();
  await loadDemoCatalogue(database.db, { today: dateIn(new Date()) });
  const dump = await pglite.dumpDataDir('none');
  await mkdir('.test-data', { recursive: true });
  await writeFile(PGLITE_TEMPLATE, Buffer.from(await dump.arrayBuffer()));
  await database.close();
  project.provide('pgliteTemplate', PGLITE_TEMPLATE);
}

declare module 'vitest' {
  export interface ProvidedContext {
    pgliteTemplate: string;
    postgresTemplate: { adminUrl: string; template: string };
  }
}
