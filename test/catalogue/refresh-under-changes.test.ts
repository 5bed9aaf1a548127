import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keysFor } from '../helpers/admin-keys.js';
import { buildTestApp, frozenClock, type TestApp } from '../helpers/app.js';
import { CENTRES, FIXTURE_CATALOGUE, FIXTURE_NOW, SESSIONS } from '../helpers/fixtures.js';

/**
 * A write is acknowledged once the instance's snapshot holds it (`catalogue.refresh()` after the
 * commit). Catch-ups are coalesced: while changes keep coming they follow one another without a
 * pause, and a write's answer must not wait for the stream of changes to stop.
 */
describe('a write acknowledged while other changes keep coming', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ catalogue: FIXTURE_CATALOGUE, clock: frozenClock(FIXTURE_NOW) });
  });
  afterAll(() => t.close());

  it('is answered once its own change is in the snapshot, not when the others stop', async () => {
    const db = t.app.database.db;
    const TOTAL = 150;
    let written = 0;
    let stop = false;
    // Another writer changing a Paris session's price again and again, each change announced.
    const other = (async () => {
      while (!stop && written < TOTAL) {
        await db.execute(
          sql`update stage_sessions set price_cents = ${20000 + written} where id = ${SESSIONS.parisMar12.id}::uuid`,
        );
        written++;
        void t.app.catalogue.refresh();
      }
    })();
    await new Promise((r) => setTimeout(r, 20));
    const res = await t.app.inject({
      method: 'PATCH',
      url: `/api/admin/sessions/${SESSIONS.lyonMar5.id}`,
      headers: (await keysFor(t.app, CENTRES.lyon.id)).admin,
      payload: { priceEuros: 241 },
    });
    const writtenAtAnswer = written;
    stop = true;
    await other;
    expect(res.statusCode).toBe(200);
    // The answer came while the other writer was still going…
    expect(writtenAtAnswer).toBeLessThan(TOTAL);
    // …and what it acknowledged is what the public search already shows.
    const list = await t.app.inject({ url: '/api/stages?city=lyon&limit=50' });
    const shown = (list.json() as { data: { id: string; priceEuros: number }[] }).data.find(
      (s) => s.id === SESSIONS.lyonMar5.id,
    );
    expect(shown?.priceEuros).toBe(241);
  });
});
