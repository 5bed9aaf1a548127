import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keysFor } from '../helpers/admin-keys.js';
import { buildTestApp, frozenClock, type TestApp } from '../helpers/app.js';
import { TEST_DB } from '../helpers/database.js';
import { CENTRES, FIXTURE_CATALOGUE, FIXTURE_NOW, SESSIONS } from '../helpers/fixtures.js';

/*
 * An import sets each figure against the bookings its session holds here, so it must read them
 * locked: a booking that commits between its read and its write would otherwise be forgotten, and
 * its place put back on sale. On PostgreSQL the booking's transaction is held open while the import
 * starts; the import must wait for it and count it.
 */

const SESSION = SESSIONS.lyonMar5Early;
const FIGURE = 5;
let t: TestApp;
let keys: Awaited<ReturnType<typeof keysFor>>;

beforeAll(async () => {
  t = await buildTestApp({ catalogue: FIXTURE_CATALOGUE, clock: frozenClock(FIXTURE_NOW) });
  keys = await keysFor(t.app, CENTRES.lyon.id);
});
afterAll(async () => {
  await t?.close();
});

function importFigure() {
  const { id, priceCents, ...rest } = SESSION as typeof SESSION & { id: string; priceCents: number };
  return t.app.inject({
    method: 'POST',
    url: '/api/admin/import',
    headers: { ...keys.partner, 'content-type': 'application/json' },
    payload: { sessions: [{ id, ...rest, priceEuros: priceCents / 100, spotsAvailable: FIGURE }] },
  });
}

async function stored(): Promise<{ spots: number; held: number }> {
  const result = await t.app.database.db.execute(
    `select spots_available::int as spots, held_here::int as held from stage_sessions where id = '${SESSION.id}'` as never,
  );
  return (((result as unknown as { rows?: unknown[] }).rows ?? result) as { spots: number; held: number }[])[0] as {
    spots: number;
    held: number;
  };
}

// A place taken here as a booking takes it: one conditional UPDATE.
const TAKE = `update stage_sessions set spots_available = spots_available - 1, held_here = held_here + 1
  where id = $1 and spots_available > 0`;

describe('an import and a booking at once', () => {
  it('the import counts a booking that commits while it runs: the place is not put back on sale', async () => {
    if (TEST_DB === 'postgres') {
      const booking = new pg.Client({ connectionString: t.db.url as string });
      await booking.connect();
      try {
        await booking.query('begin');
        await booking.query(TAKE, [SESSION.id]);
        const imported = importFigure();
        // The import is waiting for the booking's row lock before anything is committed.
        await expect
          .poll(async () => {
            const r = await booking.query(
              `select count(*)::int as n from pg_locks l join pg_stat_activity a using (pid)
                where not l.granted and a.datname = current_database()`,
            );
            return r.rows[0].n as number;
          })
          .toBeGreaterThan(0);
        await booking.query('commit');
        const res = await imported;
        expect(res.statusCode, res.body).toBe(200);
      } finally {
        await booking.end();
      }
    } else {
      // One connection: the booking commits first, then the import runs.
      await t.app.database.db.execute(TAKE.replace('$1', `'${SESSION.id}'`) as never);
      expect((await importFigure()).statusCode).toBe(200);
    }
    expect(await stored()).toEqual({ spots: FIGURE - 1, held: 1 });
  });
});
