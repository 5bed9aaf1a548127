import { eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { type Database, openDatabase } from '../../src/db/connect.js';
import { reservations } from '../../src/db/schema.js';
import { eventBody } from '../../src/webhooks/event-body.js';
import { keysFor } from '../helpers/admin-keys.js';
import { buildTestApp, frozenClock, type TestApp, testConfig } from '../helpers/app.js';
import { openForm, PERSON, submit } from '../helpers/booking.js';
import { TEST_DB } from '../helpers/database.js';
import { CENTRES, FIXTURE_CATALOGUE, FIXTURE_NOW, SESSIONS } from '../helpers/fixtures.js';
import { startReceiver } from './receiver.js';

const lyon = SESSIONS.lyonMar5Early;
const env = { WEBHOOK_ALLOW_PRIVATE: 'true' };

let t: TestApp;
let second: FastifyInstance;
let db2: Database | undefined;
let receiver: Awaited<ReturnType<typeof startReceiver>>;

beforeEach(async () => {
  receiver = await startReceiver();
  t = await buildTestApp({ catalogue: FIXTURE_CATALOGUE, clock: frozenClock(FIXTURE_NOW), env });
  // A second instance: on PostgreSQL its own pool; PGlite belongs to one process, so there it shares the handle.
  db2 = TEST_DB === 'postgres' ? await openDatabase({ kind: 'postgres', url: t.db.url as string }) : undefined;
  second = await buildApp(testConfig(env), {
    database: db2 ?? t.db.database,
    clock: frozenClock(FIXTURE_NOW),
    logger: false,
  });
  await second.ready();
});
afterEach(async () => {
  await second.close();
  await db2?.close();
  await t.close();
  await receiver.close();
});

async function book(app: FastifyInstance, email: string) {
  const form = await openForm(app, `/stages/${lyon.id}`);
  expect((await submit(app, lyon.id, form, { ...PERSON, email })).statusCode).toBe(303);
}

describe('webhooks on two instances of one database', () => {
  it('delivers each event once, whichever instance wrote it and whichever worker runs', async () => {
    const keys = await keysFor(t.app, CENTRES.lyon.id);
    const sub = await t.app.inject({
      method: 'POST',
      url: '/api/admin/webhooks',
      headers: keys.admin,
      payload: { url: receiver.url, events: ['reservation.created', 'session.changed'] },
    });
    expect(sub.statusCode).toBe(201);
    for (let i = 0; i < 6; i++) await book(i % 2 === 0 ? t.app : second, `person${i}@example.org`);
    // Both workers at once, several times over.
    await Promise.all([t.app.jobs.drain(), second.jobs.drain(), t.app.jobs.drain(), second.jobs.drain()]);
    const ids = receiver.received.map((r) => r.headers['webhook-id']);
    expect(ids).toHaveLength(12);
    expect(new Set(ids).size).toBe(12);
    // In order per session: each booking's reservation.created before its session.changed.
    expect(receiver.events().map((e) => e.type)).toEqual(
      Array.from({ length: 6 }, () => ['reservation.created', 'session.changed']).flat(),
    );
    // An all-centre subscription: ids only.
    expect(receiver.received.map((r) => r.body).join()).not.toMatch(/example\.org|person|N’Diaye|Éloïse/);
  });
});

describe('a person’s details in a delivery', () => {
  it('go to the centre’s own https subscription only', async () => {
    await book(t.app, 'eloise@example.org');
    const [r] = await t.app.database.db.select().from(reservations).where(eq(reservations.sessionId, lyon.id));
    const event = {
      eventId: 'evt_1',
      type: 'reservation.created' as const,
      subscriptionId: 's',
      occurredAt: FIXTURE_NOW,
      sessionId: lyon.id,
      centreId: CENTRES.lyon.id,
      reservationId: r?.id as string,
    };
    const body = (centreId: string | null, url: string) => eventBody(t.app.database.db, event, { centreId, url });
    const own = JSON.parse(await body(CENTRES.lyon.id, 'https://crm.centre-lyon.example/in'));
    expect(own.data.reservation.person).toEqual({
      firstName: PERSON.firstName,
      lastName: PERSON.lastName,
      email: 'eloise@example.org',
      phone: '+33612345678',
    });
    for (const [centreId, url] of [
      [null, 'https://channel.example/in'],
      [CENTRES.lyon.id, 'http://crm.centre-lyon.example/in'],
    ] as const) {
      const text = await body(centreId, url);
      expect(JSON.parse(text).data.reservation).toMatchObject({ id: r?.id, reference: r?.reference });
      expect(text).not.toMatch(/eloise|Éloïse|N’Diaye|\+336|person/);
    }
  });
});
