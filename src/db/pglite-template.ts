import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import { type Database, MIGRATIONS_FOLDER } from './database.js';
import { openPglite } from './pglite.js';

/**
 * The embedded database right after initdb and the migrations, as a data directory made by the build
 * (`npm run build`, which `npm install` runs): a first start copies it instead of running initdb (about
 * 4–6 s of a first start on this project's machines). Resolved from the package root like the
 * migrations, so that src/ (tests) and dist/ find the same one. Never committed: dist/ is built here.
 */
export const TEMPLATE_DIR = fileURLToPath(new URL('../../dist/pglite-template', import.meta.url));
// What the template was made from; a template whose key differs from this checkout's is ignored.
const KEY_FILE = 'stages-template-key';

/** PGlite's version (its data format) and every migration file, as one short hash. */
export function templateKey(): string {
  const hash = createHash('sha256');
  const pgliteMain = createRequire(import.meta.url).resolve('@electric-sql/pglite');
  const pglitePackage = JSON.parse(readFileSync(join(dirname(pgliteMain), '..', 'package.json'), 'utf8')) as {
    version: string;
  };
  hash.update(`pglite ${pglitePackage.version}\n`);
  const files = readdirSync(MIGRATIONS_FOLDER, { recursive: true, encoding: 'utf8' }).sort();
  for (const file of files) {
    const path = join(MIGRATIONS_FOLDER, file);
    if (!path.endsWith('.sql') && !path.endsWith('.json')) continue;
    hash.update(file).update(readFileSync(path));
  }
  return hash.digest('hex').slice(0, 32);
}

/** True when `dir` holds a template made from this checkout's PGlite and migrations. */
export function isCurrentTemplate(dir: string, key = templateKey()): boolean {
  try {
    return readFileSync(join(dir, KEY_FILE), 'utf8') === key && existsSync(join(dir, 'PG_VERSION'));
  } catch {
    return false;
  }
}

/**
 * Makes the template in `dir` unless a current one is there: initdb and the migrations in a new
 * directory beside it, renamed into place once whole. Returns whether it built one.
 */
export async function buildPgliteTemplate(dir = TEMPLATE_DIR): Promise<boolean> {
  const key = templateKey();
  if (isCurrentTemplate(dir, key)) return false;
  const building = `${dir}.building-${process.pid}`;
  rmSync(building, { recursive: true, force: true });
  try {
    const database = await openPglite(building);
    await database.migrate();
    await database.close();
    writeFileSync(join(building, KEY_FILE), key);
    rmSync(dir, { recursive: true, force: true });
    renameSync(building, dir);
  } finally {
    rmSync(building, { recursive: true, force: true });
  }
  return true;
}

// Written first and removed last by a copy: a directory holding it is a copy cut short, done again.
const SEEDING_FILE = 'stages-seeding';
// Left by a finished copy until the database's creation time is stamped (stampCreation).
const CREATED_FILE = 'stages-created';

/**
 * Gives a new embedded database at `dataDir` the template's files, when there is no database there yet
 * (the directory absent or empty) and a current template exists. PG_VERSION, by which PGlite (and this
 * function) tell a database from an empty directory, is copied last, so that a start cut short leaves
 * no half database that would be taken for a whole one. Returns whether it copied.
 */
export function seedFromTemplate(dataDir: string, template = TEMPLATE_DIR): boolean {
  if (existsSync(join(dataDir, 'PG_VERSION'))) return false;
  const present = existsSync(dataDir) ? readdirSync(dataDir) : [];
  if (present.length > 0 && !present.includes(SEEDING_FILE)) return false;
  if (!isCurrentTemplate(template)) return false;
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(join(dataDir, SEEDING_FILE), '');
  for (const left of present) if (left !== SEEDING_FILE) rmSync(join(dataDir, left), { recursive: true, force: true });
  for (const entry of readdirSync(template)) {
    if (entry === 'PG_VERSION' || entry === KEY_FILE) continue;
    cpSync(join(template, entry), join(dataDir, entry), { recursive: true });
  }
  cpSync(join(template, 'PG_VERSION'), join(dataDir, 'PG_VERSION'));
  renameSync(join(dataDir, SEEDING_FILE), join(dataDir, CREATED_FILE));
  return true;
}

/**
 * The one value a migration writes that depends on when it runs: the catalogue's `updated_at`, which
 * the migrations set to the time they ran (the build's, in the template). A database copied from the
 * template gets the time of its copy instead, as if migrated then, before anything else reads it.
 */
export async function stampCreation(dataDir: string, database: Database): Promise<void> {
  const marker = join(dataDir, CREATED_FILE);
  if (!existsSync(marker)) return;
  await database.db.execute(sql`update catalogue_state set updated_at = now() where id = 1 and version = 0`);
  rmSync(marker);
}
