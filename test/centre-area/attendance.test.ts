import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grantRole } from '../../src/accounts/users.js';
import { Browser, signIn } from '../helpers/accounts.js';
import { buildTestApp, frozenClock, type TestApp } from '../helpers/app.js';
import { openForm, PERSON, submit } from '../helpers/booking.js';
import { CENTRES, FIXTURE_CATALOGUE, FIXTURE_NOW, SESSIONS } from '../helpers/fixtures.js';

/* Present or absent per half-day, from the session's first day on, for the people booked. */

const clock = frozenClock(FIXTURE_NOW);
let t: TestApp;
const id = SESSIONS.stEtienneMar5.id; // 5 and 6 March 2030, Saint-Étienne (Europe/Paris)
const path = `/espace-centre/seances/${id}/presences`;
const people: Record<string, string> = {};

beforeAll(async () => {
  t = await buildTestApp({ catalogue: FIXTURE_CATALOGUE, clock });
  await grantRole(t.app.database.db, 'equipe@centre-st-etienne.example', 'staff', CENTRES.stEtienne.id);
  await grantRole(t.app.database.db, 'gerant@centre-st-etienne.example', 'owner', CENTRES.stEtienne.id);
  await grantRole(t.app.database.db, 'gerant@centre-paris.example', 'owner', CENTRES.paris.id);
  for (const [firstName, lastName, email] of [
    ['Éloïse', 'N’Diaye-Martin', PERSON.email],
    ['Marc', 'Durand', 'marc.durand@example.org'],
    ['Zoé', 'Annulée', 'zoe@example.org'],
  ] as const) {
    const form = await openForm(t.app, `/stages/${id}`);
    expect((await submit(t.app, id, form, { ...PERSON, firstName, lastName, email })).statusCode).toBe(303);
  }
  const staff = await signIn(t.app, 'equipe@centre-st-etienne.example');
  const bookings = await staff.get(`/espace-centre/seances/${id}`);
  for (const m of bookings.body.matchAll(/id="reservation-([0-9a-f-]{36})"><h3>(\S+)/g))
    people[m[2] as string] = m[1] as string;
  // Zoé cancels through the centre: she is no longer on the roll.
  const cancelled = await staff.post(`/espace-centre/reservations/${people.Zoé}`, {
    _csrf: Browser.token(bookings.body),
    action: 'annuler',
  });
  expect(cancelled.statusCode).toBe(303);
});
afterAll(() => t.close());

async function call(browser: Browser, halfDay: string, present: string[], token?: string) {
  const page = await browser.get(path);
  return browser.post(path, { _csrf: token ?? Browser.token(page.body), demi_journee: halfDay, present });
}

/** The marks the page shows, per person and half-day. */
async function marks(browser: Browser) {
  const html = (await browser.get(path)).body;
  const out: Record<string, string[]> = {};
  for (const m of html.matchAll(/id="p(\d)-([0-9a-f-]{36})"[^>]*\/?> ?<label[^>]*>[^<]*<span class="hint">([^<]+)</g)) {
    const who = Object.keys(people).find((k) => people[k] === m[2]) as string;
    const marks = out[who] ?? [];
    marks[Number(m[1]) - 1] = m[3] as string;
    out[who] = marks;
  }
  return out;
}

describe('presence per half-day', () => {
  it('opens on the session’s first day only', async () => {
    const staff = await signIn(t.app, 'equipe@centre-st-etienne.example');
    const page = await staff.get(path);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Les présences se notent à partir du mardi 5 mars 2030.');
    expect(page.body).not.toContain('name="demi_journee"');
    const early = await call(
      staff,
      '1',
      [people.Éloïse as string],
      Browser.token((await staff.get('/espace-centre')).body),
    );
    expect(early.statusCode).toBe(409);
    expect(early.body).toContain('se notent à partir de ce jour-là');
  });

  it('records who was present and who absent, per half-day, for staff and owner; day 2 waits for day 2', async () => {
    clock.set('2030-03-05T07:45:00Z'); // 08:45 in Saint-Étienne, day 1
    const staff = await signIn(t.app, 'equipe@centre-st-etienne.example');
    const page = await staff.get(path);
    expect(page.body).toContain('N’DIAYE-MARTIN Éloïse');
    expect(page.body).toContain('DURAND Marc');
    expect(page.body).not.toContain('Zoé'); // cancelled
    const res = await call(staff, '1', [people.Éloïse as string]);
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe(`${path}?fait=1#demi-journee-1`);
    expect((await staff.get(`${path}?fait=1`)).body).toContain('Présences enregistrées · Jour 1, matin.');
    expect(await marks(staff)).toEqual({
      Éloïse: ['présent', 'non noté'],
      Marc: ['absent', 'non noté'],
    });
    // Day 2's half-days are not open on day 1.
    expect((await call(staff, '3', [people.Éloïse as string])).statusCode).toBe(409);

    const owner = await signIn(t.app, 'gerant@centre-st-etienne.example');
    // Marc arrived late: the owner corrects the morning, and takes the afternoon.
    expect((await call(owner, '1', [people.Éloïse as string, people.Marc as string])).statusCode).toBe(303);
    expect((await call(owner, '2', [people.Marc as string])).statusCode).toBe(303);
    expect(await marks(owner)).toEqual({
      Éloïse: ['présent', 'absent'],
      Marc: ['présent', 'présent'],
    });

    clock.set('2030-03-06T07:45:00Z');
    const staff2 = await signIn(t.app, 'equipe@centre-st-etienne.example');
    expect((await call(staff2, '3', [people.Éloïse as string, people.Marc as string])).statusCode).toBe(303);
    expect((await marks(staff2)).Marc).toEqual(['présent', 'présent', 'présent', 'non noté']);
  });

  it('refuses a cancelled person, an unknown half-day, another centre (404) and a forged form (403), changing nothing', async () => {
    const staff = await signIn(t.app, 'equipe@centre-st-etienne.example');
    const before = await marks(staff);
    const cancelled = await call(staff, '4', [people.Zoé as string]);
    expect(cancelled.statusCode).toBe(400);
    expect(cancelled.body).toContain('n’est pas (ou plus) inscrite');
    expect((await call(staff, '5', [])).statusCode).toBe(400);
    expect((await call(staff, '4', [people.Marc as string], 'forged-forged-forged-fo')).statusCode).toBe(403);
    const missing = await staff.post(path, { demi_journee: '4', present: [people.Marc as string] });
    expect(missing.statusCode).toBe(403);

    const paris = await signIn(t.app, 'gerant@centre-paris.example');
    expect((await paris.get(path)).statusCode).toBe(404);
    const token = Browser.token((await paris.get('/espace-centre')).body);
    expect(
      (await paris.post(path, { _csrf: token, demi_journee: '4', present: [people.Marc as string] })).statusCode,
    ).toBe(404);
    expect((await paris.get('/espace-centre/seances/00000000-0000-4000-8000-00000000dead/presences')).statusCode).toBe(
      404,
    );
    expect(await marks(staff)).toEqual(before);
  });
});
