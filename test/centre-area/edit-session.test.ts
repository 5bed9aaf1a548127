import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grantRole } from '../../src/accounts/users.js';
import { Browser, signIn } from '../helpers/accounts.js';
import { keysFor } from '../helpers/admin-keys.js';
import { buildTestApp, frozenClock, type TestApp } from '../helpers/app.js';
import { CENTRES, FIXTURE_CATALOGUE, FIXTURE_NOW, SESSIONS } from '../helpers/fixtures.js';

/* A session's price, times, group size and prefecture declaration, edited in the centre's area. */

const clock = frozenClock(FIXTURE_NOW);
let t: TestApp;
let staff: Browser;
let owner: Browser;
let paris: Browser;
const id = SESSIONS.stEtienneMar5.id;
const path = `/espace-centre/seances/${id}/modifier`;

beforeAll(async () => {
  t = await buildTestApp({ catalogue: FIXTURE_CATALOGUE, clock });
  const db = t.app.database.db;
  await grantRole(db, 'equipe@centre-st-etienne.example', 'staff', CENTRES.stEtienne.id);
  await grantRole(db, 'gerant@centre-st-etienne.example', 'owner', CENTRES.stEtienne.id);
  await grantRole(db, 'gerant@centre-paris.example', 'owner', CENTRES.paris.id);
  staff = await signIn(t.app, 'equipe@centre-st-etienne.example');
  owner = await signIn(t.app, 'gerant@centre-st-etienne.example');
  paris = await signIn(t.app, 'gerant@centre-paris.example');
});
afterAll(() => t.close());

/** The session as the partner API stores it. */
async function stored() {
  const { partner } = await keysFor(t.app, CENTRES.stEtienne.id);
  return (await t.app.inject({ url: `/api/admin/sessions/${id}`, headers: partner })).json();
}

/** The form's current fields (its anti-forgery token and version), with some changed. */
async function formWith(browser: Browser, fields: Record<string, string>) {
  const page = await browser.get(path);
  expect(page.statusCode).toBe(200);
  const value = (name: string) => new RegExp(`name="${name}"[^>]*value="([^"]*)"`).exec(page.body)?.[1] ?? '';
  return {
    _csrf: Browser.token(page.body),
    version: value('version').replaceAll('&quot;', '"'),
    price: value('price'),
    startTime: value('startTime'),
    endTime: value('endTime'),
    capacity: value('capacity'),
    declaredOn: value('declaredOn'),
    ...fields,
  };
}

describe('editing a session in the centre’s area', () => {
  it('changes price (French comma), times, group size and declaration, served at once, recorded as the user’s', async () => {
    const before = await stored();
    expect(before).toMatchObject({ priceEuros: 199, capacity: 20, spotsAvailable: 12, declaredOn: null });
    const session = await staff.get(`/espace-centre/seances/${id}`);
    expect(session.body).toContain(`href="${path}"`);
    const page = await staff.get(path);
    expect(page.body).toContain('value="199"');
    expect(page.body).toContain('<label for="declaredOn">');

    const res = await staff.post(
      path,
      await formWith(staff, {
        price: '215,50',
        startTime: '08:45',
        endTime: '17:00',
        capacity: '18',
        declaredOn: '2030-02-20',
      }),
    );
    expect(res.statusCode, res.body).toBe(303);
    expect(res.headers.location).toBe(`/espace-centre/seances/${id}?fait=modifier`);
    expect((await staff.get(res.headers.location as string)).body).toContain('Stage modifié');
    // Two fewer people in the group: two fewer places left; the places taken elsewhere stay taken.
    expect(await stored()).toMatchObject({
      priceEuros: 215.5,
      startTime: '08:45',
      endTime: '17:00',
      capacity: 18,
      spotsAvailable: 10,
      declaredOn: '2030-02-20',
    });
    const served = (await t.app.inject({ url: `/api/stages/${id}` })).json();
    expect(served).toMatchObject({
      priceEuros: 215.5,
      spotsAvailable: 10,
      session: { startTime: '08:45', endTime: '17:00' },
    });

    const { partner } = await keysFor(t.app, CENTRES.stEtienne.id);
    const history = (await t.app.inject({ url: `/api/admin/history?entityId=${id}`, headers: partner })).json();
    const fields = history.data.map((h: { field: string }) => h.field);
    expect(fields).toEqual(expect.arrayContaining(['priceEuros', 'capacity', 'startTime', 'declaredOn']));
    expect(history.data[0]).toMatchObject({ actor: { kind: 'user', label: 'equipe@centre-st-etienne.example' } });
  });

  it('says what is wrong next to each field (400) and changes nothing', async () => {
    const before = await stored();
    const res = await staff.post(
      path,
      await formWith(staff, { price: 'deux cents', capacity: '25', endTime: '07:00', declaredOn: 'hier' }),
    );
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('Le stage n’a pas été modifié');
    expect(res.body).toContain('id="price-error"');
    expect(res.body).toContain('id="capacity-error"');
    expect(res.body).toContain('un groupe compte de 6 à 20 personnes');
    expect(res.body).toContain('id="endTime-error"');
    expect(res.body).toContain('id="declaredOn-error"');
    expect(res.body).toContain('value="deux cents"');
    expect(await stored()).toEqual(before);
  });

  it('refuses a declaration later than 10 days before the first day, naming the prefecture rule', async () => {
    const before = await stored();
    const res = await staff.post(path, await formWith(staff, { declaredOn: '2030-03-01' }));
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('id="declaredOn-error"');
    expect(res.body).toContain('arrêté du 26 juin 2012');
    expect(await stored()).toEqual(before);
  });

  it('refuses a form read before another change instead of overwriting it, showing the current values', async () => {
    const stale = await formWith(staff, { price: '250' });
    const { partner } = await keysFor(t.app, CENTRES.stEtienne.id);
    const minus = await t.app.inject({
      method: 'POST',
      url: `/api/admin/sessions/${id}/places`,
      headers: partner,
      payload: { change: -1 },
    });
    expect(minus.statusCode, minus.body).toBe(200);
    const before = await stored();
    const res = await staff.post(path, stale);
    expect(res.statusCode).toBe(409);
    expect(res.body).toContain('a changé entre-temps');
    expect(res.body).toContain('value="215,5"');
    expect(await stored()).toEqual(before);
    // The form it answers carries the new version: sent again, it is saved.
    const again = await staff.post(path, await formWith(staff, { price: '250' }));
    expect(again.statusCode).toBe(303);
    expect((await stored()).priceEuros).toBe(250);
  });

  it('is the owner’s as much as the staff’s (who may do what: sessionEdit)', async () => {
    const res = await owner.post(path, await formWith(owner, { price: '240' }));
    expect(res.statusCode).toBe(303);
    expect((await stored()).priceEuros).toBe(240);
  });

  it('shows and changes nothing of another centre (404, like an unknown id), and refuses a forged form (403)', async () => {
    const before = await stored();
    expect((await paris.get(path)).statusCode).toBe(404);
    expect((await paris.get('/espace-centre/seances/10000000-0000-4000-8000-0000000000ff/modifier')).statusCode).toBe(
      404,
    );
    const mine = await formWith(staff, { price: '100' });
    const token = Browser.token((await paris.get('/espace-centre')).body);
    const res = await paris.post(path, { ...mine, _csrf: token });
    expect(res.statusCode).toBe(404);
    expect(res.body).not.toContain('Modifier le stage');
    const forged = await staff.post(path, { ...mine, _csrf: 'forged-forged-forged-fo' });
    expect(forged.statusCode).toBe(403);
    expect(forged.body).toContain('n’a pas pu être vérifié');
    const { _csrf: _, ...missing } = mine;
    expect((await staff.post(path, missing)).statusCode).toBe(403);
    expect(await stored()).toEqual(before);
  });

  it('refuses a date no course can carry, and any change to a cancelled session', async () => {
    const ancient = await staff.post(path, await formWith(staff, { declaredOn: '0000-01-01' }));
    expect(ancient.statusCode).toBe(400);
    expect((await stored()).declaredOn).not.toBe('0000-01-01');
    const { partner } = await keysFor(t.app, CENTRES.stEtienne.id);
    const cancelled = await t.app.inject({
      method: 'PATCH',
      url: `/api/admin/sessions/${id}`,
      headers: { ...partner, 'content-type': 'application/json' },
      payload: { status: 'cancelled' },
    });
    expect(cancelled.statusCode).toBe(200);
    const before = await stored();
    const res = await staff.post(path, await formWith(staff, { price: '99' }));
    expect(res.statusCode).toBe(409);
    expect(res.body).toContain('Ce stage est annulé');
    expect((await stored()).priceEuros).toBe(before.priceEuros);
  });
});
