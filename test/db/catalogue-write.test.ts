import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readCatalogueVersion } from '../../src/catalogue/repository.js';
import type { Db } from '../../src/db/connect.js';
import { catalogueWrite, onCatalogueWrite, type Tx } from '../../src/db/write.js';
import { buildTestApp, frozenClock, type TestApp } from '../helpers/app.js';
import { CENTRES, FIXTURE_CATALOGUE, FIXTURE_NOW, SESSIONS } from '../helpers/fixtures.js';

const rows = <T>(result: unknown) => (result as { rows: T[] }).rows;

/** Whether this transaction has updated or locked the catalogue's version row (its xmin or xmax is ours). */
async function versionRowTouched(tx: Tx) {
  const [row] = rows<{ updated: boolean; locked: boolean; version: number }>(
    await tx.execute(sql`select xmin::text = (pg_current_xact_id()::xid)::text as updated,
      xmax::text = (pg_current_xact_id()::xid)::text as locked, version from catalogue_state where id = 1`),
  );
  return row;
}

async function logSince(db: Db | Tx, since: number) {
  return rows<{ version: number; entity: string; id: string }>(
    await db.execute(sql`select version, entity, id::text as id from catalogue_changes where version > ${since}
      order by entity, id`),
  );
}

const pendingCount = async (db: Db | Tx) =>
  rows<{ n: number }>(await db.execute(sql`select count(*)::int as n from catalogue_changes_pending`))[0]?.n;

/**
 * A catalogue write takes its version at COMMIT (migration 0027): the version lock, which every
 * other writer waits for, is not held across the writer's own round trips. What it changed waits
 * in catalogue_changes_pending, where the write's hooks read it, and becomes one version at COMMIT.
 */
describe('a catalogue write and the change log', () => {
  let t: TestApp;
  let db: Db;
  beforeAll(async () => {
    t = await buildTestApp({ catalogue: FIXTURE_CATALOGUE, clock: frozenClock(FIXTURE_NOW) });
    db = t.app.database.db;
  });
  afterAll(() => t.close());

  it('neither locks nor bumps the version before COMMIT, then logs the whole write under one version', async () => {
    const before = await readCatalogueVersion(db);
    const inside = await catalogueWrite(db, async (tx) => {
      await tx.execute(sql`update stage_sessions set price_cents = price_cents + 100
        where id in (${SESSIONS.lyonMar5.id}::uuid, ${SESSIONS.parisMar12.id}::uuid)`);
      await tx.execute(sql`update centres set phone = '0400000000' where id = ${CENTRES.lyon.id}::uuid`);
      const state = await versionRowTouched(tx);
      const pending = rows<{ entity: string; id: string }>(
        await tx.execute(sql`select entity, id::text as id from catalogue_changes_pending order by entity, id`),
      );
      return { state, pending, logged: await logSince(tx, before) };
    });
    // Before COMMIT: the version row untouched (no lock held), the changes pending, nothing logged.
    expect(inside.state).toEqual({ updated: false, locked: false, version: before });
    expect(inside.pending).toEqual(
      [
        { entity: 'centre', id: CENTRES.lyon.id },
        { entity: 'session', id: SESSIONS.lyonMar5.id },
        { entity: 'session', id: SESSIONS.parisMar12.id },
      ].sort((a, b) => a.entity.localeCompare(b.entity) || a.id.localeCompare(b.id)),
    );
    expect(inside.logged).toEqual([]);
    // After: one version for both statements, every row logged under it, nothing left pending.
    expect(await readCatalogueVersion(db)).toBe(before + 1);
    expect(await logSince(db, before)).toEqual(inside.pending.map((p) => ({ version: before + 1, ...p })));
    expect(await pendingCount(db)).toBe(0);
    // The instance applies it from the log as any other version.
    await t.app.catalogue.refresh();
    expect(t.app.catalogue.snapshot.version).toBe(before + 1);
    expect(t.app.catalogue.snapshot.sessionsById.get(SESSIONS.lyonMar5.id)?.record.priceCents).toBe(
      SESSIONS.lyonMar5.priceCents + 100,
    );
  });

  it('leaves no version and nothing pending when the write rolls back or changes no row', async () => {
    const before = await readCatalogueVersion(db);
    await expect(
      catalogueWrite(db, async (tx) => {
        await tx.execute(sql`update stage_sessions set price_cents = 1 where id = ${SESSIONS.lyonMar5.id}::uuid`);
        expect(await pendingCount(tx)).toBe(1);
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    await catalogueWrite(db, (tx) =>
      tx.execute(sql`update stage_sessions set price_cents = 1 where id = '00000000-0000-4000-8000-00000000ffff'`),
    );
    expect(await readCatalogueVersion(db)).toBe(before);
    expect(await logSince(db, before)).toEqual([]);
    expect(await pendingCount(db)).toBe(0);
  });

  it('leaves a statement outside catalogueWrite (the previous release, a lone statement) logged at once', async () => {
    const before = await readCatalogueVersion(db);
    await db.transaction(async (tx) => {
      await tx.execute(sql`update stage_sessions set price_cents = 2 where id = ${SESSIONS.lyonMar5.id}::uuid`);
      // The previous release's writers hold the version from their statement on, as before.
      expect(await versionRowTouched(tx)).toEqual({ updated: true, locked: false, version: before + 1 });
      expect(await pendingCount(tx)).toBe(0);
    });
    expect(await logSince(db, before)).toEqual([{ version: before + 1, entity: 'session', id: SESSIONS.lyonMar5.id }]);
  });
});

describe('the hooks of a catalogue write', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ catalogue: FIXTURE_CATALOGUE, clock: frozenClock(FIXTURE_NOW) });
  });
  afterAll(() => t.close());

  it('runs a hook only when it is wanted, and a hook replaced asks its own question from the next write on', async () => {
    const db = t.app.database.db;
    const ran: string[] = [];
    const write = () =>
      catalogueWrite(db, (tx) =>
        tx.execute(
          sql`update stage_sessions set price_cents = price_cents + 1 where id = ${SESSIONS.lyonMar5.id}::uuid`,
        ),
      );
    onCatalogueWrite(db, 'probe', { wanted: () => sql`true`, run: async () => void ran.push('first') });
    await write();
    await write();
    // The same name, another question: the write's opening statement is another one (sent with BEGIN
    // on PostgreSQL, its columns read in order; embedded, kept planned under another name).
    onCatalogueWrite(db, 'probe', { wanted: () => sql`1 = 0`, run: async () => void ran.push('second') });
    await write();
    onCatalogueWrite(db, 'probe', {
      wanted: () => sql`exists (select 1 from stage_sessions where price_cents > 0)`,
      run: async () => void ran.push('third'),
    });
    await write();
    expect(ran).toEqual(['first', 'first', 'third']);
  });
});
