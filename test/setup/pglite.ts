import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import type { TestProject } from 'vitest/node';
import { loadDemoCatalogue } from '../../src/catalogue/demo/load.js';
import { dateIn } from '../../src/core/clock.js';
import { openDatabase } from '../../src/db/connect.js';

const DIR = '.test-data';

/**
 * What the template is made of: every source file (the migrations, the demo generator and what it
 * reads), the locked dependency versions (PGlite's own data format, the reference data) and the
 * day the demo catalogue is dated from.
 */
async function templateKey(today: string): Promise<string> {
  const hash = createHash('sha256').update(today);
  const files = (await readdir('src', { recursive: true })).sort();
  for (const file of [...files.map((f) => join('src', f)), 'package-lock.json']) {
    if (!(await stat(file)).isFile()) continue;
    hash.update(file).update(await readFile(file));
  }
  return hash.digest('hex').slice(0, 16);
}

/**
 * Runs initdb, the migrations and the demo load, and keeps the result as an uncompressed data
 * directory (every embedded test database starts from it; gunzipping cost each one a second).
 * A run whose sources and day are those of the last one reuses its template: a second run, on
 * another Node release or of one file, starts at once instead of after ten seconds of set-up.
 */
export default async function setup(project: TestProject): Promise<void> {
  const today = dateIn(new Date());
  const template = join(DIR, `pglite-template-${await templateKey(today)}.tar`);
  const built = await stat(template).then(
    () => true,
    () => false,
  );
  if (!built) {
    const pglite = await PGlite.create();
    const database = await openDatabase({ kind: 'pglite', dataDir: 'memory://' }, { pglite });
    await database.migrate();
    await loadDemoCatalogue(database.db, { today });
    const dump = await pglite.dumpDataDir('none');
    await database.close();
    await mkdir(DIR, { recursive: true });
    for (const old of await readdir(DIR))
      if (old.startsWith('pglite-template')) await rm(join(DIR, old), { force: true });
    // Written aside and renamed: a run started meanwhile never reads half a template.
    await writeFile(`${template}.${process.pid}`, Buffer.from(await dump.arrayBuffer()));
    await rename(`${template}.${process.pid}`, template);
  }
  project.provide('pgliteTemplate', template);
}

declare module 'vitest' {
  export interface ProvidedContext {
    pgliteTemplate: string;
    postgresTemplate: { adminUrl: string; template: string };
  }
}
