import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readCatalogueVersion } from '../../src/catalogue/repository.js';
import { catalogueWrite, type Told } from '../../src/db/write.js';
import { keysFor } from '../helpers/admin-keys.js';
import { type AnnouncedApp, announcedApp } from '../helpers/announced-app.js';
import { buildTestApp, frozenClock, type TestApp } from '../helpers/app.js';
import { TEST_DB } from '../helpers/database.js';
import { CENTRES, FIXTURE_CATALOGUE, FIXTURE_NOW, SESSIONS } from '../helpers/fixtures.js';
import { until } from '../helpers/until.js';

/**
 * A writer's answer holds its own write: the operator who changed a price reads it back at once. On
 * PostgreSQL, PostgreSQL tells each catalogue write the version its COMMIT took (migration 0029), and
 * the writer waits for its instance to apply that version as announced, without reading the change
 * log itself; embedded, the writer reads the log.
 */

const priceOf = async (app: FastifyInstance, id: string) =>
  ((await app.inject({ method: 'GET', url: `/api/stages/${id}` })).json() as { priceEuros: number }).priceEuros;

describe('a writer’s answer', () => {
  let t: TestApp;
  let admin: { authorization: string };
  beforeAll(async () => {
    t = await buildTestApp({ catalogue: FIXTURE_CATALOGUE, clock: frozenClock(FIXTURE_NOW) });
    admin = (await keysFor(t.app, CENTRES.lyon.id)).admin;
    await t.app.catalogue.refresh();
  });
  afterAll(() => t.close());

  const patch = (id: string, payload: Record<string, unknown>) =>
    t.app.inject({ method: 'PATCH', url: `/api/admin/sessions/${id}`, headers: admin, payload });

  it('holds the write it answers for, read from the announcement on PostgreSQL and from the log embedded', async () => {
    const catalogue = t.app.catalogue;
    const reads = catalogue.logReads;
    const res = await patch(SESSIONS.lyonMar5.id, { priceEuros: 264 });
    expect(res.statusCode, res.body).toBe(200);
    // No wait, no until: the answer came after this instance served the write.
    expect(await priceOf(t.app, SESSIONS.lyonMar5.id)).toBe(264);
    expect(catalogue.snapshot.version).toBe(await readCatalogueVersion(t.app.database.db));
    if (TEST_DB === 'postgres') expect(catalogue.logReads).toBe(reads);
    else expect(catalogue.logReads).toBeGreaterThan(reads);

    const places = await t.app.inject({
      method: 'POST',
      url: `/api/admin/sessions/${SESSIONS.lyonMar5.id}/places`,
      headers: admin,
      payload: { change: -1 },
    });
    expect(places.statusCode, places.body).toBe(200);
    const left = (places.json() as { spotsAvailable: number }).spotsAvailable;
    const listed = (await t.app.inject({ method: 'GET', url: `/api/stages/${SESSIONS.lyonMar5.id}` })).json() as {
      spotsAvailable: number;
    };
    expect(listed.spotsAvailable).toBe(left);
    if (TEST_DB === 'postgres') expect(catalogue.logReads).toBe(reads);
  });

  it('answers a write that changes nothing without waiting for a version', async () => {
    const catalogue = t.app.catalogue;
    await patch(SESSIONS.parisMar12.id, { priceEuros: 231 });
    const version = catalogue.snapshot.version;
    const reads = catalogue.logReads;
    const same = await patch(SESSIONS.parisMar12.id, { priceEuros: 231 });
    expect(same.statusCode, same.body).toBe(200);
    expect(await readCatalogueVersion(t.app.database.db)).toBe(version);
    if (TEST_DB === 'postgres') expect(catalogue.logReads).toBe(reads);
  });

  it('tells a catalogue write the version its COMMIT took, and null when it changed nothing; a statement of its own, as psql sends, hears nothing', async () => {
    const db = t.app.database.db;
    const told: Told = {};
    await catalogueWrite(
      db,
      (tx) =>
        tx.execute(sql`update stage_sessions set price_cents = 26600 where id = ${SESSIONS.stEtienneMar5.id}::uuid`),
      told,
    );
    const nothing: Told = {};
    await catalogueWrite(db, (tx) => tx.execute(sql`select 1`), nothing);
    if (TEST_DB === 'postgres') {
      expect(told.version).toBe(await readCatalogueVersion(db));
      expect(nothing.version).toBeNull();
    } else {
      expect(told.version).toBeUndefined();
      expect(nothing.version).toBeUndefined();
    }
    const before = await readCatalogueVersion(db);
    await db.execute(sql`update stage_sessions set price_cents = 26500 where id = ${SESSIONS.stEtienneMar5.id}::uuid`);
    await until(() => t.app.catalogue.snapshot.version === before + 1);
  });

  if (TEST_DB === 'postgres')
    it('holds its write when the database was replaced by an older one, and the next writer waits for no read', async () => {
      const catalogue = t.app.catalogue;
      const db = t.app.database.db;
      // An older database under a listening instance (a restore): its version is below the one served.
      await db.execute(sql`update catalogue_state set version = version - 3 where id = 1`);
      const res = await patch(SESSIONS.lyonMar5Early.id, { priceEuros: 268 });
      expect(res.statusCode, res.body).toBe(200);
      expect(await priceOf(t.app, SESSIONS.lyonMar5Early.id)).toBe(268);
      expect(catalogue.snapshot.version).toBe(await readCatalogueVersion(db));
      // Served from the older database's versions on: the next write's announcement brings it.
      const reads = catalogue.logReads;
      const next = await patch(SESSIONS.lyonMar5Early.id, { priceEuros: 269 });
      expect(next.statusCode, next.body).toBe(200);
      expect(await priceOf(t.app, SESSIONS.lyonMar5Early.id)).toBe(269);
      expect(catalogue.logReads).toBe(reads);
    });
});

/**
 * An instance that hears only the announcements the test delivers (none here): the writer's wait for
 * its version's announcement ends, after a second, with a read of the log of its own.
 */
if (TEST_DB === 'postgres')
  describe('a writer whose announcement never comes', () => {
    let t: AnnouncedApp;
    beforeAll(async () => {
      t = await announcedApp();
    });
    afterAll(() => t.close());

    it('reads the log itself, and still answers with its write held', async () => {
      const { app } = t;
      const { admin } = await keysFor(app, CENTRES.lyon.id);
      const reads = app.catalogue.logReads;
      const res = await app.inject({
        method: 'PATCH',
        url: `/api/admin/sessions/${SESSIONS.ajaccioMar13.id}`,
        headers: admin,
        payload: { priceEuros: 267 },
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(await priceOf(app, SESSIONS.ajaccioMar13.id)).toBe(267);
      expect(app.catalogue.logReads).toBe(reads + 1);
    });
  });
