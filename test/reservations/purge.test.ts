import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/admin/api-keys.js';
import { buildApp } from '../../src/app.js';
import { type CatalogueData, replaceCatalogue } from '../../src/catalogue/repository.js';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/connect.js';
import { frozenClock } from '../helpers/app.js';
import { openForm, PERSON, submit } from '../helpers/booking.js';
import { cli, cliDatabase } from '../helpers/cli.js';
import { CENTRES, SESSIONS } from '../helpers/fixtures.js';

// A session that ended in March 2025 (past for the command line's real clock) and one in 2030.
const OLD = {
  ...SESSIONS.lyonMar5,
  id: '20000000-0000-4000-8000-000000000001',
  day1: '2025-03-04',
  day2: '2025-03-05',
  courseNumber: 'OLD-1',
};
const NEW = { ...SESSIONS.lyonMar5Early, id: '20000000-0000-4000-8000-000000000002', courseNumber: 'NEW-1' };
const CATALOGUE: CatalogueData = { centres: [CENTRES.lyon], sessions: [OLD, NEW] };

let env: Record<string, string>;
let cleanup: () => Promise<void>;
beforeAll(async () => {
  ({ env, cleanup } = await cliDatabase());
}, 120_000);
afterAll(() => cleanup());

/** The service on the command line's database, at a given moment. */
async function withApp<T>(now: string, run: (app: Awaited<ReturnType<typeof buildApp>>) => Promise<T>): Promise<T> {
  const config = loadConfig({
    ...env,
    LOG_LEVEL: 'silent',
    RATE_LIMIT: 'off',
    PUBLIC_BASE_URL: 'https://stages.example.test',
  });
  const database = await openDatabase(config.database);
  const app = await buildApp(config, { database, clock: frozenClock(now), logger: false });
  try {
    return await run(app);
  } finally {
    await app.close();
    await database.close();
  }
}

describe('npm run cli -- reservations:purge', { timeout: 120_000 }, () => {
  it('erases the personal data of ended sessions, keeps the counts, and leaves later ones alone', async () => {
    // The command line creates and migrates the database, as an operator's first command would.
    expect((await cli(['migrate'], env)).code).toBe(0);
    // March 2025: both sessions are ahead; one person books each.
    const links = await withApp('2025-03-01T09:00:00Z', async (app) => {
      await replaceCatalogue(app.database.db, CATALOGUE);
      await app.catalogue.refresh();
      const out: string[] = [];
      for (const s of [OLD, NEW]) {
        const res = await submit(app, s.id, await openForm(app, `/stages/${s.id}`), PERSON);
        expect(res.statusCode, res.body.slice(0, 300)).toBe(303);
        out.push(String(res.headers.location));
      }
      return out;
    });

    const bad = await cli(['reservations:purge', '--before', 'yesterday'], env);
    expect(bad.code).toBe(64);
    expect(bad.stderr).toContain('--before must be a date in YYYY-MM-DD form');
    const future = await cli(['reservations:purge', '--before', '2999-01-01'], env);
    expect(future.code).toBe(64);
    expect(future.stderr).toContain('must not be after today');

    const purge = await cli(['reservations:purge', '--before', '2025-06-01'], env);
    expect(purge.code, purge.stderr).toBe(0);
    expect(purge.stdout).toContain(
      'Personal data erased from 1 reservation of sessions ended before 2025-06-01 (1 private link deleted).',
    );
    // Run again: nothing more to erase.
    expect((await cli(['reservations:purge', '--before', '2025-06-01'], env)).stdout).toContain(
      'Personal data erased from 0 reservations',
    );

    await withApp('2025-03-01T09:00:00Z', async (app) => {
      // The old reservation's link leads nowhere now; the other one still works.
      expect((await app.inject(links[0] as string)).statusCode).toBe(404);
      const kept = await app.inject(links[1] as string);
      expect(kept.statusCode).toBe(200);
      expect(kept.body).toContain(PERSON.email);

      const { key } = await createApiKey(app.database.db, { name: 'ops', role: 'admin', centreId: null });
      const all = (
        await app.inject({ url: '/api/admin/reservations', headers: { authorization: `Bearer ${key}` } })
      ).json() as { data: Record<string, unknown>[] };
      const old = all.data.find((r) => r.sessionId === OLD.id);
      const recent = all.data.find((r) => r.sessionId === NEW.id);
      // The count and the anonymous facts stay; who it was does not.
      expect(old).toMatchObject({
        status: 'pending',
        reason: 'voluntary',
        firstName: null,
        lastName: null,
        email: null,
        phone: null,
      });
      expect(old?.purgedAt).toMatch(/^\d{4}-\d{2}-\d{2}T00:00:00\.000Z$/);
      // The reference people and the centre hold in their mailboxes leads to nobody any more.
      expect(old?.reference).toBe(`X-${old?.id}`);
      expect(old?.createdAt).toMatch(/T00:00:00\.000Z$/);
      expect(recent).toMatchObject({ email: PERSON.email, purgedAt: null });
    });
  });
});
