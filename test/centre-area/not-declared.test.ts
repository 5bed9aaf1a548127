import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grantRole } from '../../src/accounts/users.js';
import { Browser, signIn } from '../helpers/accounts.js';
import { keysFor, newSession } from '../helpers/admin-keys.js';
import { buildTestApp, frozenClock, type TestApp } from '../helpers/app.js';
import { CENTRES, FIXTURE_CATALOGUE, FIXTURE_NOW, SESSIONS } from '../helpers/fixtures.js';

/* The dashboard: sessions not yet declared to the prefecture 12 days before they start stand out. */

const clock = frozenClock(FIXTURE_NOW); // Monday 4 March 2030
let t: TestApp;
let staff: Browser;
const IN_11_DAYS = '10000000-0000-4000-8000-0000000000a1';
const IN_14_DAYS = '10000000-0000-4000-8000-0000000000a2';

beforeAll(async () => {
  t = await buildTestApp({ catalogue: FIXTURE_CATALOGUE, clock });
  await grantRole(t.app.database.db, 'equipe@centre-st-etienne.example', 'staff', CENTRES.stEtienne.id);
  await grantRole(t.app.database.db, 'equipe@centre-st-etienne.example', 'staff', CENTRES.reunion.id);
  staff = await signIn(t.app, 'equipe@centre-st-etienne.example');
  const { partner } = await keysFor(t.app, CENTRES.stEtienne.id);
  for (const [id, day1] of [
    [IN_11_DAYS, '2030-03-15'],
    [IN_14_DAYS, '2030-03-18'],
  ] as const) {
    const res = await t.app.inject({
      method: 'PUT',
      url: `/api/admin/sessions/${id}`,
      headers: partner,
      payload: newSession(CENTRES.stEtienne.id, { day1, courseNumber: `R2304200002-${day1}` }),
    });
    expect(res.statusCode, res.body).toBe(201);
  }
});
afterAll(() => t.close());

/** The dashboard's entry of one session. */
async function entry(id: string) {
  const page = await staff.get('/espace-centre');
  expect(page.statusCode).toBe(200);
  const match = new RegExp(`<li id="seance-${id}"[^>]*>(.*?)</li>`, 's').exec(page.body);
  expect(match, `session ${id} on the dashboard`).not.toBeNull();
  return match?.[0] as string;
}

const FLAG = 'Pas encore déclaré en préfecture';

describe('sessions not yet declared to the prefecture', () => {
  it('stand out with words, 12 days or less before their start, not further away', async () => {
    const tomorrow = await entry(SESSIONS.stEtienneMar5.id);
    expect(tomorrow).toContain(FLAG);
    expect(tomorrow).toContain('commence dans 1 jour ');
    const eleven = await entry(IN_11_DAYS);
    expect(eleven).toContain(FLAG);
    expect(eleven).toContain('dans 11 jours');
    expect(eleven).toContain('<p class="notice">Pas encore déclaré');
    expect(eleven).toContain(`href="/espace-centre/seances/${IN_11_DAYS}/modifier"`);
    expect(await entry(IN_14_DAYS)).not.toContain(FLAG);
  });

  it('no longer stand out once their declaration day is given', async () => {
    const page = await staff.get(`/espace-centre/seances/${IN_11_DAYS}/modifier`);
    const value = (name: string) =>
      (new RegExp(`name="${name}"[^>]*value="([^"]*)"`).exec(page.body)?.[1] ?? '').replaceAll('&quot;', '"');
    const fields = ['version', 'trainersVersion', 'price', 'startTime', 'endTime', 'capacity'];
    const res = await staff.post(`/espace-centre/seances/${IN_11_DAYS}/modifier`, {
      _csrf: Browser.token(page.body),
      ...Object.fromEntries(fields.map((f) => [f, value(f)])),
      declaredOn: '2030-03-01',
    });
    expect(res.statusCode, res.body).toBe(303);
    expect(await entry(IN_11_DAYS)).not.toContain(FLAG);
  });

  it('count the days from the centre’s own today (Réunion is a day ahead of Paris in the evening)', async () => {
    // Wednesday 6 March, 22:00 in Paris: Thursday 7 March, 01:00 in Réunion; its session starts on 19 March.
    // (Signed in again: the morning's sign-in has expired two days later.)
    clock.set('2030-03-06T21:00:00Z');
    try {
      staff = await signIn(t.app, 'equipe@centre-st-etienne.example');
      const reunion = await entry(SESSIONS.reunionMar19.id);
      expect(reunion).toContain(FLAG);
      expect(reunion).toContain('dans 12 jours');
      // Paris's today is still 6 March: its 18 March session is 12 days away.
      expect(await entry(IN_14_DAYS)).toContain('dans 12 jours');
      // At noon the same day Réunion is on 6 March too: 13 days before 19 March, not yet.
      clock.set('2030-03-06T08:00:00Z');
      expect(await entry(SESSIONS.reunionMar19.id)).not.toContain(FLAG);
    } finally {
      clock.set(FIXTURE_NOW);
    }
  });
});
