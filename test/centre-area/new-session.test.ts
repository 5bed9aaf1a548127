import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grantRole } from '../../src/accounts/users.js';
import { Browser, signIn } from '../helpers/accounts.js';
import { buildTestApp, frozenClock, type TestApp } from '../helpers/app.js';
import { CENTRES, FIXTURE_CATALOGUE, FIXTURE_NOW } from '../helpers/fixtures.js';

/*
 * A new session from the centre's area, alone or on several dates: the API's checks on every date
 * (Sundays, public holidays, the prefecture's 10 days), all or nothing, said in French, and served
 * by every instance at once.
 */

const clock = frozenClock(FIXTURE_NOW); // Monday 4 March 2030
let t: TestApp;
let other: TestApp;
let browser: Browser;
beforeAll(async () => {
  t = await buildTestApp({ catalogue: FIXTURE_CATALOGUE, clock });
  other = await buildTestApp({ database: t.db, clock });
  await grantRole(t.app.database.db, 'equipe@centre-lyon.example', 'staff', CENTRES.lyon.id);
  browser = await signIn(t.app, 'equipe@centre-lyon.example');
});
afterAll(async () => {
  await other.close();
  await t.close();
});

const FIELDS = {
  centreId: CENTRES.lyon.id,
  repeat: '1',
  every: '2',
  startTime: '08:30',
  endTime: '16:30',
  price: '245,50',
  capacity: '18',
  spots: '',
  declaredOn: '',
};

async function create(fields: Record<string, string>, token?: string) {
  const form = await browser.get('/espace-centre/seances/nouvelle');
  expect(form.statusCode).toBe(200);
  return browser.post('/espace-centre/seances/nouvelle', {
    ...Browser.createForm(form.body),
    ...(token ? { _csrf: token } : {}),
    ...FIELDS,
    ...fields,
  });
}

async function servedOn(app: TestApp, day1: string) {
  await app.app.catalogue.refresh();
  const list = (await app.app.inject('/api/stages?dept=69&limit=100')).json().data as {
    day1: string;
    priceEuros: number;
    spotsAvailable: number;
  }[];
  return list.filter((s) => s.day1 === day1 && s.priceEuros === 245.5);
}

describe('a new session from the centre’s area', () => {
  it('creates the same session every two weeks, served by another instance', async () => {
    const res = await create({ day1: '2030-03-19', repeat: '3' });
    expect(res.statusCode, res.body).toBe(303);
    expect(res.headers.location).toBe('/espace-centre?cree=3');
    expect((await browser.get('/espace-centre?cree=3')).body).toContain('3 stages créés');
    for (const day of ['2030-03-19', '2030-04-02', '2030-04-16']) {
      const served = await servedOn(other, day);
      expect(served, day).toHaveLength(1);
      expect(served[0]?.spotsAvailable).toBe(18);
    }
  });

  it('refuses a session starting within 10 days unless it was declared to the prefecture 10 days before', async () => {
    const undeclared = await create({ day1: '2030-03-12' });
    expect(undeclared.statusCode).toBe(422);
    expect(undeclared.body).toContain('Stage du mardi 12 mars 2030 : déclaration en préfecture');
    expect(await servedOn(t, '2030-03-12')).toHaveLength(0);
    const declared = await create({ day1: '2030-03-12', declaredOn: '2030-03-01' });
    expect(declared.statusCode, declared.body).toBe(303);
    expect(await servedOn(t, '2030-03-12')).toHaveLength(1);
  });

  it('creates none of the dates when one is refused, and says which', async () => {
    // 23 April is fine; two weeks later, its second day is 8 May, a public holiday.
    const res = await create({ day1: '2030-04-23', repeat: '2' });
    expect(res.statusCode).toBe(422);
    expect(res.body).toContain('Stage du mardi 7 mai 2030 : le second jour tombe un dimanche ou un jour férié');
    expect(await servedOn(t, '2030-04-23')).toHaveLength(0);
  });

  it('names each field that cannot be read, and a date already past', async () => {
    const res = await create({ day1: '2030-03-01', price: 'gratuit', capacity: '', startTime: '8h' });
    expect(res.statusCode).toBe(400);
    for (const text of ['choisissez une date à venir', 'Prix :', 'Taille du groupe :', 'Début : une heure'])
      expect(res.body).toContain(text);
    // Dates no calendar has, or that no course can carry: said next to their field, never a 500.
    for (const day1 of ['2030-13-45', '2030-02-30', '9999-12-31', '0000-01-01']) {
      const impossible = await create({ day1 });
      expect(impossible.statusCode, day1).toBe(400);
      expect(impossible.body).toContain('Premier jour : indiquez une date.');
    }
    const ancient = await create({ day1: '2030-03-19', declaredOn: '0000-01-01' });
    expect(ancient.statusCode).toBe(400);
    expect(ancient.body).toContain('Déclaration en préfecture : indiquez une date, ou rien.');
    const sunday = await create({ day1: '2030-03-17', declaredOn: '2030-03-01' });
    expect(sunday.statusCode).toBe(422);
    expect(sunday.body).toContain('jamais un dimanche');
  });

  it('refuses another centre and a forged form', async () => {
    expect((await create({ day1: '2030-03-19', centreId: CENTRES.paris.id })).statusCode).toBe(404);
    expect((await create({ day1: '2030-05-21' }, 'forged-forged-forged-fo')).statusCode).toBe(403);
    expect(await servedOn(t, '2030-05-21')).toHaveLength(0);
  });
});
