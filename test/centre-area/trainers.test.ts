import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grantRole } from '../../src/accounts/users.js';
import { catalogueState } from '../../src/db/schema.js';
import { Browser, signIn } from '../helpers/accounts.js';
import { keysFor } from '../helpers/admin-keys.js';
import { buildTestApp, frozenClock, type TestApp } from '../helpers/app.js';
import { CENTRES, FIXTURE_CATALOGUE, FIXTURE_NOW, SESSIONS } from '../helpers/fixtures.js';

/* A session's two trainers: recorded in the centre's area for the prefecture's declaration, never published. */

const clock = frozenClock(FIXTURE_NOW);
let t: TestApp;
let staff: Browser;
const id = SESSIONS.stEtienneMar5.id;
const edit = `/espace-centre/seances/${id}/modifier`;
const PSY = 'Apolline Vasseur-Keriven';
const BAFM = 'Tiburce Haddad-Lemoine';

beforeAll(async () => {
  t = await buildTestApp({ catalogue: FIXTURE_CATALOGUE, clock });
  await grantRole(t.app.database.db, 'equipe@centre-st-etienne.example', 'staff', CENTRES.stEtienne.id);
  await grantRole(t.app.database.db, 'gerant@centre-paris.example', 'owner', CENTRES.paris.id);
  staff = await signIn(t.app, 'equipe@centre-st-etienne.example');
});
afterAll(() => t.close());

async function formWith(browser: Browser, fields: Record<string, string>) {
  const page = await browser.get(edit);
  expect(page.statusCode).toBe(200);
  const value = (name: string) =>
    (new RegExp(`name="${name}"[^>]*value="([^"]*)"`).exec(page.body)?.[1] ?? '').replaceAll('&quot;', '"');
  const names = ['version', 'trainersVersion', 'price', 'startTime', 'endTime', 'capacity', 'declaredOn'];
  const trainers = ['psychologistName', 'psychologistNumber', 'bafmName', 'bafmNumber'];
  return {
    _csrf: Browser.token(page.body),
    ...Object.fromEntries([...names, ...trainers].map((n) => [n, value(n)])),
    ...fields,
  };
}

const version = async () =>
  (await t.app.database.db.select().from(catalogueState).where(eq(catalogueState.id, 1)))[0]?.version;

describe('a session’s trainers', () => {
  it('are recorded from the session’s form, shown on its page, and recorded in the history as the user’s', async () => {
    const before = await version();
    const res = await staff.post(
      edit,
      await formWith(staff, { psychologistName: PSY, psychologistNumber: '10 123 456 789', bafmName: BAFM }),
    );
    expect(res.statusCode, res.body).toBe(303);
    const page = await staff.get(`/espace-centre/seances/${id}`);
    expect(page.body).toContain(PSY);
    expect(page.body).toContain(BAFM);
    const form = await staff.get(edit);
    expect(form.body).toContain('value="10123456789"');
    // Not a catalogue change: the catalogue's version (and so its change stream) does not move.
    expect(await version()).toBe(before);
    const { partner } = await keysFor(t.app, CENTRES.stEtienne.id);
    const history = (await t.app.inject({ url: `/api/admin/history?entityId=${id}`, headers: partner })).json();
    expect(history.data).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          field: 'psychologistName',
          newValue: PSY,
          actor: expect.objectContaining({ kind: 'user' }),
        }),
        expect.objectContaining({ field: 'bafmName', newValue: BAFM }),
      ]),
    );
  });

  it('appear in no public answer: REST, MCP, the site, the sitemap, the admin API’s sessions', async () => {
    const { partner } = await keysFor(t.app, CENTRES.stEtienne.id);
    const mcp = (name: string, args: Record<string, unknown>) =>
      t.app.inject({
        method: 'POST',
        url: '/api/mcp',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } },
      });
    const answers = [
      await t.app.inject(`/api/stages/${id}`),
      await t.app.inject('/api/stages?dept=42&limit=100'),
      await mcp('check_availability', { sessionId: id }),
      await mcp('search_stages', { dept: '42' }),
      await t.app.inject(`/stages/${id}`),
      await t.app.inject(`/centres/${CENTRES.stEtienne.slug}`),
      await t.app.inject({ url: `/api/admin/sessions/${id}`, headers: partner }),
      await t.app.inject({ url: `/api/admin/sessions?centreId=${CENTRES.stEtienne.id}`, headers: partner }),
      await t.app.inject('/sitemap.xml'),
    ];
    for (const res of answers) {
      expect(res.statusCode, res.body.slice(0, 200)).toBe(200);
      for (const secret of [PSY, BAFM, 'Vasseur', 'Haddad', '10123456789']) expect(res.body).not.toContain(secret);
    }
    expect(answers[0]?.json().session.id).toBe(id);
    expect(answers[2]?.body).toContain(id);
  });

  it('refuses a psychologist’s number that is neither ADELI nor RPPS, next to the field, changing nothing', async () => {
    const res = await staff.post(edit, await formWith(staff, { psychologistNumber: '12345', bafmName: 'Autre Nom' }));
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('id="psychologistNumber-error"');
    expect((await staff.get(`/espace-centre/seances/${id}`)).body).toContain(BAFM);
  });

  it('refuses trainers changed meanwhile by someone else', async () => {
    const stale = await formWith(staff, { bafmName: 'Premier Nom' });
    expect((await staff.post(edit, await formWith(staff, { bafmName: 'Second Nom' }))).statusCode).toBe(303);
    const res = await staff.post(edit, stale);
    expect(res.statusCode).toBe(409);
    expect(res.body).toContain('a changé entre-temps');
    expect(res.body).toContain('value="Second Nom"');
  });

  it('are not another centre’s to read or change (404), nor a forged form’s (403)', async () => {
    const paris = await signIn(t.app, 'gerant@centre-paris.example');
    const page = await paris.get(edit);
    expect(page.statusCode).toBe(404);
    expect(page.body).not.toContain(PSY);
    expect((await paris.get(`/espace-centre/seances/${id}`)).body).not.toContain(PSY);
    const mine = await formWith(staff, { psychologistName: 'Intrus' });
    expect(
      (await paris.post(edit, { ...mine, _csrf: Browser.token((await paris.get('/espace-centre')).body) })).statusCode,
    ).toBe(404);
    expect((await staff.post(edit, { ...mine, _csrf: 'forged-forged-forged-fo' })).statusCode).toBe(403);
    expect((await staff.get(`/espace-centre/seances/${id}`)).body).toContain(PSY);
    expect((await staff.get(`/espace-centre/seances/${id}`)).body).not.toContain('Intrus');
  });

  it('are recorded with a new session from the new-session form', async () => {
    const page = await staff.get('/espace-centre/seances/nouvelle');
    expect(page.body).toContain('<label for="psychologistName">');
    const res = await staff.post('/espace-centre/seances/nouvelle', {
      ...Browser.createForm(page.body),
      centreId: CENTRES.stEtienne.id,
      day1: '2030-05-06',
      repeat: '2',
      every: '1',
      startTime: '08:30',
      endTime: '16:30',
      price: '230',
      capacity: '20',
      spots: '',
      declaredOn: '',
      psychologistName: PSY,
      psychologistNumber: '',
      bafmName: BAFM,
      bafmNumber: 'BAFM-42/0017',
    });
    expect(res.statusCode, res.body).toBe(303);
    const { partner } = await keysFor(t.app, CENTRES.stEtienne.id);
    const list = (
      await t.app.inject({
        url: `/api/admin/sessions?centreId=${CENTRES.stEtienne.id}&from=2030-05-01`,
        headers: partner,
      })
    ).json();
    expect(list.data).toHaveLength(2);
    for (const s of list.data) {
      const own = await staff.get(`/espace-centre/seances/${s.id}`);
      expect(own.body).toContain(PSY);
      expect(own.body).toContain(BAFM);
      expect((await t.app.inject(`/api/stages/${s.id}`)).body).not.toContain('Vasseur');
    }
  });
});
