import { eq, inArray } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { type Database, openDatabase } from '../../src/db/connect.js';
import { reservations, stageSessions } from '../../src/db/schema.js';
import { bookPlace } from '../../src/reservations/repository.js';
import { Browser, signIn } from '../helpers/accounts.js';
import { buildTestApp, frozenClock, type TestApp, testConfig } from '../helpers/app.js';
import { TEST_DB } from '../helpers/database.js';
import { FIXTURE_NOW } from '../helpers/fixtures.js';
import { CHANGE_CATALOGUE, CHANGE_SESSIONS } from './change-fixtures.js';

/*
 * Twenty people, booked on two sessions in Lyon, all change at once onto one session with five places,
 * through two instances (on PostgreSQL each with its own pool): exactly five move, every other
 * reservation keeps its place, and on every session touched what is on sale plus what is held
 * adds up to what it was.
 */

const S = CHANGE_SESSIONS;
const TARGET = { ...S.villeurbanneMar27, spotsAvailable: 5 };
const SOURCES = [
  { ...S.lyonMar20, spotsAvailable: 10 },
  { ...S.lyonApr3, spotsAvailable: 10 },
];
const PEOPLE = 20;
const clock = frozenClock(FIXTURE_NOW);
let t: TestApp;
let second: FastifyInstance;
let secondDb: Database | undefined;

beforeAll(async () => {
  const changed = new Map([TARGET, ...SOURCES].map((s) => [s.id, s]));
  const catalogue = {
    ...CHANGE_CATALOGUE,
    sessions: CHANGE_CATALOGUE.sessions.map((s) => changed.get(s.id) ?? s),
  };
  t = await buildTestApp({ catalogue, clock });
  secondDb = TEST_DB === 'postgres' ? await openDatabase({ kind: 'postgres', url: t.db.url as string }) : undefined;
  second = await buildApp(testConfig(), { database: secondDb ?? t.db.database, clock, logger: false });
  await second.ready();
});
afterAll(async () => {
  await second?.close();
  await secondDb?.close();
  await t?.close();
});

const places = async (ids: string[]) =>
  new Map(
    (
      await t.app.database.db
        .select({ id: stageSessions.id, spots: stageSessions.spotsAvailable, held: stageSessions.heldHere })
        .from(stageSessions)
        .where(inArray(stageSessions.id, ids))
    ).map((s) => [s.id, s]),
  );

describe('twenty date changes at once onto a session with five places', () => {
  it('moves exactly five; every other reservation keeps its place; places add up on every session', async () => {
    const people = await Promise.all(
      Array.from({ length: PEOPLE }, async (_, i) => {
        const email = `personne${i}@example.org`;
        const source = SOURCES[i % SOURCES.length] as (typeof SOURCES)[number];
        const booked = await bookPlace(t.app.database.db, {
          sessionId: source.id,
          details: {
            firstName: `Personne${i}`,
            lastName: 'Test',
            email,
            phone: '+33612345678',
            reason: 'voluntary',
          },
          browser: `browser-${i}`,
          now: clock.now(),
        });
        expect(booked.kind).toBe('booked');
        const id = booked.kind === 'booked' ? booked.reservation.id : '';
        // Half the people on each instance, each with the change page's form opened there.
        const app = i % 2 === 0 ? t.app : second;
        const browser = await signIn(app, email, new Browser(app));
        const page = await browser.get(`/mon-espace/reservations/${id}/changement`);
        expect(page.statusCode).toBe(200);
        return { id, source: source.id, browser, form: { ...Browser.createForm(page.body), sessionId: TARGET.id } };
      }),
    );
    const ids = [TARGET.id, ...SOURCES.map((s) => s.id)];
    await Promise.all([t.app.catalogue.refresh(), second.catalogue.refresh()]);
    const before = await places(ids);

    const answers = await Promise.all(
      people.map((p) => p.browser.post(`/mon-espace/reservations/${p.id}/changement`, p.form)),
    );
    const moved = answers.filter((a) => a.statusCode === 303);
    expect(moved).toHaveLength(5);
    for (const a of moved) expect(a.headers.location).toBe('/mon-espace?change=1');
    const refused = answers.filter((a) => a.statusCode !== 303);
    expect(refused.map((a) => a.statusCode)).toEqual(Array(PEOPLE - 5).fill(409));
    for (const a of refused) expect(a.body).toContain('Ce stage vient d’être complet : rien n’a changé');

    // Every reservation is where it was, or moved (another centre: cancelled in Lyon, a new
    // reservation at Villeurbanne).
    const rows = await t.app.database.db
      .select()
      .from(reservations)
      .where(
        inArray(
          reservations.id,
          people.map((p) => p.id),
        ),
      );
    const stayed = rows.filter((r) => r.status !== 'cancelled');
    expect(stayed).toHaveLength(PEOPLE - 5);
    for (const r of stayed) expect(r.sessionId).toBe(people.find((p) => p.id === r.id)?.source);
    const onTarget = await t.app.database.db.select().from(reservations).where(eq(reservations.sessionId, TARGET.id));
    expect(onTarget.filter((r) => r.status === 'pending')).toHaveLength(5);

    const after = await places(ids);
    expect(after.get(TARGET.id)).toEqual({ id: TARGET.id, spots: 0, held: 5 });
    for (const id of ids) {
      const b = before.get(id);
      const a = after.get(id);
      expect((a?.spots ?? 0) + (a?.held ?? 0), id).toBe((b?.spots ?? 0) + (b?.held ?? 0));
    }
    const active = await t.app.database.db.select().from(reservations);
    for (const id of ids)
      expect(after.get(id)?.held, id).toBe(active.filter((r) => r.sessionId === id && r.status !== 'cancelled').length);
  });
});
