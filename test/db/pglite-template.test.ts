import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/connect.js';
import {
  buildPgliteTemplate,
  isCurrentTemplate,
  seedFromTemplate,
  stampCreation,
} from '../../src/db/pglite-template.js';

// Everything a migration makes, as text to compare: columns, constraints, indexes, triggers and
// functions of the schemas the migrations write (public, and drizzle's own), then the rows of every table.
const SCHEMA_QUERIES = [
  `select table_schema, table_name, column_name, data_type, column_default, is_nullable, ordinal_position
     from information_schema.columns where table_schema in ('public', 'drizzle') order by 1, 2, 7`,
  `select conrelid::regclass::text as rel, conname, pg_get_constraintdef(oid) as def from pg_constraint
     where connamespace in ('public'::regnamespace, 'drizzle'::regnamespace) order by 1, 2`,
  `select schemaname, tablename, indexname, indexdef from pg_indexes where schemaname in ('public', 'drizzle') order by 1, 2, 3`,
  `select tgrelid::regclass::text as rel, tgname, pg_get_triggerdef(oid) as def from pg_trigger where not tgisinternal order by 1, 2`,
  `select proname, pg_get_functiondef(oid) as def from pg_proc where pronamespace = 'public'::regnamespace order by 1`,
  `select sequence_schema, sequence_name, start_value, increment from information_schema.sequences order by 1, 2`,
];

// The one time a migration writes (catalogue_state.updated_at, now() when it runs): compared apart.
const TIMESTAMP = /\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d+)?\+00/g;

async function describeDatabase(pg: PGlite): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const query of SCHEMA_QUERIES) out.push((await pg.query(query)).rows);
  const tables = await pg.query<{ name: string }>(
    `select format('%I.%I', table_schema, table_name) as name from information_schema.tables
       where table_schema in ('public', 'drizzle') and table_type = 'BASE TABLE' order by 1`,
  );
  for (const { name } of tables.rows) {
    // Every row, in a stable order: the table's own text of each row, sorted.
    const rows = await pg.query<{ row: string }>(`select t::text as row from ${name} t order by 1`);
    out.push({ table: name, rows: rows.rows.map(({ row }) => row.replace(TIMESTAMP, '<when it was made>')) });
  }
  return out;
}

describe('the embedded database template', () => {
  let work: string;
  let template: string;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'stages-template-'));
    template = join(work, 'template');
    expect(await buildPgliteTemplate(template)).toBe(true);
  }, 120_000);
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('is built once: a current template is kept', async () => {
    expect(isCurrentTemplate(template)).toBe(true);
    expect(await buildPgliteTemplate(template)).toBe(false);
    expect(readdirSync(work)).toEqual(['template']);
  });

  it('gives exactly the database that migrating a new one gives: schema, migrations table, every row', async () => {
    const dataDir = join(work, 'seeded');
    const copiedAt = Date.now();
    expect(seedFromTemplate(dataDir, template)).toBe(true);
    const seeded = await PGlite.create(dataDir);
    const fresh = await PGlite.create();
    try {
      const migrated = await openDatabase({ kind: 'pglite', dataDir: 'memory://' }, { pglite: fresh });
      await migrated.migrate();
      // The catalogue's last change is the copy's time, not the build's.
      await stampCreation(dataDir, await openDatabase({ kind: 'pglite', dataDir }, { pglite: seeded }));
      const state = await seeded.query<{ version: number; updated_at: Date }>('select * from catalogue_state');
      expect(state.rows[0]?.version).toBe(0);
      expect(state.rows[0]?.updated_at.getTime()).toBeGreaterThanOrEqual(copiedAt - 1000);
      expect(existsSync(join(dataDir, 'stages-created'))).toBe(false);
      const migrations = await seeded.query<{ n: number }>(
        'select count(*)::int as n from drizzle.__drizzle_migrations',
      );
      expect(migrations.rows[0]?.n).toBeGreaterThan(20);
      expect(await describeDatabase(seeded)).toEqual(await describeDatabase(fresh));
      // Applying the migrations again to the copy changes nothing.
      const reopened = await openDatabase({ kind: 'pglite', dataDir }, { pglite: seeded });
      await reopened.migrate();
      expect(await describeDatabase(seeded)).toEqual(await describeDatabase(fresh));
    } finally {
      await seeded.close();
      await fresh.close();
    }
  }, 60_000);

  it('seeds an empty directory, and leaves alone a database or files that are there', () => {
    const empty = join(work, 'empty');
    mkdirSync(empty);
    expect(seedFromTemplate(empty, template)).toBe(true);
    expect(existsSync(join(empty, 'PG_VERSION'))).toBe(true);
    expect(readdirSync(empty)).not.toContain('stages-seeding');
    expect(readdirSync(empty)).not.toContain('stages-template-key');
    expect(readdirSync(empty)).toContain('stages-created');
    // A database already there.
    expect(seedFromTemplate(empty, template)).toBe(false);
    // Someone's files, no database: not ours to replace (PGlite says what is wrong with them).
    const other = join(work, 'other');
    mkdirSync(other);
    writeFileSync(join(other, 'notes.txt'), 'mine');
    expect(seedFromTemplate(other, template)).toBe(false);
    expect(readdirSync(other)).toEqual(['notes.txt']);
  });

  it('finishes a copy that a start left cut short', () => {
    const cut = join(work, 'cut');
    mkdirSync(join(cut, 'base'), { recursive: true });
    writeFileSync(join(cut, 'stages-seeding'), '');
    writeFileSync(join(cut, 'base', 'half-a-file'), 'x');
    expect(seedFromTemplate(cut, template)).toBe(true);
    expect(existsSync(join(cut, 'base', 'half-a-file'))).toBe(false);
    expect(existsSync(join(cut, 'PG_VERSION'))).toBe(true);
    const copied = readdirSync(template).filter((f) => f !== 'stages-template-key');
    expect(readdirSync(cut).sort()).toEqual([...copied, 'stages-created'].sort());
  });

  it('is not used when it was made from other migrations or another PGlite', () => {
    const stale = join(work, 'stale');
    rmSync(stale, { recursive: true, force: true });
    mkdirSync(stale);
    for (const entry of readdirSync(template))
      if (entry !== 'stages-template-key') writeFileSync(join(stale, entry), '');
    writeFileSync(join(stale, 'stages-template-key'), 'made-from-something-else');
    expect(isCurrentTemplate(stale)).toBe(false);
    const target = join(work, 'from-stale');
    expect(seedFromTemplate(target, stale)).toBe(false);
    expect(existsSync(target)).toBe(false);
  });
});
