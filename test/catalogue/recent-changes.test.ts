import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FEW_CHANGES, readRecentChanges } from '../../src/catalogue/recent-changes.js';
import { readCatalogueVersion, readChangesInFull, readChangesSince } from '../../src/catalogue/repository.js';
import type { Db } from '../../src/db/connect.js';
import { catalogueWrite } from '../../src/db/write.js';
import { buildTestApp, frozenClock, type TestApp } from '../helpers/app.js';
import { CENTRES, FIXTURE_CATALOGUE, FIXTURE_NOW, SESSIONS } from '../helpers/fixtures.js';

/**
 * A catch-up reads the few changes a steady stream of writes leaves in one statement
 * (recent-changes.ts) instead of a transaction of five. What it reads must be what the full read
 * says of the same log, to the order of a version's sessions and the millisecond of `updatedAt`:
 * the read model and the change stream's events are built from it.
 */
describe('the change log read in one statement', () => {
  let t: TestApp;
  let db: Db;
  beforeAll(async () => {
    t = await buildTestApp({ catalogue: FIXTURE_CATALOGUE, clock: frozenClock(FIXTURE_NOW) });
    db = t.app.database.db;
  });
  afterAll(() => t.close());

  /** The quick read from `since`, checked against the full read of the same state. */
  async function bothFrom(since: number) {
    const quick = await readRecentChanges(db, since);
    const full = await readChangesInFull(db, since);
    return { quick, full };
  }

  const price = (id: string, cents: number) =>
    db.execute(sql`update stage_sessions set price_cents = ${cents} where id = ${id}::uuid`);

  it('says what the full read says of one change, several, and a write of several sessions', async () => {
    const start = await readCatalogueVersion(db);
    await price(SESSIONS.lyonMar5.id, 24100);
    let { quick, full } = await bothFrom(start);
    expect(quick).not.toBe('more');
    expect(quick).toEqual(full);
    expect(typeof quick === 'object' && quick.updatedAt.getTime()).toBe(
      typeof full === 'object' && full.updatedAt.getTime(),
    );

    // One write of three sessions (one version), then two more versions, one session twice.
    await catalogueWrite(db, (tx) =>
      tx.execute(sql`update stage_sessions set spots_available = spots_available + 1
        where id in (${SESSIONS.parisMar12.id}::uuid, ${SESSIONS.lyonMar5Early.id}::uuid, ${SESSIONS.lyonPast.id}::uuid)`),
    );
    await price(SESSIONS.parisMar12.id, 19900);
    await price(SESSIONS.lyonMar5.id, 24200);
    ({ quick, full } = await bothFrom(start));
    expect(quick).toEqual(full);
    expect(typeof quick === 'object' && [...quick.sessions.keys()]).toEqual(
      typeof full === 'object' && [...full.sessions.keys()],
    );
    expect(typeof quick === 'object' && quick.sessions.get(SESSIONS.lyonMar5.id)?.priceCents).toBe(24200);
  });

  it('reads the last change’s time to the same millisecond as the full read, microseconds cut', async () => {
    const start = await readCatalogueVersion(db);
    await price(SESSIONS.lyonMar5.id, 24150);
    await db.execute(sql`update catalogue_state set updated_at = '2030-03-01 10:00:00.123999+00' where id = 1`);
    const { quick, full } = await bothFrom(start);
    expect(typeof quick === 'object' && quick.updatedAt.toISOString()).toBe('2030-03-01T10:00:00.123Z');
    expect(quick).toEqual(full);
  });

  it('reads a deleted session as removed, as the full read does', async () => {
    const start = await readCatalogueVersion(db);
    await db.execute(sql`delete from stage_sessions where id = ${SESSIONS.lyonPast.id}::uuid`);
    const { quick, full } = await bothFrom(start);
    expect(quick).toEqual(full);
    expect(typeof quick === 'object' && quick.sessions.get(SESSIONS.lyonPast.id)).toBeNull();
  });

  it('leaves a centre’s change, or too many at once, to the full read, through readChangesSince', async () => {
    let start = await readCatalogueVersion(db);
    await db.execute(sql`update centres set phone = '0400000001' where id = ${CENTRES.lyon.id}::uuid`);
    expect(await readRecentChanges(db, start)).toBe('more');
    const centre = await readChangesSince(db, start);
    expect(centre).toEqual(await readChangesInFull(db, start));
    expect(typeof centre === 'object' && centre.centres.get(CENTRES.lyon.id)?.phone).toBe('0400000001');

    start = await readCatalogueVersion(db);
    for (let i = 0; i <= FEW_CHANGES; i++) await price(SESSIONS.parisMar12.id, 20000 + i);
    expect(await readRecentChanges(db, start)).toBe('more');
    expect(await readChangesSince(db, start)).toEqual(await readChangesInFull(db, start));
    await price(SESSIONS.parisMar12.id, 19000);
    expect(await readRecentChanges(db, start + FEW_CHANGES)).toEqual(await readChangesInFull(db, start + FEW_CHANGES));
  });

  it('says nothing changed, or reload, where the full read does', async () => {
    const now = await readCatalogueVersion(db);
    expect(await readRecentChanges(db, now)).toBeUndefined();
    // A database older than the version held.
    expect(await readRecentChanges(db, now + 5)).toBe('reload');
    expect(await readChangesInFull(db, now + 5)).toBe('reload');
    // The log pruned past the version held.
    await price(SESSIONS.lyonMar5.id, 24300);
    await price(SESSIONS.lyonMar5.id, 24400);
    await db.execute(sql`delete from catalogue_changes where version = ${now + 1}`);
    expect(await readRecentChanges(db, now)).toBe('reload');
    expect(await readChangesInFull(db, now)).toBe('reload');
    // A wholesale replacement in the log.
    const before = await readCatalogueVersion(db);
    await db.execute(sql`update catalogue_state set version = version + 1 where id = 1`);
    await db.execute(sql`insert into catalogue_changes (version, entity, id) values (${before + 1}, 'reset', null)`);
    const { quick, full } = await bothFrom(before);
    expect(quick).toBe('reload');
    expect(full).toBe('reload');
  });
});
