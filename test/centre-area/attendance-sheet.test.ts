import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grantRole } from '../../src/accounts/users.js';
import { reservations, sessionFollowUp } from '../../src/db/schema.js';
import { Browser, signIn } from '../helpers/accounts.js';
import { keysFor } from '../helpers/admin-keys.js';
import { buildTestApp, frozenClock, type TestApp } from '../helpers/app.js';
import { openForm, PERSON, submit } from '../helpers/booking.js';
import { CENTRES, FIXTURE_CATALOGUE, FIXTURE_NOW, SESSIONS } from '../helpers/fixtures.js';

/*
 * The attendance sheet (a page to print, a CSV) and, after the course, the list of those present at
 * all four half-days for the attestations; downloading that list records the export.
 */

const clock = frozenClock(FIXTURE_NOW);
let t: TestApp;
const id = SESSIONS.stEtienneMar5.id; // 5 and 6 March 2030
const base = `/espace-centre/seances/${id}`;
const people: Record<string, string> = {};
const FORMULA = '=HYPERLINK("https://evil.example","x")';

beforeAll(async () => {
  t = await buildTestApp({ catalogue: FIXTURE_CATALOGUE, clock });
  await grantRole(t.app.database.db, 'equipe@centre-st-etienne.example', 'staff', CENTRES.stEtienne.id);
  await grantRole(t.app.database.db, 'gerant@centre-st-etienne.example', 'owner', CENTRES.stEtienne.id);
  await grantRole(t.app.database.db, 'gerant@centre-paris.example', 'owner', CENTRES.paris.id);
  for (const [firstName, lastName, email, reason] of [
    ['Éloïse', 'N’Diaye-Martin', PERSON.email, 'probationary'],
    ['Marc', 'Durand', 'marc.durand@example.org', 'voluntary'],
    ['Hugo', 'Formule', 'hugo@example.org', 'voluntary'],
  ] as const) {
    const form = await openForm(t.app, `/stages/${id}`);
    expect((await submit(t.app, id, form, { ...PERSON, firstName, lastName, email, reason })).statusCode).toBe(303);
  }
  // A name a spreadsheet would run as a formula (what a partner's own system might have sent).
  await t.app.database.db
    .update(reservations)
    .set({ lastName: FORMULA })
    .where(eq(reservations.email, 'hugo@example.org'));
  const staff = await signIn(t.app, 'equipe@centre-st-etienne.example');
  for (const m of (await staff.get(base)).body.matchAll(/id="reservation-([0-9a-f-]{36})"><h3>(\S+)/g))
    people[m[2] as string] = m[1] as string;
});
afterAll(() => t.close());

async function rollCall(at: string, halfDays: string[], present: string[]) {
  clock.set(at);
  const staff = await signIn(t.app, 'equipe@centre-st-etienne.example');
  for (const halfDay of halfDays) {
    const page = await staff.get(`${base}/presences`);
    const res = await staff.post(`${base}/presences`, {
      _csrf: Browser.token(page.body),
      demi_journee: halfDay,
      present,
    });
    expect(res.statusCode).toBe(303);
  }
}

const exportedAt = async () =>
  (
    await t.app.database.db
      .select({ at: sessionFollowUp.attendanceExportedAt })
      .from(sessionFollowUp)
      .where(eq(sessionFollowUp.sessionId, id))
  )[0]?.at ?? null;

describe('the attendance sheet and the list for the attestations', () => {
  it('prints a sheet with a signature box per half-day, and gives it as a CSV for Excel, formulas neutralised', async () => {
    const staff = await signIn(t.app, 'equipe@centre-st-etienne.example');
    const page = await staff.get(`${base}/feuille`);
    expect(page.statusCode).toBe(200);
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.body).toContain('Feuille d’émargement');
    expect(page.body).toContain('N’DIAYE-MARTIN Éloïse');
    expect(page.body).toContain('DURAND Marc');
    expect(page.body.match(/<td class="sign"><\/td>/g)).toHaveLength(12);
    for (const label of ['J1 matin', 'J1 après-midi', 'J2 matin', 'J2 après-midi']) expect(page.body).toContain(label);

    const file = await staff.get(`${base}/feuille.csv`);
    expect(file.statusCode).toBe(200);
    expect(file.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(file.headers['content-disposition']).toMatch(/^attachment; filename="emargement-2030-03-05-[^"]+\.csv"$/);
    expect(
      file.body.startsWith('\ufeffNom;Prénom;Référence;Motif;J1 matin;J1 après-midi;J2 matin;J2 après-midi\r\n'),
    ).toBe(true);
    expect(file.body).toContain('Durand;Marc;SRP-');
    expect(file.body).toContain(`"'=HYPERLINK(""https://evil.example"",""x"")";Hugo`);
    expect(file.body).not.toMatch(/(^|;|\n)=HYPERLINK/);
  });

  it('lists, from the second day, those present at all four half-days; downloading it records the export', async () => {
    const staff = await signIn(t.app, 'equipe@centre-st-etienne.example');
    expect((await staff.get(`${base}/attestations`)).body).toContain(
      'La liste est disponible à partir du mercredi 6 mars 2030',
    );
    const early = await staff.get(`${base}/attestations.csv`);
    expect(early.statusCode).toBe(409);
    expect(await exportedAt()).toBeNull();

    const everybody = [people.Éloïse, people.Marc, people.Hugo] as string[];
    await rollCall('2030-03-05T07:45:00Z', ['1', '2'], everybody);
    await rollCall('2030-03-06T07:45:00Z', ['3'], everybody);
    await rollCall('2030-03-06T15:00:00Z', ['4'], [people.Éloïse as string, people.Hugo as string]); // Marc left early

    const owner = await signIn(t.app, 'gerant@centre-st-etienne.example');
    const page = await owner.get(`${base}/attestations`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('N’DIAYE-MARTIN Éloïse');
    expect(page.body).not.toContain('DURAND Marc');
    expect(page.body).toContain('Présence incomplète pour 1 autre personne inscrite.');
    expect(page.body).toContain('pas encore téléchargée');

    const sheet = await owner.get(`${base}/feuille.csv`);
    expect(sheet.body).toContain('Durand;Marc;');
    expect(sheet.body).toMatch(/Durand;Marc;SRP-[0-9A-Z-]+;[^;]+;présent;présent;présent;absent\r\n/);

    // A link followed from another site downloads the list but does not count as the centre's export.
    const followed = await owner.request({
      url: `${base}/attestations.csv`,
      headers: { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate' },
    });
    expect(followed.statusCode).toBe(200);
    expect(await exportedAt()).toBeNull();

    const file = await owner.get(`${base}/attestations.csv`);
    expect(file.statusCode).toBe(200);
    expect(file.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(file.headers['content-disposition']).toMatch(/^attachment; filename="stagiaires-presents-2030-03-05-/);
    expect(
      file.body.startsWith('\ufeffNom;Prénom;Référence;Motif;Numéro du stage;Premier jour;Second jour;Centre\r\n'),
    ).toBe(true);
    expect(file.body).toContain('N’Diaye-Martin;Éloïse;SRP-');
    expect(file.body).toContain('Permis probatoire');
    expect(file.body).toContain(`"'=HYPERLINK(`);
    expect(file.body).not.toContain('Durand');
    expect(await exportedAt()).toEqual(new Date('2030-03-06T15:00:00Z'));
    expect((await owner.get(`${base}/attestations`)).body).toContain('dernier téléchargement le mercredi 6 mars 2030');

    const { partner } = await keysFor(t.app, CENTRES.stEtienne.id);
    const history = (await t.app.inject({ url: `/api/admin/history?entityId=${id}`, headers: partner })).json();
    expect(history.data[0]).toMatchObject({
      field: 'attendanceExportedAt',
      actor: { kind: 'user', label: 'gerant@centre-st-etienne.example' },
    });
  });

  it('shows nothing of another centre’s session and records no export for it (404)', async () => {
    const before = await exportedAt();
    clock.set('2030-03-07T09:00:00Z');
    const paris = await signIn(t.app, 'gerant@centre-paris.example');
    for (const path of ['feuille', 'feuille.csv', 'attestations', 'attestations.csv']) {
      const res = await paris.get(`${base}/${path}`);
      expect(res.statusCode, path).toBe(404);
      expect(res.body).not.toContain('Durand');
    }
    expect(await exportedAt()).toEqual(before);
  });
});
