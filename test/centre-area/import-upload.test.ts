import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grantRole } from '../../src/accounts/users.js';
import { areaImportDrafts } from '../../src/db/schema.js';
import { Browser, signIn } from '../helpers/accounts.js';
import { keysFor } from '../helpers/admin-keys.js';
import { buildTestApp, frozenClock, type TestApp } from '../helpers/app.js';
import { CENTRES, FIXTURE_CATALOGUE, FIXTURE_NOW, SESSIONS } from '../helpers/fixtures.js';

/* A file chosen on the phone (a multipart form) through the centre's area: the same preview, then confirm. */

const clock = frozenClock(FIXTURE_NOW);
let t: TestApp;
let staff: Browser;
let owner: Browser;
let paris: Browser;
const centreId = CENTRES.stEtienne.id;
const path = `/espace-centre/centres/${centreId}/import`;
const mar5 = SESSIONS.stEtienneMar5.id;
const id = (n: number) => `10000000-0000-4000-8000-0000000001${String(n).padStart(2, '0')}`;
const HEADER = 'type,id,centreId,courseNumber,day1,startTime,endTime,priceEuros,capacity,spotsAvailable';
const row = (sessionId: string, course: string, day1: string, price: number) =>
  `session,${sessionId},${centreId},${course},${day1},08:30,16:30,${price},20,12`;
const BOM = '\uFEFF';

beforeAll(async () => {
  // IMPORT_MAX_MB at 1 here: a file over it is quick to build.
  t = await buildTestApp({ catalogue: FIXTURE_CATALOGUE, clock, env: { IMPORT_MAX_MB: '1' } });
  const db = t.app.database.db;
  await grantRole(db, 'equipe@centre-st-etienne.example', 'staff', centreId);
  await grantRole(db, 'gerant@centre-st-etienne.example', 'owner', centreId);
  await grantRole(db, 'gerant@centre-paris.example', 'owner', CENTRES.paris.id);
  staff = await signIn(t.app, 'equipe@centre-st-etienne.example');
  owner = await signIn(t.app, 'gerant@centre-st-etienne.example');
  paris = await signIn(t.app, 'gerant@centre-paris.example');
});
afterAll(() => t.close());

const served = (sessionId: string) => t.app.inject(`/api/stages/${sessionId}`);
const priceOfMar5 = async () => (await served(mar5)).json().priceEuros;
const drafts = async () => (await t.app.database.db.select().from(areaImportDrafts)).length;

interface FilePart {
  name: string;
  bytes: string | Uint8Array<ArrayBuffer>;
  type?: string;
}

/** The page's file form as a browser sends it: multipart, the token first, then the format and the file. */
function uploadForm(fields: Record<string, string>, ...files: FilePart[]): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  for (const f of files)
    form.append('fichier', new Blob([f.bytes], { type: f.type ?? 'application/octet-stream' }), f.name);
  return form;
}

const send = (browser: Browser, form: FormData, url = path) =>
  browser.request({ method: 'POST', url, payload: form, headers: { 'sec-fetch-site': 'same-origin' } });

async function upload(browser: Browser, file: FilePart, format = '') {
  const page = await browser.get(path);
  expect(page.statusCode).toBe(200);
  return send(browser, uploadForm({ _csrf: Browser.token(page.body), format }, file));
}
const draftOf = (html: string) => /name="brouillon" value="([^"]+)"/.exec(html)?.[1] as string;
const confirm = (browser: Browser, html: string) =>
  browser.post(`${path}/confirmer`, { _csrf: Browser.token(html), brouillon: draftOf(html) });

describe('choosing the file to import on the phone', () => {
  it('offers a file input in a multipart form, beside the paste box', async () => {
    const page = await staff.get(path);
    expect(page.statusCode).toBe(200);
    expect(page.body).toMatch(/<form[^>]*enctype="multipart\/form-data"/);
    expect(page.body).toContain(
      '<input type="file" id="fichier" name="fichier" accept=".csv,.json,.ndjson,text/csv,application/json"',
    );
    expect(page.body).toContain('<label for="fichier">');
    expect(page.body).toContain('encodé en UTF-8');
    expect(page.body).toContain('<textarea id="contenu"');
  });

  it('previews an uploaded CSV (with its byte-order mark, format from its name), writes nothing, then confirms', async () => {
    const csv = `${BOM}${[HEADER, row(id(1), 'UPLOAD-1', '2030-03-18', 219), row(mar5, 'R2304200002-20300305', '2030-03-05', 207)].join('\r\n')}\r\n`;
    const before = await drafts();
    const shown = await upload(staff, { name: 'planning-mars.csv', bytes: csv, type: 'text/csv' });
    expect(shown.statusCode, shown.body).toBe(200);
    expect(shown.body).toContain('Aperçu : rien n’est encore écrit');
    expect(shown.body).toContain('Fichier : planning-mars.csv');
    expect(shown.body).toContain('1 stage(s) créé(s)');
    expect(shown.body).toContain('1 stage(s) modifié(s)');
    expect(shown.body).toContain('0 stage(s) inchangé(s)');
    expect(await drafts()).toBe(before + 1);
    expect((await served(id(1))).statusCode).toBe(404);
    expect(await priceOfMar5()).toBe(199);

    const done = await confirm(staff, shown.body);
    expect(done.statusCode, done.body).toBe(303);
    expect(done.headers.location).toBe(`${path}?crees=1&modifies=1`);
    expect((await served(id(1))).json()).toMatchObject({ status: 'available', priceEuros: 219 });
    expect(await priceOfMar5()).toBe(207);
    const { partner } = await keysFor(t.app, centreId);
    const history = (await t.app.inject({ url: `/api/admin/history?entityId=${mar5}`, headers: partner })).json();
    expect(history.data[0]).toMatchObject({ field: 'priceEuros', newValue: '207', actor: { kind: 'user' } });
  });

  it('takes a JSON file from the owner too, and NDJSON when the format is chosen for a nameless extension', async () => {
    const session = (sessionId: string, course: string) => ({
      id: sessionId,
      centreId,
      courseNumber: course,
      day1: '2030-03-25',
      startTime: '08:30',
      endTime: '16:30',
      priceEuros: 230,
      capacity: 20,
      spotsAvailable: 20,
    });
    const json = JSON.stringify({ sessions: [session(id(2), 'UPLOAD-2')] });
    const shown = await upload(owner, { name: 'export.JSON', bytes: json, type: 'application/json' });
    expect(shown.statusCode, shown.body).toBe(200);
    expect(shown.body).toContain('1 stage(s) créé(s)');
    expect((await confirm(owner, shown.body)).statusCode).toBe(303);
    expect((await served(id(2))).json()).toMatchObject({ priceEuros: 230 });

    const ndjson = `${JSON.stringify({ type: 'session', ...session(id(3), 'UPLOAD-3') })}\n`;
    const chosen = await upload(staff, { name: 'export', bytes: ndjson }, 'ndjson');
    expect(chosen.statusCode, chosen.body).toBe(200);
    expect(chosen.body).toContain('1 stage(s) créé(s)');
    // No extension, no format chosen, no telling type: the page asks for the format.
    const unknown = await upload(staff, { name: 'export', bytes: ndjson });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.body).toContain('choisissez le format dans la liste');
    expect(unknown.body).toContain('id="fichier-error"');
  });

  it('shows the import’s refusal of a bad line next to the file, and writes nothing', async () => {
    const bad = [HEADER, row(id(4), 'UPLOAD-4', '2030-03-17', 219)].join('\n');
    const before = await drafts();
    const res = await upload(staff, { name: 'bad.csv', bytes: bad });
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('Le fichier n’a pas été importé');
    expect(res.body).toContain('Ligne 2 · day1');
    expect(res.body).not.toContain('Confirmer l’import');
    expect(await drafts()).toBe(before);
    expect((await served(id(4))).statusCode).toBe(404);
  });

  it('says a file over IMPORT_MAX_MB is too big (413), one file at a time (413), and an empty choice (400)', async () => {
    const before = await drafts();
    const big = `${HEADER}\n${'x'.repeat(1024 * 1024 + 10)}`;
    const tooBig = await upload(staff, { name: 'gros.csv', bytes: big });
    expect(tooBig.statusCode).toBe(413);
    expect(tooBig.body).toContain('Ce fichier dépasse 1 Mo');
    expect(tooBig.body).toContain('rien n’a été importé');

    const token = Browser.token((await staff.get(path)).body);
    const csv = [HEADER, row(id(5), 'UPLOAD-5', '2030-03-18', 219)].join('\n');
    const two = await send(
      staff,
      uploadForm({ _csrf: token, format: '' }, { name: 'a.csv', bytes: csv }, { name: 'b.csv', bytes: csv }),
    );
    expect(two.statusCode).toBe(413);
    expect(two.body).toContain('un seul fichier à la fois');

    // What a browser sends when no file was chosen: a file part without a name, empty.
    const none = await send(staff, uploadForm({ _csrf: token, format: '' }, { name: '', bytes: '' }));
    expect(none.statusCode).toBe(400);
    expect(none.body).toContain('Choisissez un fichier.');
    const empty = await send(staff, uploadForm({ _csrf: token, format: '' }, { name: 'vide.csv', bytes: '' }));
    expect(empty.statusCode).toBe(400);
    expect(empty.body).toContain('Ce fichier est vide.');
    expect(await drafts()).toBe(before);
    expect((await served(id(5))).statusCode).toBe(404);
  });

  it('answers a too-big file’s 413 page over a real connection, the browser still sending (no reset, no 500)', async () => {
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const token = Browser.token((await staff.get(path)).body);
    const form = uploadForm(
      { _csrf: token, format: 'csv' },
      { name: 'gros.csv', bytes: `${HEADER}\n${'y'.repeat(3 * 1024 * 1024)}` },
    );
    const res = await fetch(`${address}${path}`, {
      method: 'POST',
      body: form,
      headers: { cookie: staff.cookieHeader, 'sec-fetch-site': 'same-origin' },
    });
    expect(res.status).toBe(413);
    expect(await res.text()).toContain('Ce fichier dépasse 1 Mo');
  });

  it('refuses a file that is not UTF-8 (400), saying which encoding is expected, instead of importing mojibake', async () => {
    const before = await drafts();
    // "Stage Évian" in Windows-1252: É is the single byte 0xC9.
    const latin1 = Buffer.concat([
      Buffer.from(`${HEADER}\n${row(id(6), 'UPLOAD-6', '2030-03-18', 219)}\n`.replace('UPLOAD-6', 'STAGE-')),
      Buffer.from([0xc9]),
      Buffer.from('VIAN\n'),
    ]);
    const res = await upload(staff, { name: 'excel.csv', bytes: latin1 });
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('n’est pas encodé en UTF-8, l’encodage attendu');
    expect(res.body).toContain('CSV UTF-8');
    expect(res.body).not.toContain('Confirmer l’import');
    // A UTF-16 export (its byte-order mark FF FE is never UTF-8) is refused the same way.
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(HEADER, 'utf16le')]);
    expect((await upload(staff, { name: 'excel.csv', bytes: utf16 })).statusCode).toBe(400);
    expect(await drafts()).toBe(before);
    expect((await served(id(6))).statusCode).toBe(404);
  });

  it('checks the anti-forgery token from the multipart fields: forged or missing → 403, nothing stored', async () => {
    const csv = [HEADER, row(mar5, 'R2304200002-20300305', '2030-03-05', 150)].join('\n');
    const file = { name: 'planning.csv', bytes: csv };
    const before = await drafts();
    const forged = await send(staff, uploadForm({ _csrf: 'forged-forged-forged-fo', format: 'csv' }, file));
    expect(forged.statusCode).toBe(403);
    expect(forged.body).toContain('n’a pas pu être vérifié');
    const missing = await send(staff, uploadForm({ format: 'csv' }, file));
    expect(missing.statusCode).toBe(403);
    // The right token, but sent from another site.
    const token = Browser.token((await staff.get(path)).body);
    const crossSite = await staff.request({
      method: 'POST',
      url: path,
      payload: uploadForm({ _csrf: token, format: 'csv' }, file),
      headers: { 'sec-fetch-site': 'cross-site' },
    });
    expect(crossSite.statusCode).toBe(403);
    expect(await drafts()).toBe(before);
    expect(await priceOfMar5()).toBe(207);
  });

  it('is not another centre’s: 404 and nothing stored; nor read from a cut-short body (400)', async () => {
    const csv = [HEADER, row(mar5, 'R2304200002-20300305', '2030-03-05', 150)].join('\n');
    const before = await drafts();
    const parisToken = Browser.token((await paris.get('/espace-centre')).body);
    const theirs = await send(paris, uploadForm({ _csrf: parisToken, format: 'csv' }, { name: 'a.csv', bytes: csv }));
    expect(theirs.statusCode).toBe(404);
    expect(await drafts()).toBe(before);
    const unknownCentre = await send(
      staff,
      uploadForm({ _csrf: Browser.token((await staff.get(path)).body) }, { name: 'a.csv', bytes: csv }),
      '/espace-centre/centres/00000000-0000-4000-8000-000000000999/import',
    );
    expect(unknownCentre.statusCode).toBe(404);

    const token = Browser.token((await staff.get(path)).body);
    const cut = await staff.request({
      method: 'POST',
      url: path,
      headers: { 'content-type': 'multipart/form-data; boundary=XYZ', 'sec-fetch-site': 'same-origin' },
      payload: `--XYZ\r\nContent-Disposition: form-data; name="_csrf"\r\n\r\n${token}\r\n--XYZ\r\nContent-Disposition: form-data; name="fichier"; filename="a.csv"\r\nContent-Type: text/csv\r\n\r\n${csv}`,
    });
    expect(cut.statusCode).toBe(400);
    expect(cut.body).toContain('n’a pas pu être reçu en entier');
    expect(await drafts()).toBe(before);
    expect(await priceOfMar5()).toBe(207);
  });

  it('takes multipart bodies on this form only: the area’s other forms and the admin API’s import refuse them', async () => {
    const token = Browser.token((await staff.get(path)).body);
    const other = await send(
      staff,
      uploadForm({ _csrf: token, change: '-1' }),
      `/espace-centre/seances/${mar5}/places`,
    );
    expect(other.statusCode).toBe(415);
    const { partner } = await keysFor(t.app, centreId);
    const csv = [HEADER, row(mar5, 'R2304200002-20300305', '2030-03-05', 150)].join('\n');
    const api = await t.app.inject({
      method: 'POST',
      url: '/api/admin/import',
      headers: partner,
      payload: uploadForm({}, { name: 'a.csv', bytes: csv, type: 'text/csv' }),
    });
    expect(api.statusCode).toBe(415);
    expect(await priceOfMar5()).toBe(207);
    // The API's own CSV body still imports.
    const direct = await t.app.inject({
      method: 'POST',
      url: '/api/admin/import?dryRun=true',
      headers: { ...partner, 'content-type': 'text/csv' },
      payload: csv,
    });
    expect(direct.statusCode, direct.body).toBe(200);
    expect(direct.json().sessions).toMatchObject({ updated: 1 });
  });
});
