import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import type { CatalogueUpdate } from '../../src/catalogue/catalogue.js';
import { CatalogueSnapshot, sessionJson, urlBuilder } from '../../src/catalogue/read-model.js';
import { loadCatalogue } from '../../src/catalogue/repository.js';
import { openDatabase } from '../../src/db/connect.js';
import { keysFor, NEW_CENTRE, newSession } from '../helpers/admin-keys.js';
import { BASE_URL, buildTestApp, frozenClock, type TestApp, testConfig } from '../helpers/app.js';
import { TEST_DB } from '../helpers/database.js';
import { CENTRES, FIXTURE_CATALOGUE, FIXTURE_NOW, SESSIONS } from '../helpers/fixtures.js';
import { random } from '../helpers/random.js';
import { visible as readerView } from '../helpers/snapshot-shape.js';
import { until } from '../helpers/until.js';

/** Everything a reader can see of a snapshot, its version and centres included, in a comparable form. */
function visible(s: CatalogueSnapshot) {
  return {
    ...readerView(s),
    version: s.version,
    centres: [...s.centresById.values()].map((c) => c.tail.toString()).sort(),
    slugs: [...s.centresBySlug.keys()].sort(),
  };
}

describe('applying changes one by one', () => {
  let t: TestApp;
  let keys: Awaited<ReturnType<typeof keysFor>>;
  const updates: CatalogueUpdate['kind'][] = [];
  beforeAll(async () => {
    t = await buildTestApp({ catalogue: FIXTURE_CATALOGUE, clock: frozenClock(FIXTURE_NOW) });
    keys = await keysFor(t.app, CENTRES.lyon.id);
    t.app.catalogue.subscribe((u) => updates.push(u.kind));
  });
  afterAll(() => t.close());

  it('gives exactly the snapshot a full rebuild gives, after 150 random writes', async () => {
    const rnd = random(20261122);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)] as T;
    const sessionIds: string[] = Object.values(SESSIONS).map((s) => s.id);
    const centreIds: string[] = Object.values(CENTRES).map((c) => c.id);
    const extraCentre = '70000000-0000-4000-8000-000000000001';
    const put = await t.app.inject({
      method: 'PUT',
      url: `/api/admin/centres/${extraCentre}`,
      headers: keys.admin,
      payload: NEW_CENTRE,
    });
    expect(put.statusCode).toBe(201);
    centreIds.push(extraCentre);
    const mondays = ['2030-03-11', '2030-03-18', '2030-03-25', '2030-04-08', '2030-04-15'];
    for (let i = 0; i < 150; i++) {
      const id = pick(sessionIds);
      const r = rnd();
      let res: { statusCode: number; body: string };
      if (r < 0.3) {
        res = await t.app.inject({
          method: 'POST',
          url: `/api/admin/sessions/${id}/places`,
          headers: keys.admin,
          payload: { change: rnd() < 0.5 ? -1 : 1 },
        });
      } else if (r < 0.5) {
        res = await t.app.inject({
          method: 'PATCH',
          url: `/api/admin/sessions/${id}`,
          headers: keys.admin,
          payload: { priceEuros: 150 + Math.floor(rnd() * 150) },
        });
      } else if (r < 0.6) {
        res = await t.app.inject({
          method: 'PATCH',
          url: `/api/admin/sessions/${id}`,
          headers: keys.admin,
          payload: { status: rnd() < 0.5 ? 'cancelled' : 'scheduled' },
        });
      } else if (r < 0.7) {
        res = await t.app.inject({
          method: 'PATCH',
          url: `/api/admin/sessions/${id}`,
          headers: keys.admin,
          payload: { startTime: pick(['08:00', '08:30', '09:00']) },
        });
      } else if (r < 0.85) {
        // A new session, or an existing one moved to another centre and day.
        const target = rnd() < 0.5 ? `71000000-0000-4000-8000-${String(i).padStart(12, '0')}` : id;
        res = await t.app.inject({
          method: 'PUT',
          url: `/api/admin/sessions/${target}`,
          headers: keys.admin,
          payload: newSession(pick(centreIds), {
            courseNumber: `RND-${i}`,
            day1: pick(mondays),
            // Declared to the prefecture long before: some start within 10 days.
            declaredOn: '2030-01-02',
            spotsAvailable: Math.floor(rnd() * 13),
          }),
        });
        if (!sessionIds.includes(target)) sessionIds.push(target);
      } else {
        // A centre changes name, town or department: every one of its sessions changes too.
        const centre = pick(centreIds);
        const where = pick([
          {
            city: 'Villeurbanne',
            postalCode: '69100',
            deptCode: '69',
            lat: 45.77,
            lng: 4.89,
            agrementNumber: `R2406900${String(100 + i)}`,
          },
          {
            city: 'Grenoble',
            postalCode: '38000',
            deptCode: '38',
            lat: 45.19,
            lng: 5.72,
            agrementNumber: `R2403800${String(100 + i)}`,
          },
        ]);
        res = await t.app.inject({
          method: 'PUT',
          url: `/api/admin/centres/${centre}`,
          headers: keys.admin,
          payload: { ...NEW_CENTRE, ...where, slug: `centre-${i}`, name: `Centre ${i}` },
        });
      }
      expect([200, 201, 409], res.body).toContain(res.statusCode);
    }
    const stored = await loadCatalogue(t.app.database.db);
    const rebuilt = CatalogueSnapshot.build(
      stored.version,
      stored.updatedAt,
      stored.centres,
      stored.sessions,
      urlBuilder(BASE_URL),
    );
    expect(visible(t.app.catalogue.snapshot)).toEqual(visible(rebuilt));
    // The prebuilt bytes are exactly the view's JSON.
    for (const e of t.app.catalogue.snapshot.sessionsById.values())
      expect(sessionJson(e).toString()).toBe(JSON.stringify(e.view));
    // Every write was applied as a change, none by rebuilding the whole model.
    expect(updates.length).toBeGreaterThan(100);
    expect(updates.filter((k) => k === 'reload')).toEqual([]);
  });

  it('drops the sessions of a deleted centre with it', async () => {
    const before = updates.length;
    // A centre that has listed sessions now (the random writes above moved things around), not
    // the one that holds parisMar12 now: the next test changes that session.
    const spared = t.app.catalogue.snapshot.sessionsById.get(SESSIONS.parisMar12.id)?.record.centreId;
    const [centreId, listed] =
      [...t.app.catalogue.snapshot.sessionsByCentre].find(([id, l]) => l.length > 0 && id !== spared) ?? [];
    const sessionId = listed?.[0]?.record.id as string;
    expect(t.app.catalogue.snapshot.sessionsById.get(sessionId)).toBeDefined();
    await t.app.database.db.execute(sql`delete from centres where id = ${centreId}`);
    await t.app.catalogue.refresh();
    await until(() => updates.length > before);
    expect(t.app.catalogue.snapshot.sessionsById.get(sessionId)).toBeUndefined();
    expect(t.app.catalogue.snapshot.sessionsByCentre.get(centreId as string)).toBeUndefined();
    const stored = await loadCatalogue(t.app.database.db);
    const rebuilt = CatalogueSnapshot.build(
      stored.version,
      stored.updatedAt,
      stored.centres,
      stored.sessions,
      urlBuilder(BASE_URL),
    );
    expect(visible(t.app.catalogue.snapshot)).toEqual(visible(rebuilt));
  });

  it('rebuilds whole when the change log cannot say what changed (pruned), and agrees with the database', async () => {
    const before = updates.length;
    // A change whose log rows are gone (as after pruning), in one transaction so that no instance
    // can read the rows in between; a centre's among them, whose announcement carries only its
    // version (a change of sessions alone is announced with them, and needs no log).
    await t.app.database.db.transaction(async (tx) => {
      await tx.execute(
        sql`update stage_sessions set price_cents = price_cents + 100 where id = ${SESSIONS.parisMar12.id}`,
      );
      await tx.execute(sql`update centres set phone = '0100000099' where id = ${CENTRES.paris.id}`);
      await tx.execute(sql`delete from catalogue_changes`);
    });
    await t.app.catalogue.refresh();
    await until(() => updates.length > before);
    expect(updates.slice(before)).toContain('reload');
    const stored = await loadCatalogue(t.app.database.db);
    const rebuilt = CatalogueSnapshot.build(
      stored.version,
      stored.updatedAt,
      stored.centres,
      stored.sessions,
      urlBuilder(BASE_URL),
    );
    expect(visible(t.app.catalogue.snapshot)).toEqual(visible(rebuilt));
  });

  it('answers 503 to a write while the database is down, and keeps serving reads', async () => {
    const other = await buildTestApp({ catalogue: FIXTURE_CATALOGUE, clock: frozenClock(FIXTURE_NOW) });
    const otherKeys = await keysFor(other.app, CENTRES.lyon.id);
    await other.db.database.close();
    try {
      const write = await other.app.inject({
        method: 'POST',
        url: `/api/admin/sessions/${SESSIONS.lyonMar5.id}/places`,
        headers: otherKeys.admin,
        payload: { change: -1 },
      });
      expect(write.statusCode).toBe(503);
      expect(write.headers['content-type']).toContain('application/problem+json');
      expect(write.headers['retry-after']).toBeDefined();
      const read = await other.app.inject('/api/stages?dept=69');
      expect(read.statusCode).toBe(200);
      expect(read.json().count).toBeGreaterThan(0);
    } finally {
      await other.close(); // the app, then its database dropped
    }
  });
});

// Instances share a database only on a PostgreSQL server (PGlite is one process's own).
if (TEST_DB === 'postgres')
  describe('two instances on one PostgreSQL database', () => {
    let t: TestApp;
    let second: FastifyInstance;
    let closeSecond: () => Promise<void>;
    let keys: Awaited<ReturnType<typeof keysFor>>;
    beforeAll(async () => {
      t = await buildTestApp({ catalogue: FIXTURE_CATALOGUE, clock: frozenClock(FIXTURE_NOW) });
      keys = await keysFor(t.app, CENTRES.lyon.id);
      const database = await openDatabase({ kind: 'postgres', url: t.db.url as string });
      second = await buildApp(testConfig(), { database, logger: false, clock: frozenClock(FIXTURE_NOW) });
      await second.ready();
      closeSecond = async () => {
        await second.close();
        await database.close();
      };
    });
    afterAll(async () => {
      await closeSecond();
      await t.close();
    });

    const spots = async (app: FastifyInstance, id: string) =>
      (await app.inject(`/api/stages?includeUnavailable=true&limit=100`))
        .json()
        .data.find((s: { id: string }) => s.id === id)?.spotsAvailable as number | undefined;

    it('never oversells: 100 concurrent {"change": -1} over both instances on 20 places → exactly 20', async () => {
      const id = '72000000-0000-4000-8000-000000000001';
      const created = await t.app.inject({
        method: 'PUT',
        url: `/api/admin/sessions/${id}`,
        headers: keys.admin,
        payload: newSession(CENTRES.lyon.id, {
          courseNumber: 'TWO-1',
          day1: '2030-03-05',
          spotsAvailable: 20,
          declaredOn: '2030-01-02',
        }),
      });
      expect(created.statusCode, created.body).toBe(201);
      await until(async () => (await spots(second, id)) === 20);
      const results = await Promise.all(
        Array.from({ length: 100 }, (_, i) =>
          (i % 2 ? second : t.app).inject({
            method: 'POST',
            url: `/api/admin/sessions/${id}/places`,
            headers: keys.admin,
            payload: { change: -1 },
          }),
        ),
      );
      const codes = results.map((r) => r.statusCode);
      expect(codes.filter((c) => c === 200)).toHaveLength(20);
      expect(codes.filter((c) => c === 409)).toHaveLength(80);
      const remaining = results.filter((r) => r.statusCode === 200).map((r) => r.json().spotsAvailable as number);
      expect(remaining.sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i));
      // Both instances serve 0 within a second.
      await until(async () => (await spots(t.app, id)) === 0 && (await spots(second, id)) === 0, 1000);
    });

    it("serves one instance's write on the other within a second, as a change (not a rebuild)", async () => {
      const kinds: string[] = [];
      second.catalogue.subscribe((u) => kinds.push(u.kind));
      for (let i = 0; i < 5; i++) {
        const price = 200 + i;
        const res = await t.app.inject({
          method: 'PATCH',
          url: `/api/admin/sessions/${SESSIONS.parisMar12.id}`,
          headers: keys.admin,
          payload: { priceEuros: price },
        });
        expect(res.statusCode).toBe(200);
        const started = Date.now();
        await until(
          async () =>
            (await second.inject(`/api/stages?dept=75`))
              .json()
              .data.find((s: { id: string }) => s.id === SESSIONS.parisMar12.id)?.priceEuros === price,
          1000,
        );
        expect(Date.now() - started).toBeLessThan(1000);
      }
      expect(kinds.length).toBeGreaterThanOrEqual(5);
      expect(kinds).not.toContain('reload');
    });

    it('applies the same Idempotency-Key once across instances', async () => {
      const id = SESSIONS.ajaccioMar13.id;
      const before = (await t.app.inject({ url: `/api/admin/sessions/${id}`, headers: keys.admin })).json()
        .spotsAvailable;
      const results = await Promise.all(
        [t.app, second, t.app, second].map((app) =>
          app.inject({
            method: 'POST',
            url: `/api/admin/sessions/${id}/places`,
            headers: { ...keys.admin, 'idempotency-key': 'booking-7781' },
            payload: { change: -2 },
          }),
        ),
      );
      expect(results.map((r) => r.statusCode)).toEqual([200, 200, 200, 200]);
      expect(new Set(results.map((r) => r.json().spotsAvailable))).toEqual(new Set([before - 2]));
      const after = (await second.inject({ url: `/api/admin/sessions/${id}`, headers: keys.admin })).json()
        .spotsAvailable;
      expect(after).toBe(before - 2);
    });
  });
