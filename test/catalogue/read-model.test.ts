import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { openDatabase } from '../../src/db/connect.js';
import { stageSessions } from '../../src/db/schema.js';
import { buildTestApp, frozenClock, type TestApp, testConfig } from '../helpers/app.js';
import { TEST_DB } from '../helpers/database.js';
import { FIXTURE_CATALOGUE, FIXTURE_NOW, SESSIONS } from '../helpers/fixtures.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ catalogue: FIXTURE_CATALOGUE, clock: frozenClock(FIXTURE_NOW) });
});
afterAll(() => t.close());

async function until<T>(probe: () => Promise<T>, ok: (v: T) => boolean): Promise<T> {
  for (let i = 0; i < 100; i++) {
    const v = await probe();
    if (ok(v)) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('condition not reached in 5 s');
}

const lyonSpots = async (app = t.app) => {
  const body = (await app.inject('/api/stages?dept=69&includeUnavailable=true')).json();
  return {
    updatedAt: body.updatedAt as string,
    spots: body.data.find((s: { id: string }) => s.id === SESSIONS.lyonMar5.id)?.spotsAvailable,
  };
};

describe('read model', () => {
  it('follows a change in the database: new places and a new updatedAt', async () => {
    const before = await lyonSpots();
    expect(before.spots).toBe(3);
    await t.db.database.db
      .update(stageSessions)
      .set({ spotsAvailable: 0 })
      .where(eq(stageSessions.id, SESSIONS.lyonMar5.id));
    const after = await until(lyonSpots, (v) => v.spots === 0);
    expect(after.updatedAt > before.updatedAt).toBe(true);
    // A full session leaves the default (bookable only) list.
    const bookable = (await t.app.inject('/api/stages?dept=69')).json();
    expect(bookable.data.map((s: { id: string }) => s.id)).not.toContain(SESSIONS.lyonMar5.id);
  });

  // Instances share a database only on a PostgreSQL server (PGlite is one process's own).
  const acrossInstances = TEST_DB === 'postgres' ? it : undefined;
  acrossInstances?.('reaches another instance on the same database through NOTIFY', async () => {
    const other = await openDatabase({ kind: 'postgres', url: t.db.url as string });
    const app2 = await buildApp(testConfig(), { database: other, logger: false, clock: frozenClock(FIXTURE_NOW) });
    try {
      await t.db.database.db
        .update(stageSessions)
        .set({ spotsAvailable: 7 })
        .where(eq(stageSessions.id, SESSIONS.lyonMar5.id));
      const seen = await until(
        () => lyonSpots(app2),
        (v) => v.spots === 7,
      );
      expect(seen.spots).toBe(7);
    } finally {
      await app2.close();
      await other.close();
    }
  });
});
