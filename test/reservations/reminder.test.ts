import { eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { type Database, openDatabase } from '../../src/db/connect.js';
import { reservations, stageSessions } from '../../src/db/schema.js';
import { buildTestApp, frozenClock, type TestApp, testConfig } from '../helpers/app.js';
import { afterAnswer, openForm, PERSON, privatePath, submit } from '../helpers/booking.js';
import { TEST_DB } from '../helpers/database.js';
import { FIXTURE_CATALOGUE, FIXTURE_NOW, SESSIONS } from '../helpers/fixtures.js';
import { startSmtpServer, type TestSmtpServer } from '../helpers/smtp.js';

// Bourg-en-Bresse, 14 March 2030 at 08:30 Paris time (UTC+1 then): starts at 07:30Z.
const bourg = SESSIONS.bourgMar14;
const BOURG_DUE = '2030-03-12T07:30:00Z';
const BOURG_EARLY = '2030-03-12T07:29:00Z';

let smtp: TestSmtpServer;
let t: TestApp;
let clock: ReturnType<typeof frozenClock>;
const others: { app: FastifyInstance; db?: Database }[] = [];

async function start(): Promise<void> {
  smtp = await startSmtpServer();
  clock = frozenClock(FIXTURE_NOW);
  t = await buildTestApp({ catalogue: FIXTURE_CATALOGUE, clock, env: mailEnv() });
}
const mailEnv = () => ({ SMTP_URL: smtp.url, MAIL_FROM: 'Stages <reservations@stages.example.test>' });

/** Another instance on the same database, with its own worker and the same (injected) clock. */
async function instance(): Promise<FastifyInstance> {
  // On PostgreSQL its own pool; PGlite belongs to one process, so there it shares the handle.
  const db = TEST_DB === 'postgres' ? await openDatabase({ kind: 'postgres', url: t.db.url as string }) : undefined;
  const app = await buildApp(testConfig(mailEnv()), { database: db ?? t.db.database, clock, logger: false });
  await app.ready();
  others.push({ app, ...(db ? { db } : {}) });
  return app;
}

afterEach(async () => {
  for (const o of others.splice(0)) {
    await o.app.close();
    await o.db?.close();
  }
  await t.close();
  await smtp.close();
});

async function book(app: FastifyInstance, sessionId: string, fields: Record<string, string> = PERSON) {
  const form = await openForm(app, `/stages/${sessionId}`);
  const res = await submit(app, sessionId, form, fields);
  expect(res.statusCode).toBe(303);
  return { path: privatePath(res.headers.location), cookie: afterAnswer(form, res).cookie };
}

const reminders = () => smtp.received.filter((m) => m.subject.startsWith('Rappel'));

describe('the reminder two days before the course', () => {
  it('is sent once, at two days before the start, across two instances and a restart', async () => {
    await start();
    await book(t.app, bourg.id);
    await t.app.jobs.drain();
    expect(smtp.received.map((m) => m.subject.startsWith('Réservation'))).toContain(true);
    expect(reminders()).toEqual([]);

    const second = await instance();
    clock.set(BOURG_EARLY);
    await Promise.all([t.app.jobs.drain(), second.jobs.drain()]);
    expect(reminders()).toEqual([]);

    // An instance restarts (closed, built again on the same database) before the time comes.
    const closing = others.pop();
    await second.close();
    await closing?.db?.close();
    const restarted = await instance();
    clock.set(BOURG_DUE);
    await Promise.all([t.app.jobs.drain(), restarted.jobs.drain(), t.app.jobs.drain(), restarted.jobs.drain()]);
    expect(reminders()).toHaveLength(1);
    const mail = reminders()[0];
    expect(mail?.to).toBe(PERSON.email);
    expect(mail?.subject).toContain('14 mars 2030');
    expect(mail?.text).toMatch(/jeudi 14 mars 2030 et vendredi 15 mars 2030, de 8\sh\s30/);
    expect(mail?.text).toContain('Bourg');
    expect(mail?.text).toContain('permis de conduire et une pièce d’identité');
    expect(mail?.text).not.toContain('48N');

    // Later, on every instance, nothing more.
    clock.set('2030-03-13T12:00:00Z');
    await Promise.all([t.app.jobs.drain(), restarted.jobs.drain()]);
    expect(reminders()).toHaveLength(1);
  });

  it('gives a probationary course’s four-month deadline, at the overseas centre’s time', async () => {
    await start();
    // La Réunion, 19 March 2030 at 08:30 local (UTC+4): starts at 04:30Z, reminder at 04:30Z on the 17th.
    await book(t.app, SESSIONS.reunionMar19.id, { ...PERSON, reason: 'probationary' });
    clock.set('2030-03-17T04:29:00Z');
    await t.app.jobs.drain();
    expect(reminders()).toEqual([]);
    clock.set('2030-03-17T04:30:00Z');
    await t.app.jobs.drain();
    expect(reminders()).toHaveLength(1);
    const text = reminders()[0]?.text ?? '';
    expect(text).toContain('la lettre 48N');
    expect(text).toContain('dans les quatre mois qui suivent la réception de la lettre 48N');
  });

  it('is not sent for a cancelled reservation', async () => {
    await start();
    const { path, cookie } = await book(t.app, bourg.id);
    const cancelForm = await openForm(t.app, path, cookie);
    const cancel = await t.app.inject({
      method: 'POST',
      url: `${path}/annulation`,
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        cookie,
        origin: 'https://stages.example.test',
      },
      payload: `formToken=${cancelForm.formToken}`,
    });
    expect(cancel.statusCode).toBe(303);
    clock.set(BOURG_DUE);
    await t.app.jobs.drain();
    expect(reminders()).toEqual([]);
    // The job completed: a later round has nothing left to run.
    expect(await t.app.jobs.drain()).toBe(0);
  });

  it('is not sent when the session was cancelled or rescheduled, the reservation moved or its data purged', async () => {
    await start();
    await book(t.app, bourg.id, { ...PERSON, email: 'a@example.org' });
    await book(t.app, bourg.id, { ...PERSON, email: 'b@example.org' });
    await book(t.app, SESSIONS.ajaccioMar13.id, { ...PERSON, email: 'c@example.org' });
    const db = t.app.database.db;
    await db
      .update(reservations)
      .set({ sessionId: SESSIONS.lyonApr2Full.id })
      .where(eq(reservations.emailKey, 'a@example.org'));
    await db
      .update(reservations)
      .set({ email: null, purgedAt: new Date() })
      .where(eq(reservations.emailKey, 'b@example.org'));
    await db.update(stageSessions).set({ status: 'cancelled' }).where(eq(stageSessions.id, SESSIONS.ajaccioMar13.id));
    // Another booking's session is rescheduled a week later: the reminder queued for the old date sends nothing.
    await book(t.app, SESSIONS.parisMar12.id, { ...PERSON, email: 'd@example.org' });
    await db
      .update(stageSessions)
      .set({ day1: '2030-03-19', day2: '2030-03-20' })
      .where(eq(stageSessions.id, SESSIONS.parisMar12.id));
    clock.set('2030-03-13T00:00:00Z');
    await t.app.jobs.drain();
    expect(reminders()).toEqual([]);
    expect(await t.app.jobs.drain()).toBe(0);
  });

  it('is not sent once the course has begun (the workers were stopped past its time)', async () => {
    await start();
    await book(t.app, bourg.id);
    await t.app.jobs.drain();
    clock.set('2030-03-14T08:00:00Z');
    await t.app.jobs.drain();
    expect(reminders()).toEqual([]);
    expect(await t.app.jobs.drain()).toBe(0);
  });

  it('is not sent for a booking made one day before', async () => {
    await start();
    // FIXTURE_NOW is 4 March 2030, 09:00Z; this session starts on the 5th.
    await book(t.app, SESSIONS.lyonMar5.id);
    await t.app.jobs.drain();
    const confirmations = smtp.received.length;
    expect(confirmations).toBeGreaterThan(0);
    clock.set('2030-03-05T06:00:00Z');
    expect(await t.app.jobs.drain()).toBe(0);
    expect(reminders()).toEqual([]);
  });
});
