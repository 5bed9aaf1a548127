import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CatalogueDelta } from '../../src/catalogue/read-model.js';
import { readFewChanges } from '../../src/catalogue/read-few-changes.js';
import { readCatalogueVersion, readChangesSince } from '../../src/catalogue/repository.js';
import type { Db } from '../../src/db/connect.js';
import { catalogueWrite } from '../../src/db/write.js';
import { buildTestApp, frozenClock, type TestApp } from '../helpers/app.js';
import { CENTRES, FIXTURE_CATALOGUE, FIXTURE_NOW, SESSIONS } from '../helpers/fixtures.js';

/** A delta in a comparable form: each map's entries sorted by id. */
function comparable(d: CatalogueDelta | 'reload' | 'many' | undefined) {
  if (d === undefined || typeof d === 'string') return d;
  const sorted = <T>(m: ReadonlyMap<string, T>) => [...m.entries()].sort(([a], [b]) => a.localeCompare(b));
  return { version: d.version, updatedAt: d.updatedAt.getTime(), centres: sorted(d.centres), sessions: sorted(d.sessions) };
}

/**
 * The catch-up's one-statement read says what the paged read (readChangesSince) says, record for
 * record: changed, deleted and suspended centres with every session of theirs, changed and deleted
 * sessions; and leaves a delta past its bound to the paged read.
 */
describe('the catch-up read in one statement', () => {
  let t: TestApp;
  let db: Db;
  beforeAll(async () => {
    t = await buildTestApp({ catalogue: FIXTURE_CATALOGUE, clock: frozenClock(FIXTURE_NOW) });
    db = t.app.database.db;
  });
  afterAll(() => t.close());

  it('reads what the paged read reads', async () => {
    const start = await readCatalogueVersion(db);
    expect(await readFewChanges(db, start)).toBeUndefined();
    await catalogueWrite(db, (tx) =>
      tx.execute(sql`update stage_sessions set price_cents = price_cents + 1 where id = ${SESSIONS.lyonMar5.id}::uuid`),
    );
    await db.execute(sql`update centres set phone = '0400000001', approved_on = '2024-01-02'
      where id = ${CENTRES.lyon.id}::uuid`);
    await db.execute(sql`delete from stage_sessions where id = ${SESSIONS.parisMar12.id}::uuid`);
    await db.execute(sql`update centres set suspended_at = now() where id = ${CENTRES.paris.id}::uuid`);
    const now = await readCatalogueVersion(db);
    expect(now).toBe(start + 4);
    for (let since = start; since <= now; since++) {
      const few = await readFewChanges(db, since);
      expect(comparable(few), `since ${since}`).toEqual(comparable(await readChangesSince(db, since)));
    }
    const all = await readFewChanges(db, start);
    if (all === undefined || typeof all === 'string') throw new Error(`expected a delta, got ${all}`);
    expect(all.centres.get(CENTRES.lyon.id)).toMatchObject({ phone: '0400000001', approvedOn: '2024-01-02' });
    expect(all.centres.get(CENTRES.paris.id)).toBeNull(); // suspended: as if it did not exist
    expect(all.sessions.get(SESSIONS.parisMar12.id)).toBeNull(); // deleted
    expect(all.sessions.get(SESSIONS.lyonMar5.id)).toMatchObject({ priceCents: SESSIONS.lyonMar5.priceCents + 1 });
    // Ahead of the database (replaced by an older one): reload, as the paged read says.
    expect(await readFewChanges(db, now + 5)).toBe('reload');
  });

  it('leaves more than its bound of change-log rows to the paged read', async () => {
    const start = await readCatalogueVersion(db);
    for (let i = 0; i < 201; i++) {
      await db.execute(sql`update stage_sessions set price_cents = ${30000 + i} where id = ${SESSIONS.lyonMar5.id}::uuid`);
    }
    expect(await readFewChanges(db, start)).toBe('many');
    expect(await readFewChanges(db, start + 1)).not.toBe('many');
    expect(comparable(await readFewChanges(db, start + 1))).toEqual(comparable(await readChangesSince(db, start + 1)));
  });
});
