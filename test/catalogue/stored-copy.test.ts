import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { ArticleLibrary } from '../../src/articles/articles.js';
import { readCatalogueStamp, replaceCatalogue } from '../../src/catalogue/repository.js';
import { frozenClock, testConfig } from '../helpers/app.js';
import { openTestDatabase, type TestDatabase } from '../helpers/database.js';
import { FIXTURE_CATALOGUE, FIXTURE_NOW, SESSIONS } from '../helpers/fixtures.js';

// The copy of the catalogue kept between runs (catalogue/stored-copy.ts): used when it holds the
// database's state, never when the database moved on without it.
describe('the catalogue kept between runs', () => {
  let db: TestDatabase;
  let dir: string;
  let file: string;
  let articles: ArticleLibrary;
  const session = SESSIONS.parisMar12;

  beforeAll(async () => {
    db = await openTestDatabase();
    await replaceCatalogue(db.database.db, FIXTURE_CATALOGUE);
    articles = await ArticleLibrary.load();
    dir = mkdtempSync(join(tmpdir(), 'stages-copy-'));
    file = join(dir, 'catalogue.json');
  });
  afterAll(async () => {
    await db.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  const start = async (): Promise<FastifyInstance> => {
    const app = await buildApp(testConfig(), {
      database: db.database,
      logger: false,
      articles,
      clock: frozenClock(FIXTURE_NOW),
      catalogueCopy: file,
    });
    await app.ready();
    return app;
  };
  const priceOf = async (app: FastifyInstance): Promise<number> => {
    const res = await app.inject({ method: 'GET', url: `/api/stages/${session.id}` });
    expect(res.statusCode).toBe(200);
    return (res.json() as { priceEuros: number }).priceEuros;
  };
  /** The file: a header line, then a line per centre and per session. */
  const lines = () =>
    readFileSync(file, 'utf8')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  const copy = () => {
    const [header, ...records] = lines();
    return {
      stamp: header?.stamp,
      sessions: records.filter((r) => 'centreId' in r) as unknown as (typeof session)[],
    };
  };
  const rewrite = (edit: (record: Record<string, unknown>, index: number) => Record<string, unknown>) =>
    writeFileSync(
      file,
      `${lines()
        .map((r, i) => JSON.stringify(edit(r, i)))
        .join('\n')}\n`,
    );
  /** The copy's price of the session changed behind the database's back, its stamp kept. */
  const tamperCopy = (priceCents: number) => rewrite((r) => (r.id === session.id ? { ...r, priceCents } : r));

  it('writes the copy at the first start, and reads it at the next while the database has not changed', async () => {
    let app = await start();
    expect(await priceOf(app)).toBe(session.priceCents / 100);
    await app.close();
    expect(copy().stamp).toBe(await readCatalogueStamp(db.database.db));
    expect(copy().sessions).toHaveLength(FIXTURE_CATALOGUE.sessions.length);
    // A price only the copy holds is what a start serves: the database was not read.
    tamperCopy(12_300);
    app = await start();
    expect(await priceOf(app)).toBe(123);
    await app.close();
  });

  it('is not used once the database changed while the service was stopped (a stale copy is never served)', async () => {
    tamperCopy(12_300);
    await db.database.db.execute(sql`update stage_sessions set price_cents = 31000 where id = ${session.id}`);
    const app = await start();
    expect(await priceOf(app)).toBe(310);
    await app.close();
    // Rewritten from the database at that start.
    expect(copy().stamp).toBe(await readCatalogueStamp(db.database.db));
    expect(copy().sessions.find((s) => s.id === session.id)?.priceCents).toBe(31_000);
  });

  it('is brought up to date at close after changes made while running', async () => {
    const app = await start();
    const before = copy().stamp;
    await db.database.db.execute(sql`update stage_sessions set price_cents = 32000 where id = ${session.id}`);
    await app.catalogue.refresh();
    expect(await priceOf(app)).toBe(320);
    await app.close();
    expect(copy().stamp).not.toBe(before);
    expect(copy().stamp).toBe(await readCatalogueStamp(db.database.db));
    expect(copy().sessions.find((s) => s.id === session.id)?.priceCents).toBe(32_000);
  });

  it('is not used when written by a build whose reads or schema differ, nor when cut short', async () => {
    tamperCopy(100);
    rewrite((r, i) => (i === 0 ? { ...r, key: 'another-build' } : r));
    let app = await start();
    expect(await priceOf(app)).toBe(320);
    await app.close();
    writeFileSync(file, readFileSync(file, 'utf8').slice(0, 1000));
    app = await start();
    expect(await priceOf(app)).toBe(320);
    await app.close();
  });
});
