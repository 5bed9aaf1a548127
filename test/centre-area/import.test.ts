import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grantRole } from '../../src/accounts/users.js';
import { Browser, signIn } from '../helpers/accounts.js';
import { keysFor } from '../helpers/admin-keys.js';
import { buildTestApp, frozenClock, type TestApp } from '../helpers/app.js';
import { CENTRES, FIXTURE_CATALOGUE, FIXTURE_NOW, SESSIONS } from '../helpers/fixtures.js';

/* Importing a file's sessions through the centre's area: the API's dry run as a preview, then confirm. */

const clock = frozenClock(FIXTURE_NOW);
let t: TestApp;
let staff: Browser;
let owner: Browser;
let paris: Browser;
const centreId = CENTRES.stEtienne.id;
const path = `/espace-centre/centres/${centreId}/import`;
const NEW_ID = '10000000-0000-4000-8000-0000000000c1';
const mar5 = SESSIONS.stEtienneMar5.id;
const HEADER = 'type,id,centreId,courseNumber,day1,startTime,endTime,priceEuros,capacity,spotsAvailable';
const row = (id: string, course: string, day1: string, price: number, spots = 12, centre = centreId) =>
  `session,${id},${centre},${course},${day1},08:30,16:30,${price},20,${spots}`;
const CSV = [
  HEADER,
  row(NEW_ID, 'R2304200002-NEW1', '2030-03-18', 219),
  row(mar5, 'R2304200002-20300305', '2030-03-05', 205),
].join('\n');

beforeAll(async () => {
  t = await buildTestApp({ catalogue: FIXTURE_CATALOGUE, clock });
  const db = t.app.database.db;
  await grantRole(db, 'equipe@centre-st-etienne.example', 'staff', centreId);
  await grantRole(db, 'gerant@centre-st-etienne.example', 'owner', centreId);
  await grantRole(db, 'gerant@centre-paris.example', 'owner', CENTRES.paris.id);
  staff = await signIn(t.app, 'equipe@centre-st-etienne.example');
  owner = await signIn(t.app, 'gerant@centre-st-etienne.example');
  paris = await signIn(t.app, 'gerant@centre-paris.example');
});
afterAll(() => t.close());

const served = async (id: string) => t.app.inject(`/api/stages/${id}`);
const priceOfMar5 = async () => (await served(mar5)).json().priceEuros;

async function preview(browser: Browser, content: string, format = 'csv') {
  const page = await browser.get(path);
  expect(page.statusCode).toBe(200);
  return browser.post(path, { _csrf: Browser.token(page.body), format, contenu: content });
}
const draftOf = (html: string) => /name="brouillon" value="([^"]+)"/.exec(html)?.[1] as string;
const confirm = (browser: Browser, html: string, draft = draftOf(html)) =>
  browser.post(`${path}/confirmer`, { _csrf: Browser.token(html), brouillon: draft });

describe('importing a file through the centre’s area', () => {
  it('is linked from the dashboard, shows the dry run as a preview, writes nothing until confirmed, then applies it as the user’s', async () => {
    expect((await staff.get('/espace-centre')).body).toContain(`href="${path}"`);
    const shown = await preview(staff, CSV);
    expect(shown.statusCode, shown.body).toBe(200);
    expect(shown.body).toContain('Aperçu : rien n’est encore écrit');
    expect(shown.body).toContain('1 stage(s) créé(s)');
    expect(shown.body).toContain('1 stage(s) modifié(s)');
    expect(shown.body).toContain('Confirmer l’import');
    expect((await served(NEW_ID)).statusCode).toBe(404);
    expect(await priceOfMar5()).toBe(199);

    const done = await confirm(staff, shown.body);
    expect(done.statusCode, done.body).toBe(303);
    expect(done.headers.location).toBe(`${path}?crees=1&modifies=1`);
    expect((await staff.get(done.headers.location as string)).body).toContain(
      'Import appliqué : 1 stage(s) créé(s), 1 modifié(s)',
    );
    expect((await served(NEW_ID)).json()).toMatchObject({ status: 'available', priceEuros: 219 });
    expect(await priceOfMar5()).toBe(205);
    const { partner } = await keysFor(t.app, centreId);
    const history = (await t.app.inject({ url: `/api/admin/history?entityId=${mar5}`, headers: partner })).json();
    expect(history.data[0]).toMatchObject({ field: 'priceEuros', newValue: '205', actor: { kind: 'user' } });

    // The preview is spent: confirming it again changes nothing.
    const again = await confirm(staff, shown.body);
    expect(again.statusCode).toBe(410);
    expect(again.body).toContain('a expiré ou a déjà été appliqué');
  });

  it('takes JSON too, and is the owner’s as much as the staff’s', async () => {
    const json = JSON.stringify({
      sessions: [
        {
          id: NEW_ID,
          centreId,
          courseNumber: 'R2304200002-NEW1',
          day1: '2030-03-18',
          startTime: '08:30',
          endTime: '16:30',
          priceEuros: 219,
          capacity: 20,
          spotsAvailable: 12,
        },
      ],
    });
    // Larger than the area's other forms take (16 KB): the import's own limit applies (IMPORT_MAX_MB).
    const shown = await preview(owner, `${json}${' '.repeat(40_000)}`, 'json');
    expect(shown.statusCode, shown.body).toBe(200);
    expect(shown.body).toContain('1 stage(s) inchangé(s)');
  });

  it('shows each refused line as the API words it and writes nothing', async () => {
    const bad = [HEADER, row('10000000-0000-4000-8000-0000000000c2', 'R2304200002-NEW2', '2030-03-17', 219)].join('\n');
    const res = await preview(staff, bad);
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('Le fichier n’a pas été importé');
    expect(res.body).toContain('Ligne 2 · day1');
    expect(res.body).toContain('Sunday');
    expect(res.body).not.toContain('Confirmer l’import');
    // Another centre's session is out of this centre's reach, as for its partner key.
    const theirs = [HEADER, row(SESSIONS.parisMar12.id, 'X-1', '2030-03-12', 100, 1, CENTRES.paris.id)].join('\n');
    const refused = await preview(staff, theirs);
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toContain('Ligne 2 · centreId');
    expect((await served(SESSIONS.parisMar12.id)).json().priceEuros).toBe(279.5);
    expect((await served('10000000-0000-4000-8000-0000000000c2')).statusCode).toBe(404);
  });

  it('refuses a confirmation when the file’s sessions changed since the preview, showing a new one', async () => {
    const csv = [HEADER, row(mar5, 'R2304200002-20300305', '2030-03-05', 189)].join('\n');
    const shown = await preview(staff, csv);
    expect(shown.statusCode).toBe(200);
    const { partner } = await keysFor(t.app, centreId);
    const minus = await t.app.inject({
      method: 'POST',
      url: `/api/admin/sessions/${mar5}/places`,
      headers: partner,
      payload: { change: -1 },
    });
    expect(minus.statusCode).toBe(200);
    const res = await confirm(staff, shown.body);
    expect(res.statusCode).toBe(409);
    expect(res.body).toContain('ont changé depuis l’aperçu');
    expect(await priceOfMar5()).toBe(205);
    const done = await confirm(staff, res.body);
    expect(done.statusCode).toBe(303);
    expect(await priceOfMar5()).toBe(189);
  });

  it('is not another centre’s (404), nor another user’s preview, nor a forged form’s (403); nothing changes', async () => {
    const csv = [HEADER, row(mar5, 'R2304200002-20300305', '2030-03-05', 150)].join('\n');
    const shown = await preview(staff, csv);
    const draft = draftOf(shown.body);
    expect((await paris.get(path)).statusCode).toBe(404);
    const parisToken = Browser.token((await paris.get('/espace-centre')).body);
    expect((await paris.post(path, { _csrf: parisToken, format: 'csv', contenu: csv })).statusCode).toBe(404);
    expect((await paris.post(`${path}/confirmer`, { _csrf: parisToken, brouillon: draft })).statusCode).toBe(404);
    const ownerPage = await owner.get(path);
    expect((await confirm(owner, ownerPage.body, draft)).statusCode).toBe(410);
    expect((await staff.post(path, { _csrf: 'forged-forged-forged-fo', format: 'csv', contenu: csv })).statusCode).toBe(
      403,
    );
    expect((await staff.post(`${path}/confirmer`, { brouillon: draft })).statusCode).toBe(403);
    expect(await priceOfMar5()).toBe(189);
    // The staff member's own preview still applies.
    expect((await confirm(staff, shown.body)).statusCode).toBe(303);
    expect(await priceOfMar5()).toBe(150);
  });
});
