import { eq, sql } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { centres, jobs } from '../../src/db/schema.js';
import { queueMail } from '../../src/mail/outbox.js';
import { buildTestApp, frozenClock, type TestApp } from '../helpers/app.js';
import { openForm, PERSON, privatePath, submit } from '../helpers/booking.js';
import { openTestDatabase, type TestDatabase } from '../helpers/database.js';
import { CENTRES, FIXTURE_CATALOGUE, FIXTURE_NOW, SESSIONS } from '../helpers/fixtures.js';
import { freePort } from '../helpers/ports.js';
import { startSmtpServer, type TestSmtpServer } from '../helpers/smtp.js';

const CENTRE_EMAIL = 'accueil@centre-lyon.example';

let apps: TestApp[] = [];
let smtp: TestSmtpServer | undefined;
let shared: TestDatabase | undefined;
afterEach(async () => {
  for (const t of apps) await t.close();
  apps = [];
  await smtp?.close();
  smtp = undefined;
  await shared?.dispose();
  shared = undefined;
});

const jobRows = (t: TestApp) => t.app.database.db.select().from(jobs).orderBy(jobs.id);

describe('the email outbox', () => {
  it('keeps a booking’s emails while the mail server is down and sends each once when it is back', async () => {
    const port = await freePort();
    const t = await buildTestApp({
      catalogue: FIXTURE_CATALOGUE,
      clock: frozenClock(FIXTURE_NOW),
      env: { SMTP_URL: `smtp://127.0.0.1:${port}`, MAIL_FROM: 'Stages <reservations@stages.example.test>' },
    });
    apps.push(t);
    await t.app.database.db.update(centres).set({ email: CENTRE_EMAIL }).where(eq(centres.id, CENTRES.lyon.id));

    // Nothing listens on the port: the booking is taken all the same, and answers at once.
    const form = await openForm(t.app, `/stages/${SESSIONS.lyonMar5.id}`);
    const booked = await submit(t.app, SESSIONS.lyonMar5.id, form);
    expect(booked.statusCode).toBe(303);
    const path = privatePath(booked.headers.location);
    expect(await t.app.jobs.drain()).toBe(2);

    const waiting = await jobRows(t);
    expect(waiting.map((j) => [j.kind, j.state, j.attempts, j.secret])).toEqual([
      ['mail', 'pending', 1, true],
      ['mail', 'pending', 1, false],
    ]);
    // The confirmation holds the private link; what went wrong is a class and code, never an address.
    expect(JSON.stringify(waiting[0]?.payload)).toContain(path);
    for (const j of waiting) {
      expect(j.lastError).toMatch(/^[\w.:-]+$/);
      expect(j.lastError).not.toContain('@');
      expect(j.runAt.getTime()).toBeGreaterThan(j.createdAt.getTime());
    }
    // Not due yet (backoff): another round sends nothing.
    expect(await t.app.jobs.drain()).toBe(0);

    smtp = await startSmtpServer(port);
    // One email's retry comes due; once it goes through, the other's retry is not waited for.
    await t.app.database.db
      .update(jobs)
      .set({ runAt: sql`now()` })
      .where(eq(jobs.id, waiting[1]?.id as number));
    expect(await t.app.jobs.drain()).toBe(2);
    expect(await t.app.jobs.drain()).toBe(0);
    expect(smtp.received.map((m) => m.to).sort()).toEqual([CENTRE_EMAIL, PERSON.email]);
    const confirmation = smtp.received.find((m) => m.to === PERSON.email);
    expect(confirmation?.text).toContain(`https://stages.example.test${path}`);
    expect(smtp.received.find((m) => m.to === CENTRE_EMAIL)?.text).not.toContain(path);
    // Sent rows are gone, the one holding the private link with them.
    expect(await jobRows(t)).toEqual([]);
  });

  it('without SMTP_URL queues nothing', async () => {
    const t = await buildTestApp({ catalogue: FIXTURE_CATALOGUE, clock: frozenClock(FIXTURE_NOW) });
    apps.push(t);
    const form = await openForm(t.app, `/stages/${SESSIONS.lyonMar5.id}`);
    expect((await submit(t.app, SESSIONS.lyonMar5.id, form)).statusCode).toBe(303);
    expect(await jobRows(t)).toEqual([]);
  });

  it('two instances on one database, working at once, send each email exactly once', async () => {
    smtp = await startSmtpServer();
    shared = await openTestDatabase();
    const env = { SMTP_URL: smtp.url };
    const a = await buildTestApp({ database: shared, env });
    const b = await buildTestApp({ database: shared, env });
    apps.push(a, b);
    const count = 40;
    await shared.database.db.transaction(async (tx) => {
      for (let i = 0; i < count; i++)
        await queueMail(tx, { to: `p${i}@example.org`, subject: `n${i}`, text: 'x' }, { secret: i % 2 === 0 });
    });
    const [ranA, ranB] = await Promise.all([a.app.jobs.drain(), b.app.jobs.drain()]);
    expect(ranA + ranB).toBe(count);
    const subjects = smtp.received.map((m) => m.subject).sort();
    expect(subjects).toEqual(Array.from({ length: count }, (_, i) => `n${i}`).sort());
    expect(await jobRows(a)).toEqual([]);
  });
});
