import { eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildApp } from '../../src/app.js';
import { type Database, openDatabase } from '../../src/db/connect.js';
import { reservations, stageSessions } from '../../src/db/schema.js';
import { Browser, signIn } from '../helpers/accounts.js';
import { keysFor } from '../helpers/admin-keys.js';
import { buildTestApp, frozenClock, type TestApp, testConfig } from '../helpers/app.js';
import { openForm, PERSON, placesLeft, privatePath, submit } from '../helpers/booking.js';
import { TEST_DB } from '../helpers/database.js';
import { FIXTURE_NOW } from '../helpers/fixtures.js';
import { startSmtpServer, type TestSmtpServer } from '../helpers/smtp.js';
import { type Received, startReceiver } from '../webhooks/receiver.js';
import { CHANGE_CATALOGUE, CHANGE_CENTRES, CHANGE_SESSIONS } from './change-fixtures.js';

/*
 * Changing a reservation's date from the people's area: the sessions offered (same centre first,
 * then nearby), the move of one place on both sessions in one write, the emails, the webhook, the
 * second instance, and every refusal (cut-off, full, another person's id, forged, repeated).
 */

const S = CHANGE_SESSIONS;
const OTHER = 'marc.durand@example.org';
const clock = frozenClock(FIXTURE_NOW);
let t: TestApp;
let second: FastifyInstance;
let secondDb: Database | undefined;
let smtp: TestSmtpServer;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let secret = '';
let myId = '';
let othersId = '';

const changeLinks = (html: string) =>
  [...html.matchAll(/href="\/mon-espace\/reservations\/([0-9a-f-]{36})\/changement"/g)].map((m) => m[1] as string);
const offered = (html: string) => [...html.matchAll(/name="sessionId" value="([0-9a-f-]{36})"/g)].map((m) => m[1]);
const row = async (id: string) =>
  (await t.app.database.db.select().from(reservations).where(eq(reservations.id, id)))[0];
const held = async (sessionId: string) =>
  (
    await t.app.database.db
      .select({ spots: stageSessions.spotsAvailable, held: stageSessions.heldHere })
      .from(stageSessions)
      .where(eq(stageSessions.id, sessionId))
  )[0];

async function book(sessionId: string, fields: Record<string, string> = {}) {
  const form = await openForm(t.app, `/stages/${sessionId}`);
  const res = await submit(t.app, sessionId, form, { ...PERSON, ...fields });
  expect(res.statusCode).toBe(303);
  return privatePath(res.headers.location);
}

/** Opens the change page of `id` and posts its form for `sessionId` (the page's own token and id). */
async function change(me: Browser, id: string, sessionId: string) {
  const page = await me.get(`/mon-espace/reservations/${id}/changement`);
  expect(page.statusCode).toBe(200);
  const form = { ...Browser.createForm(page.body), sessionId };
  return { form, res: await me.post(`/mon-espace/reservations/${id}/changement`, form) };
}

function verify(r: Received): { type: string; data: Record<string, unknown> } {
  // standardwebhooks refuses timestamps 5 minutes away from its own now: the fixtures' clock is in 2030.
  vi.useFakeTimers({ toFake: ['Date'], now: clock.now() });
  try {
    return new Webhook(secret).verify(r.body, {
      'webhook-id': String(r.headers['webhook-id']),
      'webhook-timestamp': String(r.headers['webhook-timestamp']),
      'webhook-signature': String(r.headers['webhook-signature']),
    }) as { type: string; data: Record<string, unknown> };
  } finally {
    vi.useRealTimers();
  }
}

beforeAll(async () => {
  smtp = await startSmtpServer();
  receiver = await startReceiver();
  const env = {
    SMTP_URL: smtp.url,
    MAIL_FROM: 'Stages <reservations@stages.example.test>',
    WEBHOOK_ALLOW_PRIVATE: 'true',
  };
  t = await buildTestApp({ catalogue: CHANGE_CATALOGUE, clock, env });
  // A second instance on the same database: on PostgreSQL its own pool and LISTEN connection.
  secondDb = TEST_DB === 'postgres' ? await openDatabase({ kind: 'postgres', url: t.db.url as string }) : undefined;
  second = await buildApp(testConfig(env), { database: secondDb ?? t.db.database, clock, logger: false });
  await second.ready();
  const keys = await keysFor(t.app, CHANGE_CENTRES.lyon.id);
  const sub = await t.app.inject({
    method: 'POST',
    url: '/api/admin/webhooks',
    headers: keys.admin,
    payload: {
      url: receiver.url,
      events: ['reservation.created', 'reservation.cancelled', 'reservation.changed'],
    },
  });
  expect(sub.statusCode).toBe(201);
  secret = (sub.json() as { secret: string }).secret;

  await book(S.lyonMar20.id);
  await book(S.lyonMar20.id, { firstName: 'Marc', email: OTHER });
  // The bookings' mails and webhooks, out of the way.
  await t.app.jobs.drain();
  smtp.received.length = 0;
  receiver.received.length = 0;
  const me = await signIn(t.app, PERSON.email);
  [myId = ''] = changeLinks((await me.get('/mon-espace')).body);
  const marc = await signIn(t.app, OTHER);
  [othersId = ''] = changeLinks((await marc.get('/mon-espace')).body);
  expect(myId).not.toBe('');
  expect(othersId).not.toBe(myId);
});
afterAll(async () => {
  await second?.close();
  await secondDb?.close();
  await t?.close();
  await smtp?.close();
  await receiver?.close();
});

describe('changing a reservation’s date', () => {
  it('offers the sessions with places, the same centre’s first, then nearby ones with their distance', async () => {
    const me = await signIn(t.app, PERSON.email);
    const page = await me.get(`/mon-espace/reservations/${myId}/changement`);
    expect(page.statusCode).toBe(200);
    expect(page.headers['cache-control']).toBe('no-store');
    // Same centre first, then Villeurbanne; never the current, a full one, or a centre 400 km away.
    expect(offered(page.body)).toEqual([S.lyonApr3.id, S.villeurbanneMar27.id]);
    expect(page.body).toContain('Au même centre');
    expect(page.body).toMatch(/<dd>210\s€<\/dd>/);
    expect(page.body).toContain('plus que 4 places');
    expect(page.body).toMatch(/Centre Villeurbanne, [^<]*\(à 2,8 km\)/);
    expect(page.body).toContain('le paiement se règle avec chaque centre');
    expect(page.body).not.toContain('Centre Paris Bastille');
  });

  it('refuses another person’s reservation (404) and a forged form (403), changing nothing', async () => {
    const me = await signIn(t.app, PERSON.email);
    expect((await me.get(`/mon-espace/reservations/${othersId}/changement`)).statusCode).toBe(404);
    expect((await me.get('/mon-espace/reservations/nope/changement')).statusCode).toBe(404);
    const page = await me.get(`/mon-espace/reservations/${myId}/changement`);
    const form = { ...Browser.createForm(page.body), sessionId: S.lyonApr3.id };
    const foreign = await me.post(`/mon-espace/reservations/${othersId}/changement`, form);
    expect(foreign.statusCode).toBe(404);
    expect(foreign.body).not.toContain(OTHER);
    const forged = await me.post(`/mon-espace/reservations/${myId}/changement`, { ...form, _csrf: 'forged' });
    expect(forged.statusCode).toBe(403);
    expect(forged.body).toContain('rien n’a été modifié');
    const noId = await me.post(`/mon-espace/reservations/${myId}/changement`, { ...form, _submission: '' });
    expect(noId.statusCode).toBe(400);
    expect(await placesLeft(t.app, S.lyonApr3.id)).toBe(S.lyonApr3.spotsAvailable);
    expect((await row(myId))?.sessionId).toBe(S.lyonMar20.id);
    expect((await row(othersId))?.sessionId).toBe(S.lyonMar20.id);
  });

  it('moves the reservation in place at the same centre: one place each way, pending, seen by a second instance', async () => {
    const me = await signIn(t.app, PERSON.email);
    const before = await row(myId);
    // The centre had confirmed it: the new date waits for its confirmation again.
    await t.app.database.db
      .update(reservations)
      .set({ status: 'confirmed', confirmedAt: new Date() })
      .where(eq(reservations.id, myId));
    const { res } = await change(me, myId, S.lyonApr3.id);
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/mon-espace?change=1');
    const r = await row(myId);
    expect(r?.reference).toBe(before?.reference);
    expect(r?.sessionId).toBe(S.lyonApr3.id);
    expect(r?.status).toBe('pending');
    expect(r?.changedFromSessionId).toBe(S.lyonMar20.id);
    // One place given back on the session left (two were booked), one taken on the new one.
    expect(await held(S.lyonMar20.id)).toEqual({ spots: S.lyonMar20.spotsAvailable - 1, held: 1 });
    expect(await held(S.lyonApr3.id)).toEqual({ spots: S.lyonApr3.spotsAvailable - 1, held: 1 });
    // The second instance hears of both within a second (its change notification path).
    for (const [id, places] of [
      [S.lyonMar20.id, S.lyonMar20.spotsAvailable - 1],
      [S.lyonApr3.id, S.lyonApr3.spotsAvailable - 1],
    ] as const)
      await expect.poll(() => placesLeft(second, id), { timeout: 1000, interval: 50 }).toBe(places);

    const list = await me.get('/mon-espace?change=1');
    expect(list.body).toContain('Date changée');
    expect(list.body).toContain('Stage des mercredi 3 avril 2030');
    expect(list.body).not.toContain('20 mars 2030');
  });

  it('emails the person (the change, the private link, the calendar file) and the centre, and tells the webhook', async () => {
    await t.app.jobs.drain();
    const reference = (await row(myId))?.reference as string;
    const toPerson = smtp.received.filter((m) => m.to === PERSON.email);
    expect(toPerson).toHaveLength(1);
    expect(toPerson[0]?.subject).toBe(`Changement de date ${reference} : stage du mercredi 3 avril 2030 à Lyon`);
    expect(toPerson[0]?.text).toContain('votre place au stage du mercredi 20 mars 2030');
    expect(toPerson[0]?.text).toMatch(/https:\/\/stages\.example\.test\/reservations\/[A-Za-z0-9_-]{22}/);
    expect(toPerson[0]?.attachments[0]?.content).toContain('DTSTART;TZID=Europe/Paris:20300403T083000');
    const toCentre = smtp.received.filter((m) => m.to === CHANGE_CENTRES.lyon.email);
    expect(toCentre).toHaveLength(1);
    expect(toCentre[0]?.subject).toBe(`Changement de date ${reference} : stage du mercredi 3 avril 2030`);
    expect(toCentre[0]?.text).toContain('quitte votre stage du mercredi 20 mars 2030');

    const events = receiver.received.map(verify).filter((e) => e.type.startsWith('reservation.'));
    expect(events).toEqual([
      {
        type: 'reservation.changed',
        timestamp: expect.any(String),
        data: expect.objectContaining({
          sessionId: S.lyonApr3.id,
          change: { fromSessionId: S.lyonMar20.id, toSessionId: S.lyonApr3.id },
          reservation: expect.objectContaining({ id: myId, reference, status: 'pending' }),
        }),
      },
    ]);
  });

  it('does the move once when the same form is sent again', async () => {
    const me = await signIn(t.app, PERSON.email);
    // The earlier form, sent again (its one-time id spent): nothing moves.
    const page = await me.get(`/mon-espace/reservations/${myId}/changement`);
    const form = { ...Browser.createForm(page.body), sessionId: S.villeurbanneMar27.id };
    const first = await me.post(`/mon-espace/reservations/${myId}/changement`, form);
    expect(first.statusCode).toBe(303);
    const again = await me.post(`/mon-espace/reservations/${myId}/changement`, form);
    expect(again.statusCode).toBe(303);
    expect(again.headers.location).toBe('/mon-espace?change=deja');
    expect(await placesLeft(t.app, S.villeurbanneMar27.id)).toBe(S.villeurbanneMar27.spotsAvailable - 1);
    expect(await placesLeft(t.app, S.lyonApr3.id)).toBe(S.lyonApr3.spotsAvailable);
  });

  it('to another centre: cancelled at the first, a new booking at the second, both centres told', async () => {
    const old = await row(myId);
    expect(old?.status).toBe('cancelled');
    expect(old?.cancelledBy).toBe('person');
    const mine = await t.app.database.db.select().from(reservations).where(eq(reservations.emailKey, PERSON.email));
    const created = mine.find((r) => r.sessionId === S.villeurbanneMar27.id);
    expect(created?.status).toBe('pending');
    expect(created?.centreId).toBe(CHANGE_CENTRES.villeurbanne.id);
    expect(created?.reference).not.toBe(old?.reference);
    expect(await held(S.lyonApr3.id)).toEqual({ spots: S.lyonApr3.spotsAvailable, held: 0 });

    smtp.received.length = 0;
    receiver.received.length = 0;
    await t.app.jobs.drain();
    const subjects = smtp.received.map((m) => `${m.to} ${m.subject}`).sort();
    expect(subjects).toEqual(
      [
        `${CHANGE_CENTRES.lyon.email} Réservation ${old?.reference} annulée (changement de date) : stage du mercredi 3 avril 2030`,
        `${CHANGE_CENTRES.villeurbanne.email} Nouvelle réservation ${created?.reference} : stage du mercredi 27 mars 2030`,
        `${PERSON.email} Changement de date ${created?.reference} : stage du mercredi 27 mars 2030 à Villeurbanne`,
      ].sort(),
    );
    expect(smtp.received.find((m) => m.to === PERSON.email)?.text).toContain('Le paiement se règle avec chaque centre');
    const events = receiver.received.map(verify).filter((e) => e.type.startsWith('reservation.'));
    const change = { fromSessionId: S.lyonApr3.id, toSessionId: S.villeurbanneMar27.id };
    expect(events.map((e) => [e.type, (e.data.reservation as { id: string }).id, e.data.change])).toEqual(
      expect.arrayContaining([
        ['reservation.changed', myId, change],
        ['reservation.changed', created?.id, change],
      ]),
    );
    expect(events).toHaveLength(2);
  });

  it('refuses a session that is full now, changing nothing', async () => {
    const marcs = await row(othersId);
    const marc = await signIn(t.app, OTHER);
    const page = await marc.get(`/mon-espace/reservations/${othersId}/changement`);
    // The page showed places; they are gone before the form is sent.
    await t.app.database.db.update(stageSessions).set({ spotsAvailable: 0 }).where(eq(stageSessions.id, S.lyonApr3.id));
    const res = await marc.post(`/mon-espace/reservations/${othersId}/changement`, {
      ...Browser.createForm(page.body),
      sessionId: S.lyonApr3.id,
    });
    expect(res.statusCode).toBe(409);
    expect(res.body).toContain('Ce stage vient d’être complet : rien n’a changé');
    expect(await row(othersId)).toEqual(marcs);
    expect(await held(S.lyonApr3.id)).toEqual({ spots: 0, held: 0 });
    expect(await held(S.lyonMar20.id)).toEqual({ spots: S.lyonMar20.spotsAvailable - 1, held: 1 });
  });

  it('sends no reminder for the sessions left, and one for the session taken', async () => {
    const reminders = () => smtp.received.filter((m) => m.subject.startsWith('Rappel'));
    smtp.received.length = 0;
    try {
      // Two days before 20 March (the first session, left): Marc, still booked there, only.
      clock.set('2030-03-18T07:30:00Z');
      await t.app.jobs.drain();
      expect(reminders().map((m) => m.to)).toEqual([OTHER]);
      // Two days before 27 March in Villeurbanne: the session taken.
      clock.set('2030-03-25T07:30:00Z');
      await t.app.jobs.drain();
      // Two days before 3 April (summer time: 08:30 is 06:30Z), the second session left: nothing.
      clock.set('2030-04-01T06:30:00Z');
      await t.app.jobs.drain();
      const mine = reminders().filter((m) => m.to === PERSON.email);
      expect(mine).toHaveLength(1);
      expect(mine[0]?.subject).toContain('mercredi 27 mars 2030 à Villeurbanne');
    } finally {
      clock.set(FIXTURE_NOW);
    }
  });

  it('is refused within the cut-off before the booked course, with a clear message', async () => {
    clock.set('2030-03-13T07:31:00Z'); // 6 days 23 hours 59 minutes before 20 March 08:30 in Lyon
    try {
      const marc = await signIn(t.app, OTHER);
      const list = await marc.get('/mon-espace');
      expect(changeLinks(list.body)).toEqual([]);
      expect(list.body).toContain('La date ne peut plus être changée ici');
      const page = await marc.get(`/mon-espace/reservations/${othersId}/changement`);
      expect(page.statusCode).toBe(200);
      expect(offered(page.body)).toEqual([]);
      expect(page.body).toContain('Contactez le centre');
      const res = await marc.post(`/mon-espace/reservations/${othersId}/changement`, {
        _csrf: Browser.token(list.body),
        _submission: 'AAAAAAAAAAAAAAAAAAAAAA',
        sessionId: S.villeurbanneMar27.id,
      });
      expect(res.statusCode).toBe(409);
      expect(res.body).toContain('Le stage commence dans moins de 7 jours');
      expect((await row(othersId))?.sessionId).toBe(S.lyonMar20.id);
      // A minute earlier it still could.
      clock.set('2030-03-13T07:29:00Z');
      expect(changeLinks((await marc.get('/mon-espace')).body)).toEqual([othersId]);
    } finally {
      clock.set(FIXTURE_NOW);
    }
  });
});
