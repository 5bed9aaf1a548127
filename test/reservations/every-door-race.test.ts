import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { openDatabase } from '../../src/db/connect.js';
import { keysFor } from '../helpers/admin-keys.js';
import { buildTestApp, frozenClock, type TestApp, testConfig } from '../helpers/app.js';
import { cli } from '../helpers/cli.js';
import { TEST_DB } from '../helpers/database.js';
import { CENTRES, FIXTURE_CATALOGUE, FIXTURE_NOW, SESSIONS } from '../helpers/fixtures.js';

/*
 * Every door that changes a session's places, at once, on two instances (on PostgreSQL each with
 * its own pool, and the command line as a third process): bookings on the site, the centre's
 * relative takes, its imports and PATCHes stating a figure that knows nothing of the bookings.
 * The centre's figure is 5 throughout: however the writes interleave, no more than 5 bookings are
 * acknowledged, and what is on sale plus what is booked never passes 5.
 */

const SESSION = { ...SESSIONS.lyonMar5Early, spotsAvailable: 5 };
const FIGURE = 5;
const BOOKINGS = 16;

let t: TestApp;
let second: FastifyInstance;
let closeSecondDb: () => Promise<void>;
let keys: Awaited<ReturnType<typeof keysFor>>;
let dir: string;
const origins: string[] = [];

beforeAll(async () => {
  const catalogue = {
    ...FIXTURE_CATALOGUE,
    sessions: FIXTURE_CATALOGUE.sessions.map((s) => (s.id === SESSION.id ? SESSION : s)),
  };
  const env = { PUBLIC_BASE_URL: 'http://127.0.0.1' };
  t = await buildTestApp({ catalogue, clock: frozenClock(FIXTURE_NOW), env });
  const db2 = TEST_DB === 'postgres' ? await openDatabase({ kind: 'postgres', url: t.db.url as string }) : undefined;
  closeSecondDb = async () => db2?.close();
  second = await buildApp(testConfig(env), {
    database: db2 ?? t.db.database,
    clock: frozenClock(FIXTURE_NOW),
    logger: false,
  });
  for (const app of [t.app, second]) origins.push(await app.listen({ port: 0, host: '127.0.0.1' }));
  keys = await keysFor(t.app, CENTRES.lyon.id);
  dir = await mkdtemp(join(tmpdir(), 'stages-race-'));
});
afterAll(async () => {
  await second?.close();
  await closeSecondDb?.();
  await t?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const origin = (i: number) => origins[i % 2] as string;

/** A person opens the session page on an instance: the form is there. */
async function open(i: number): Promise<void> {
  const page = await fetch(`${origin(i)}/stages/${SESSION.id}`);
  expect(await page.text()).toContain(`action="/stages/${SESSION.id}/reservation#reserver"`);
}

/** …and, later, sends it. */
async function book(i: number): Promise<number> {
  const res = await fetch(`${origin(i)}/stages/${SESSION.id}/reservation`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' },
    body: new URLSearchParams({
      website: '',
      firstName: 'Camille',
      lastName: `Personne ${String.fromCharCode(65 + i)}`,
      email: `course${i}@example.org`,
      phone: `06 00 00 00 ${String(i).padStart(2, '0')}`,
      reason: 'voluntary',
      consent: 'yes',
    }),
  });
  await res.arrayBuffer();
  return res.status;
}

async function admin(i: number, method: string, path: string, body: unknown): Promise<number> {
  const res = await fetch(`${origin(i)}${path}`, {
    method,
    headers: { ...keys.partner, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  await res.arrayBuffer();
  return res.status;
}

/** The centre's own file: the session as its system knows it, 5 places left. */
function centreFile() {
  const { id, ...record } = SESSION as typeof SESSION & { id: string };
  const { priceCents, ...rest } = record as Record<string, unknown> & { priceCents: number };
  return { sessions: [{ id, ...rest, priceEuros: priceCents / 100, spotsAvailable: FIGURE }] };
}

async function stored() {
  const result = await t.app.database.db.execute(
    sql`select spots_available::int as spots, held_here::int as held,
          (select count(*)::int from reservations where session_id = ${SESSION.id} and status <> 'cancelled') as active
        from stage_sessions where id = ${SESSION.id}`,
  );
  return (
    ((result as unknown as { rows?: unknown[] }).rows ?? result) as { spots: number; held: number; active: number }[]
  )[0];
}

describe('every door races for the last places, including figures that know nothing of the bookings', () => {
  it(`acknowledges at most ${FIGURE} bookings, and never has more on sale plus booked than the centre's ${FIGURE}`, async () => {
    const file = join(dir, 'centre.json');
    await writeFile(file, JSON.stringify(centreFile()));
    const places = `/api/admin/sessions/${SESSION.id}/places`;
    // Everyone has the form open while places are left; then every door goes at once.
    const forms = await Promise.all(Array.from({ length: BOOKINGS }, (_, i) => open(i)));
    const [bookings, takes, imports, patches, cliRun] = await Promise.all([
      Promise.all(forms.map((_, i) => book(i))),
      Promise.all(Array.from({ length: 8 }, (_, i) => admin(i, 'POST', places, { change: -1 }))),
      Promise.all(Array.from({ length: 3 }, (_, i) => admin(i, 'POST', '/api/admin/import', centreFile()))),
      Promise.all(
        Array.from({ length: 2 }, (_, i) =>
          admin(i, 'PATCH', `/api/admin/sessions/${SESSION.id}`, { spotsAvailable: FIGURE }),
        ),
      ),
      // The command line is a process of its own: it can share the database only on a server.
      TEST_DB === 'postgres' ? cli(['import', file], { DATABASE_URL: t.db.url as string }) : undefined,
    ]);
    for (const status of bookings) expect([303, 409]).toContain(status);
    for (const status of takes) expect([200, 409]).toContain(status);
    expect(imports).toEqual([200, 200, 200]);
    expect(patches).toEqual([200, 200]);
    if (cliRun) expect(cliRun.code, cliRun.stderr).toBe(0);

    const acknowledged = bookings.filter((s) => s === 303).length;
    expect(acknowledged).toBeGreaterThan(0);
    expect(acknowledged).toBeLessThanOrEqual(FIGURE);
    const after = await stored();
    expect(after?.active).toBe(acknowledged);
    expect(after?.held).toBe(acknowledged);
    expect((after?.spots ?? 0) + (after?.held ?? 0)).toBeLessThanOrEqual(FIGURE);

    // A last figure from the centre, as late as any: the bookings keep their places.
    expect(await admin(1, 'PATCH', `/api/admin/sessions/${SESSION.id}`, { spotsAvailable: FIGURE })).toBe(200);
    expect(await stored()).toEqual({ spots: FIGURE - acknowledged, held: acknowledged, active: acknowledged });
    for (const o of origins)
      await expect
        .poll(
          async () =>
            ((await (await fetch(`${o}/api/stages/${SESSION.id}`)).json()) as { spotsAvailable: number })
              .spotsAvailable,
          {
            timeout: 1000,
            interval: 50,
          },
        )
        .toBe(FIGURE - acknowledged);
  });
});
