import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { announcementOf, readRecentChanges } from '../../src/catalogue/recent-changes.js';
import { readCatalogueVersion, readChangesInFull } from '../../src/catalogue/repository.js';
import type { Db } from '../../src/db/connect.js';
import { catalogueWrite } from '../../src/db/write.js';
import { type AnnouncedApp, announcedApp } from '../helpers/announced-app.js';
import { buildTestApp, frozenClock, type TestApp } from '../helpers/app.js';
import { TEST_DB, type TestDatabase } from '../helpers/database.js';
import { CENTRES, FIXTURE_CATALOGUE, FIXTURE_NOW, SESSIONS } from '../helpers/fixtures.js';
import { secondInstance } from '../helpers/second-instance.js';
import { until } from '../helpers/until.js';

/**
 * A change of a few sessions is announced with the sessions as they stand (migration 0028), so that
 * an instance that did not make it applies it without reading the change log: one read a change in
 * all at most, the writer's, instead of one per instance (a writer told its version at COMMIT reads
 * none: writer-served.test.ts). What the announcement carries must be what that read says.
 */

describe('what a change announces', () => {
  let t: TestApp;
  let db: Db;
  const heard: string[] = [];
  let unlisten: () => Promise<void>;
  beforeAll(async () => {
    t = await buildTestApp({ catalogue: FIXTURE_CATALOGUE, clock: frozenClock(FIXTURE_NOW) });
    db = t.app.database.db;
    unlisten = await t.app.database.listenCatalogueChanges((payload) => {
      if (payload) heard.push(payload);
    });
  });
  afterAll(async () => {
    await unlisten();
    await t.close();
  });

  /** The announcement of version `version`, once heard. */
  const announced = async (version: number) => {
    let found: ReturnType<typeof announcementOf>;
    await until(() => {
      found = heard.map(announcementOf).find((a) => a?.version === version);
      return found !== undefined;
    });
    return found;
  };

  /** Each change's announcement is what the change log's read says from the version before it. */
  const expectAsRead = async (change: () => Promise<unknown>) => {
    const before = await readCatalogueVersion(db);
    await change();
    const version = before + 1;
    expect(await readCatalogueVersion(db)).toBe(version);
    const a = await announced(version);
    const read = await readRecentChanges(db, before);
    expect(a?.delta).toBeDefined();
    expect(a?.delta).toEqual(read);
    expect(a?.delta).toEqual(await readChangesInFull(db, before)); // the embedded database's catch-up
    expect(a?.delta?.updatedAt.getTime()).toBe(typeof read === 'object' && read.updatedAt.getTime());
    return a?.delta;
  };

  it('carries a lone statement’s session, a write of three, and a deleted one, as the log’s read says them', async () => {
    const one = await expectAsRead(() =>
      db.execute(sql`update stage_sessions set price_cents = 24100 where id = ${SESSIONS.lyonMar5.id}::uuid`),
    );
    expect(one?.sessions.get(SESSIONS.lyonMar5.id)?.priceCents).toBe(24100);
    const three = await expectAsRead(() =>
      catalogueWrite(db, (tx) =>
        tx.execute(sql`update stage_sessions set spots_available = spots_available + 1
          where id in (${SESSIONS.parisMar12.id}::uuid, ${SESSIONS.lyonMar5Early.id}::uuid, ${SESSIONS.stEtienneMar5.id}::uuid)`),
      ),
    );
    expect([...(three?.sessions.keys() ?? [])].sort()).toEqual(
      [SESSIONS.parisMar12.id, SESSIONS.lyonMar5Early.id, SESSIONS.stEtienneMar5.id].sort(),
    );
    expect(three?.sessions.get(SESSIONS.parisMar12.id)?.spotsAvailable).toBe(SESSIONS.parisMar12.spotsAvailable + 1);
    const gone = await expectAsRead(() =>
      db.execute(sql`delete from stage_sessions where id = ${SESSIONS.lyonPast.id}::uuid`),
    );
    expect(gone?.sessions.get(SESSIONS.lyonPast.id)).toBeNull();
  });

  it('says only the version of a centre’s change, and of more than 20 sessions at once', async () => {
    let before = await readCatalogueVersion(db);
    await db.execute(sql`update centres set phone = '0400000002' where id = ${CENTRES.lyon.id}::uuid`);
    expect(await announced(before + 1)).toEqual({ version: before + 1 });

    // 21 sessions of one write: more than an announcement carries.
    before = await readCatalogueVersion(db);
    await catalogueWrite(db, (tx) =>
      tx.execute(sql`insert into stage_sessions (id, centre_id, course_number, day1, day2, start_time, end_time,
          price_cents, capacity, spots_available)
        select gen_random_uuid(), ${CENTRES.paris.id}::uuid, 'N-' || n, '2030-04-10', '2030-04-11', '08:30', '16:30', 20000, 20, 20
        from generate_series(1, 21) as n`),
    );
    expect(await announced(before + 1)).toEqual({ version: before + 1 });

    // 20 sessions whose announcement would pass 7,900 bytes (NOTIFY takes 8,000).
    before = await readCatalogueVersion(db);
    await catalogueWrite(db, (tx) =>
      tx.execute(sql`insert into stage_sessions (id, centre_id, course_number, day1, day2, start_time, end_time,
          price_cents, capacity, spots_available)
        select gen_random_uuid(), ${CENTRES.paris.id}::uuid, repeat('L', 400) || n, '2030-04-17', '2030-04-18', '08:30',
          '16:30', 20000, 20, 20
        from generate_series(1, 20) as n`),
    );
    expect(await announced(before + 1)).toEqual({ version: before + 1 });
  });

  it('writes the days as the log’s read does, whatever the writer’s DateStyle', async () => {
    const delta = await expectAsRead(() =>
      catalogueWrite(db, async (tx) => {
        await tx.execute(sql`set local datestyle = 'SQL, DMY'`);
        await tx.execute(sql`update stage_sessions set price_cents = 24300 where id = ${SESSIONS.lyonMar5.id}::uuid`);
      }),
    );
    expect(delta?.sessions.get(SESSIONS.lyonMar5.id)?.day1).toBe(SESSIONS.lyonMar5.day1);
  });

  it('reads a payload it cannot use as a change of unknown version, or as the version alone', () => {
    expect(announcementOf(undefined)).toBeUndefined();
    expect(announcementOf('')).toBeUndefined();
    expect(announcementOf('41')).toEqual({ version: 41 });
    expect(announcementOf('{"version": 42')).toBeUndefined();
    expect(announcementOf('{"version": "42"}')).toBeUndefined();
    expect(announcementOf('{"version": 43, "updatedMs": 1}')).toEqual({ version: 43 });
  });
});

/**
 * Applying what is announced is for PostgreSQL, where other instances write. Embedded, every change
 * is the instance's own write, read from the log by its catch-up (see catalogue.ts's #heard).
 */
if (TEST_DB === 'pglite')
  describe('embedded', () => {
    it('reads the log for a change announced with its sessions', async () => {
      const t = await buildTestApp({ catalogue: FIXTURE_CATALOGUE, clock: frozenClock(FIXTURE_NOW) });
      try {
        await t.app.catalogue.refresh();
        const reads = t.app.catalogue.logReads;
        const from = t.app.catalogue.snapshot.version;
        await t.app.database.db.execute(
          sql`update stage_sessions set price_cents = 26300 where id = ${SESSIONS.stEtienneMar5.id}::uuid`,
        );
        await until(() => t.app.catalogue.snapshot.version === from + 1);
        expect(t.app.catalogue.logReads).toBe(reads + 1);
      } finally {
        await t.close();
      }
    });
  });

if (TEST_DB === 'postgres')
  describe('an instance that hears a change it did not make', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await buildTestApp({ catalogue: FIXTURE_CATALOGUE, clock: frozenClock(FIXTURE_NOW) });
      await t.app.catalogue.refresh();
    });
    afterAll(() => t.close());

    const served = async (app: FastifyInstance, id: string) =>
      ((await app.inject({ method: 'GET', url: `/api/stages/${id}` })).json() as { priceEuros: number }).priceEuros;

    it('applies a session’s change as announced, without reading the log; a centre’s change it reads', async () => {
      const catalogue = t.app.catalogue;
      const reads = catalogue.logReads;
      const from = catalogue.snapshot.version;
      await t.app.database.db.execute(
        sql`update stage_sessions set price_cents = 26100 where id = ${SESSIONS.stEtienneMar5.id}::uuid`,
      );
      await until(() => catalogue.snapshot.version === from + 1);
      expect(await served(t.app, SESSIONS.stEtienneMar5.id)).toBe(261);
      expect(catalogue.logReads).toBe(reads);

      await t.app.database.db.execute(
        sql`update centres set name = 'Centre de Lyon' where id = ${CENTRES.lyon.id}::uuid`,
      );
      await until(() => catalogue.snapshot.version === from + 2);
      expect(catalogue.snapshot.centresById.get(CENTRES.lyon.id)?.record.name).toBe('Centre de Lyon');
      expect(catalogue.logReads).toBe(reads + 1);
    });

    it('applies a write made on another instance as announced', async () => {
      const other = await secondInstance(t);
      try {
        const catalogue = other.app.catalogue;
        await catalogue.refresh();
        const reads = catalogue.logReads;
        const from = catalogue.snapshot.version;
        await catalogueWrite(t.app.database.db, (tx) =>
          tx.execute(sql`update stage_sessions set price_cents = 26200 where id = ${SESSIONS.parisMar12.id}::uuid`),
        );
        await until(() => catalogue.snapshot.version === from + 1);
        expect(await served(other.app, SESSIONS.parisMar12.id)).toBe(262);
        expect(catalogue.logReads).toBe(reads);
      } finally {
        await other.close();
      }
    });
  });

/**
 * Announcements delivered by the test (the database's own are not listened to), and the catch-ups'
 * reads of the log held back on demand (each runs at once; its answer waits), so that what each
 * catch-up sees, and when, is known.
 */
if (TEST_DB === 'postgres')
  describe('announced changes and the log', () => {
    let t: AnnouncedApp;
    let db: TestDatabase;
    let app: FastifyInstance;
    let announce: (payload?: string) => void;
    let gate: Promise<void> | undefined;
    /** The last read's own answer, before the gate: once it resolves, the read has seen the database. */
    let answered: Promise<unknown> = Promise.resolve();
    beforeAll(async () => {
      t = await announcedApp(
        (handle) =>
          new Proxy(handle, {
            get(target, prop, receiver) {
              const value = Reflect.get(target, prop, receiver);
              if (prop !== 'execute' && prop !== 'transaction') return value;
              return (...args: unknown[]) => {
                // Once: drizzle's query is a thenable that runs again at each `then`.
                const answer = Promise.resolve(
                  Reflect.apply(value as (...a: unknown[]) => PromiseLike<unknown>, target, args),
                );
                answered = answer;
                const waitFor = gate;
                return waitFor
                  ? answer.then(async (r) => {
                      await waitFor;
                      return r;
                    })
                  : answer;
              };
            },
          }),
      );
      ({ db, app, announce } = t);
    });
    afterAll(() => t.close());

    const session = SESSIONS.ajaccioMar13;
    const setPrice = (cents: number) =>
      db.database.db.execute(sql`update stage_sessions set price_cents = ${cents} where id = ${session.id}::uuid`);
    const served = async () =>
      ((await app.inject({ method: 'GET', url: `/api/stages/${session.id}` })).json() as { priceEuros: number })
        .priceEuros;
    /** The announcement of `version`, a change of the session's price to `cents`. */
    const saying = (version: number, cents: number) =>
      JSON.stringify({
        version,
        updatedMs: Date.parse(FIXTURE_NOW),
        ids: [session.id],
        sessions: [{ ...session, status: 'scheduled', priceCents: cents }],
      });

    it('applies the next version as announced, and reads the log when the one before was not heard', async () => {
      let reads = app.catalogue.logReads;
      const from = app.catalogue.snapshot.version;
      await setPrice(24_400);
      announce(saying(from + 1, 24_400));
      await until(() => app.catalogue.snapshot.version === from + 1);
      expect(app.catalogue.logReads).toBe(reads);
      expect(await served()).toBe(244);

      reads = app.catalogue.logReads;
      await setPrice(24_500);
      await setPrice(24_600);
      announce(saying(from + 3, 24_600)); // from + 2 was never announced
      await until(() => app.catalogue.snapshot.version === from + 3);
      expect(app.catalogue.logReads).toBe(reads + 1);
      expect(await served()).toBe(246);
    });

    /** Holds back the answers of the reads begun from now on, until the function returned is called. */
    const holdReads = () => {
      let open = () => {};
      gate = new Promise((resolve) => {
        open = resolve;
      });
      releaseReads = () => {
        gate = undefined;
        open();
      };
      return releaseReads;
    };
    let releaseReads = () => {};
    afterEach(() => releaseReads()); // even when a test failed before it let them go

    it('applies the changes heard during a catch-up at once, after it, as the log would say them', async () => {
      const other = SESSIONS.bourgMar14;
      const swaps: { version: number; sessions: string[] }[] = [];
      const stop = app.catalogue.subscribe((u) => {
        if (u.kind === 'delta') swaps.push({ version: u.snapshot.version, sessions: [...u.delta.sessions.keys()] });
      });
      const reads = app.catalogue.logReads;
      const from = app.catalogue.snapshot.version;
      const release = holdReads();
      const first = app.catalogue.refresh();
      await answered; // that catch-up has read the log at `from`
      await setPrice(24_710);
      await db.database.db.execute(sql`update stage_sessions set price_cents = 9950 where id = ${other.id}::uuid`);
      await setPrice(24_730);
      announce(saying(from + 1, 24_710));
      announce(
        JSON.stringify({
          version: from + 2,
          updatedMs: Date.parse(FIXTURE_NOW),
          ids: [other.id],
          sessions: [{ ...other, status: 'scheduled', priceCents: 9_950 }],
        }),
      );
      announce(saying(from + 3, 24_730));
      release();
      await first;
      await until(() => app.catalogue.snapshot.version === from + 3);
      stop();
      expect(swaps).toEqual([{ version: from + 3, sessions: [session.id, other.id] }]);
      expect(app.catalogue.logReads).toBe(reads + 1);
      expect(await served()).toBe(247.3);
    });

    it('reads the log after a reconnection, though the next version was heard before it', async () => {
      const reads = app.catalogue.logReads;
      const from = app.catalogue.snapshot.version;
      const release = holdReads();
      const first = app.catalogue.refresh();
      await answered;
      await setPrice(24_810);
      await setPrice(24_820); // from + 2: announced while the notifications were cut off, so never heard
      announce(saying(from + 1, 24_810));
      announce(undefined); // the listening connection is back
      release();
      await first;
      await until(() => app.catalogue.snapshot.version === from + 2);
      expect(await served()).toBe(248.2);
      expect(app.catalogue.logReads).toBe(reads + 2);
    });

    it('keeps no heard change of a version later announced without one', async () => {
      const from = app.catalogue.snapshot.version;
      const release = holdReads();
      const first = app.catalogue.refresh();
      await answered;
      await setPrice(24_830);
      announce(saying(from + 1, 1)); // say, of a database since replaced
      announce(String(from + 1)); // the version alone: the log says what it is
      release();
      await first;
      await until(() => app.catalogue.snapshot.version === from + 1);
      expect(await served()).toBe(248.3);
    });

    it('answers a writer from the log, not from a change heard while its commit was on its way', async () => {
      const from = app.catalogue.snapshot.version;
      const release = holdReads();
      const first = app.catalogue.refresh(); // reads the log now, at `from`; its answer is held back
      await answered;
      await setPrice(24_700); // from + 1: another instance's write, announced below
      await setPrice(24_800); // from + 2: this instance's write, committed
      announce(saying(from + 1, 24_700));
      const writer = app.catalogue.refresh(); // the writer waits for a state that holds its commit
      release();
      await first;
      await writer;
      expect(app.catalogue.snapshot.version).toBe(from + 2);
      expect(await served()).toBe(248);
    });
  });
