import { eq } from 'drizzle-orm';
import ICAL from 'ical.js';
import { afterEach, describe, expect, it } from 'vitest';
import { startInstant } from '../../src/core/clock.js';
import { centres, reservations } from '../../src/db/schema.js';
import { reservationIcs } from '../../src/reservations/ics.js';
import { purgePersonalData } from '../../src/reservations/repository.js';
import { buildTestApp, frozenClock, type TestApp } from '../helpers/app.js';
import { openForm, PERSON, privatePath, submit } from '../helpers/booking.js';
import { CENTRES, FIXTURE_CATALOGUE, FIXTURE_NOW, SESSIONS } from '../helpers/fixtures.js';
import { startSmtpServer, type TestSmtpServer } from '../helpers/smtp.js';

let apps: TestApp[] = [];
let smtp: TestSmtpServer | undefined;
afterEach(async () => {
  for (const t of apps) await t.close();
  apps = [];
  await smtp?.close();
  smtp = undefined;
});

async function app(env: Record<string, string> = {}): Promise<TestApp> {
  const t = await buildTestApp({ catalogue: FIXTURE_CATALOGUE, clock: frozenClock(FIXTURE_NOW), env });
  apps.push(t);
  return t;
}

/** Books a session as a person would; the private link's path. */
async function book(t: TestApp, sessionId: string): Promise<string> {
  const res = await submit(t.app, sessionId, await openForm(t.app, `/stages/${sessionId}`));
  expect(res.statusCode).toBe(303);
  return privatePath(res.headers.location);
}

interface ParsedEvent {
  uid: string;
  summary: string;
  location: string;
  description: string;
  status: string;
  tzid: string;
  start: string;
  end: string;
}

/** The file read by ical.js, its time zones registered, each event's instants in UTC. */
function parse(text: string): { calendar: ICAL.Component; events: ParsedEvent[] } {
  const calendar = new ICAL.Component(ICAL.parse(text));
  for (const zone of calendar.getAllSubcomponents('vtimezone')) ICAL.TimezoneService.register(zone);
  const events = calendar.getAllSubcomponents('vevent').map((v) => {
    const e = new ICAL.Event(v);
    return {
      uid: e.uid,
      summary: e.summary,
      location: e.location,
      description: e.description,
      status: String(v.getFirstPropertyValue('status')),
      tzid: String(v.getFirstProperty('dtstart')?.getParameter('tzid')),
      start: e.startDate.toJSDate().toISOString(),
      end: e.endDate.toJSDate().toISOString(),
    };
  });
  return { calendar, events };
}

/** Every line ends in CRLF and none is over 75 octets (RFC 5545 §3.1). */
function expectWellFormed(text: string): void {
  expect(text.endsWith('\r\n')).toBe(true);
  expect(text.replaceAll('\r\n', '')).not.toMatch(/[\r\n]/);
  for (const line of text.split('\r\n')) expect(Buffer.byteLength(line, 'utf8')).toBeLessThanOrEqual(75);
}

const utc = (day: string, time: string, zone: string) => new Date(startInstant(day, time, zone)).toISOString();

describe('a reservation’s calendar file (/reservations/{secret}/stage.ics)', () => {
  it('gives both days of a course in mainland France at the centre’s hours, Europe/Paris', async () => {
    const t = await app();
    const path = await book(t, SESSIONS.lyonMar5.id);
    const page = await t.app.inject(path);
    expect(page.body).toContain(`<a href="${path}/stage.ics" download>`);
    expect(page.body).toContain('Ajouter à mon agenda (.ics)');

    const res = await t.app.inject(`${path}/stage.ics`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/calendar; charset=utf-8');
    const [row] = await t.app.database.db.select().from(reservations);
    expect(res.headers['content-disposition']).toBe(`attachment; filename="stage-${row?.reference}.ics"`);
    expect(res.headers['cache-control']).toBe('no-store');
    expectWellFormed(res.body);

    const { calendar, events } = parse(res.body);
    expect(calendar.getFirstPropertyValue('version')).toBe('2.0');
    expect(calendar.getFirstPropertyValue('method')).toBe('PUBLISH');
    expect(String(calendar.getFirstPropertyValue('prodid'))).toContain('stages.example.test');
    expect(calendar.getAllSubcomponents('vtimezone').map((z) => z.getFirstPropertyValue('tzid'))).toEqual([
      'Europe/Paris',
    ]);
    // 5 and 6 March 2030, 08:30–16:30 in Paris (UTC+1 in winter).
    expect(events.map((e) => [e.tzid, e.start, e.end])).toEqual([
      ['Europe/Paris', '2030-03-05T07:30:00.000Z', '2030-03-05T15:30:00.000Z'],
      ['Europe/Paris', '2030-03-06T07:30:00.000Z', '2030-03-06T15:30:00.000Z'],
    ]);
    for (const e of events) {
      expect(e.summary).toBe('Stage de récupération de points — Centre Lyon');
      expect(e.location).toBe('Centre Lyon, 1 rue A, 69003 Lyon');
      expect(e.description).toContain(`Réservation ${row?.reference}`);
      expect(e.description).toContain('permis de conduire');
      expect(e.status).toBe('CONFIRMED');
    }
    // One UID a day, the same at every download.
    expect(new Set(events.map((e) => e.uid)).size).toBe(2);
    const again = parse((await t.app.inject(`${path}/stage.ics`)).body);
    expect(again.events.map((e) => e.uid)).toEqual(events.map((e) => e.uid));
    // Nothing of the person's own details.
    for (const detail of [PERSON.email, PERSON.lastName, PERSON.firstName, '06 12', '0612'])
      expect(res.body).not.toContain(detail);
  });

  it('gives an overseas course at the centre’s own hours (La Réunion, Indian/Reunion) with its phone', async () => {
    const t = await app();
    await t.app.database.db.update(centres).set({ phone: '02 62 00 00 00' }).where(eq(centres.id, CENTRES.reunion.id));
    const path = await book(t, SESSIONS.reunionMar19.id);
    const res = await t.app.inject(`${path}/stage.ics`);
    expect(res.statusCode).toBe(200);
    expectWellFormed(res.body);
    const { calendar, events } = parse(res.body);
    expect(calendar.getAllSubcomponents('vtimezone').map((z) => z.getFirstPropertyValue('tzid'))).toEqual([
      'Indian/Reunion',
    ]);
    // 19 and 20 March 2030, 08:30–16:30 in Saint-Denis (UTC+4).
    expect(events.map((e) => [e.tzid, e.start, e.end])).toEqual([
      ['Indian/Reunion', '2030-03-19T04:30:00.000Z', '2030-03-19T12:30:00.000Z'],
      ['Indian/Reunion', '2030-03-20T04:30:00.000Z', '2030-03-20T12:30:00.000Z'],
    ]);
    expect(events[0]?.location).toBe('Centre Saint-Denis, 6 rue F, 97400 Saint-Denis');
    expect(events[0]?.description).toContain('Le centre : Centre Saint-Denis, 02 62 00 00 00');
  });

  it('answers 404 to an unknown or malformed secret, and once the personal data is purged', async () => {
    const t = await app();
    expect((await t.app.inject('/reservations/AAAAAAAAAAAAAAAAAAAAAA/stage.ics')).statusCode).toBe(404);
    expect((await t.app.inject('/reservations/not-a-secret/stage.ics')).statusCode).toBe(404);
    const path = await book(t, SESSIONS.lyonMar5.id);
    expect((await t.app.inject(`${path}/stage.ics`)).statusCode).toBe(200);
    await purgePersonalData(t.app.database.db, '2030-04-01');
    const gone = await t.app.inject(`${path}/stage.ics`);
    expect(gone.statusCode).toBe(404);
    expect(gone.headers['content-type']).not.toContain('calendar');
  });

  it('marks both events cancelled once the person cancels, with the same UIDs', async () => {
    const t = await app();
    const path = await book(t, SESSIONS.lyonMar5.id);
    const before = parse((await t.app.inject(`${path}/stage.ics`)).body).events;
    const form = await openForm(t.app, path);
    const cancelled = await t.app.inject({
      method: 'POST',
      url: `${path}/annulation`,
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        cookie: form.cookie,
        'sec-fetch-site': 'same-origin',
      },
      payload: new URLSearchParams({ formToken: form.formToken }).toString(),
    });
    expect(cancelled.statusCode).toBe(303);
    const res = await t.app.inject(`${path}/stage.ics`);
    expect(res.statusCode).toBe(200);
    const after = parse(res.body).events;
    expect(after.map((e) => e.status)).toEqual(['CANCELLED', 'CANCELLED']);
    expect(after.map((e) => e.uid)).toEqual(before.map((e) => e.uid));
    expect(res.body).toContain('SEQUENCE:1');
  });

  it('is attached to the confirmation email, and not to the centre’s notice', async () => {
    smtp = await startSmtpServer();
    const t = await app({ SMTP_URL: smtp.url });
    await t.app.database.db
      .update(centres)
      .set({ email: 'accueil@centre-lyon.example' })
      .where(eq(centres.id, CENTRES.lyon.id));
    const path = await book(t, SESSIONS.lyonMar5.id);
    expect(await t.app.jobs.drain()).toBe(2);
    const confirmation = smtp.received.find((m) => m.to === PERSON.email);
    const [row] = await t.app.database.db.select().from(reservations);
    expect(confirmation?.attachments.map((a) => [a.filename, a.contentType])).toEqual([
      [`stage-${row?.reference}.ics`, 'text/calendar'],
    ]);
    const attached = confirmation?.attachments[0]?.content ?? '';
    expectWellFormed(attached);
    const { events } = parse(attached);
    expect(events.map((e) => [e.tzid, e.start])).toEqual([
      ['Europe/Paris', '2030-03-05T07:30:00.000Z'],
      ['Europe/Paris', '2030-03-06T07:30:00.000Z'],
    ]);
    // The same events as the download's.
    const downloaded = parse((await t.app.inject(`${path}/stage.ics`)).body).events;
    expect(events.map((e) => e.uid)).toEqual(downloaded.map((e) => e.uid));
    for (const detail of [PERSON.email, PERSON.lastName, path]) expect(attached).not.toContain(detail);
    expect(smtp.received.find((m) => m.to === 'accueil@centre-lyon.example')?.attachments).toEqual([]);
  });
});

describe('the calendar file’s text', () => {
  const facts = (name: string, timeZone: string, day1: string, day2: string) => ({
    reservationId: '30000000-0000-4000-8000-000000000001',
    reference: 'AB12-CD34',
    cancelled: false,
    session: { day1, day2, startTime: '08:30', endTime: '16:30' },
    centre: {
      name,
      address: '12, rue des Lilas; bât. B',
      postalCode: '97100',
      city: 'Basse-Terre',
      phone: null,
      timeZone,
    },
    stamp: new Date(FIXTURE_NOW),
    host: 'stages.example.test',
  });

  it('escapes commas, semicolons and backslashes and folds a long name at 75 octets without cutting a character', () => {
    const name =
      'Centre de formation « Sécurité routière, prévention; conduite » \\ Association départementale, Guadeloupe';
    const text = reservationIcs(facts(name, 'America/Guadeloupe', '2030-07-02', '2030-07-03'));
    expectWellFormed(text);
    expect(text).toContain('\r\n ');
    expect(text.replaceAll('\r\n ', '')).toContain(
      'SUMMARY:Stage de récupération de points — Centre de formation « Sécurité routière\\, prévention\\; conduite » \\\\ Association départementale\\, Guadeloupe',
    );
    const { events } = parse(text);
    expect(events.map((e) => e.summary)).toEqual([
      `Stage de récupération de points — ${name}`,
      `Stage de récupération de points — ${name}`,
    ]);
    expect(events[0]?.location).toBe(`${name}, 12, rue des Lilas; bât. B, 97100 Basse-Terre`);
    expect(events[0]?.description.split('\n')).toHaveLength(3);
    expect(events.map((e) => e.uid)).toEqual([
      '30000000-0000-4000-8000-000000000001-j1@stages.example.test',
      '30000000-0000-4000-8000-000000000001-j2@stages.example.test',
    ]);
    expect(events.map((e) => [e.start, e.end])).toEqual([
      ['2030-07-02T12:30:00.000Z', '2030-07-02T20:30:00.000Z'],
      ['2030-07-03T12:30:00.000Z', '2030-07-03T20:30:00.000Z'],
    ]);
  });

  it('gives the same instants as the zone database in every zone served, winter and summer', () => {
    const zones = [
      'Europe/Paris',
      'America/Guadeloupe',
      'America/Martinique',
      'America/Cayenne',
      'Indian/Reunion',
      'Indian/Mayotte',
    ];
    for (const zone of zones) {
      for (const [day1, day2] of [
        ['2030-01-15', '2030-01-16'],
        ['2030-03-30', '2030-03-31'],
        ['2030-07-15', '2030-07-16'],
        ['2030-10-26', '2030-10-27'],
      ] as const) {
        const { events } = parse(reservationIcs(facts('Centre', zone, day1, day2)));
        expect(
          events.map((e) => [e.tzid, e.start, e.end]),
          `${zone} ${day1}`,
        ).toEqual([
          [zone, utc(day1, '08:30', zone), utc(day1, '16:30', zone)],
          [zone, utc(day2, '08:30', zone), utc(day2, '16:30', zone)],
        ]);
      }
    }
  });
});
