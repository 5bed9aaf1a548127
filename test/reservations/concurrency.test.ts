import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { openDatabase } from '../../src/db/connect.js';
import { buildTestApp, frozenClock, type TestApp, testConfig } from '../helpers/app.js';
import { TEST_DB } from '../helpers/database.js';
import { FIXTURE_CATALOGUE, FIXTURE_NOW, SESSIONS } from '../helpers/fixtures.js';

const SESSION = { ...SESSIONS.lyonMar5Early, spotsAvailable: 5 };
const BOOKINGS = 40;

let t: TestApp;
let second: FastifyInstance;
let closeSecondDb: () => Promise<void>;
const origins: string[] = [];

beforeAll(async () => {
  const catalogue = {
    ...FIXTURE_CATALOGUE,
    sessions: FIXTURE_CATALOGUE.sessions.map((s) => (s.id === SESSION.id ? SESSION : s)),
  };
  // Plain http on loopback: the form cookie has no Secure flag there, as in a local deployment.
  const env = { PUBLIC_BASE_URL: 'http://127.0.0.1' };
  t = await buildTestApp({ catalogue, clock: frozenClock(FIXTURE_NOW), env });
  // A second instance of the service: on PostgreSQL its own pool and its own LISTEN connection;
  // PGlite belongs to one process, so there the second app shares the handle.
  const db2 = TEST_DB === 'postgres' ? await openDatabase({ kind: 'postgres', url: t.db.url as string }) : undefined;
  closeSecondDb = async () => db2?.close();
  second = await buildApp(testConfig(env), {
    database: db2 ?? t.db.database,
    clock: frozenClock(FIXTURE_NOW),
    logger: false,
  });
  for (const app of [t.app, second]) origins.push(await app.listen({ port: 0, host: '127.0.0.1' }));
});
afterAll(async () => {
  await second?.close();
  await closeSecondDb?.();
  await t?.close();
});

interface Browser {
  origin: string;
}

/** One person opens the session page on an instance, as a browser does: the form is there. */
async function open(i: number): Promise<Browser> {
  const origin = origins[i % 2] as string;
  const page = await fetch(`${origin}/stages/${SESSION.id}`);
  expect(await page.text()).toContain(`action="/stages/${SESSION.id}/reservation#reserver"`);
  return { origin };
}

/** …then posts the form there. */
async function post(b: Browser, i: number): Promise<{ status: number; body: string }> {
  const res = await fetch(`${b.origin}/stages/${SESSION.id}/reservation`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' },
    body: new URLSearchParams({
      website: '',
      firstName: 'Camille',
      lastName: `Personne ${String.fromCharCode(65 + (i % 26))}`,
      email: `personne${i}@example.org`,
      phone: `06 00 00 00 ${String(i).padStart(2, '0')}`,
      reason: 'voluntary',
      consent: 'yes',
    }),
  });
  return { status: res.status, body: await res.text() };
}

describe(`${BOOKINGS} people book the last 5 places at once, on two instances`, () => {
  it('makes exactly 5 reservations; everyone else is told "complet"; places end at 0 on both instances', async () => {
    // Everyone has the form open (the session has places for all they know), then all submit at once.
    const browsers = await Promise.all(Array.from({ length: BOOKINGS }, (_, i) => open(i)));
    const results = await Promise.all(browsers.map((b, i) => post(b, i)));
    const booked = results.filter((r) => r.status === 303);
    const full = results.filter((r) => r.status === 409);
    expect(booked).toHaveLength(5);
    expect(full).toHaveLength(BOOKINGS - 5);
    for (const r of full) expect(r.body).toContain('Ce stage est complet');

    const rows = await t.app.database.db.execute(
      sql`select (select count(*)::int from reservations where session_id = ${SESSION.id}) as n,
                 (select spots_available from stage_sessions where id = ${SESSION.id}) as spots`,
    );
    const [row] = ((rows as unknown as { rows?: unknown[] }).rows ?? rows) as { n: number; spots: number }[];
    expect(row).toEqual({ n: 5, spots: 0 });

    // Both instances serve the same answer, at once for the instance that booked last and within a second elsewhere.
    for (const origin of origins) {
      await expect
        .poll(
          async () => {
            const res = await fetch(`${origin}/api/stages/${SESSION.id}`);
            return ((await res.json()) as { spotsAvailable: number; status: string }).status;
          },
          { timeout: 1000, interval: 50 },
        )
        .toBe('full');
    }
  });
});
