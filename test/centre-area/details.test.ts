import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grantRole } from '../../src/accounts/users.js';
import { Browser, signIn } from '../helpers/accounts.js';
import { keysFor } from '../helpers/admin-keys.js';
import { buildTestApp, frozenClock, type TestApp } from '../helpers/app.js';
import { CENTRES, FIXTURE_CATALOGUE, FIXTURE_NOW, SESSIONS } from '../helpers/fixtures.js';

/*
 * The centre's details page, its owner's alone: contact email, phone and address saved through the
 * admin API's centre write (its checks, said in French next to the field), recorded in the history
 * as the user's, served at once by the public API; staff 403, another centre 404, a forged form 403.
 */

const clock = frozenClock(FIXTURE_NOW);
const OWNER = 'patron@centre-lyon.example';
const STAFF = 'equipe@centre-lyon.example';
const PARIS_OWNER = 'gerant@centre-paris.example';
let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ catalogue: FIXTURE_CATALOGUE, clock });
  const db = t.app.database.db;
  await grantRole(db, OWNER, 'owner', CENTRES.lyon.id);
  await grantRole(db, STAFF, 'staff', CENTRES.lyon.id);
  await grantRole(db, PARIS_OWNER, 'owner', CENTRES.paris.id);
});
afterAll(() => t.close());

const lyonPage = `/espace-centre/centres/${CENTRES.lyon.id}`;
const parisPage = `/espace-centre/centres/${CENTRES.paris.id}`;

/** The centre as the admin API reads it. */
async function stored(centreId = CENTRES.lyon.id) {
  const { admin } = await keysFor(t.app, centreId);
  return (await t.app.inject({ url: `/api/admin/centres/${centreId}`, headers: admin })).json();
}

/** The form's current fields (as the page fills them), with `changes` typed over them. */
async function save(browser: Browser, changes: Record<string, string>, path = lyonPage) {
  const page = await browser.get(path);
  expect(page.statusCode).toBe(200);
  const value = (name: string) =>
    new RegExp(`name="${name}"[^>]*value="([^"]*)"`)
      .exec(page.body)?.[1]
      ?.replaceAll('&quot;', '"')
      .replaceAll('&amp;', '&') ?? '';
  const fields: Record<string, string> = { _csrf: Browser.token(page.body), version: value('version') };
  for (const name of ['phone', 'email', 'address', 'postalCode', 'city', 'lat', 'lng']) fields[name] = value(name);
  return browser.post(path, { ...fields, ...changes });
}

describe('the centre’s details page', () => {
  it('saves the contact and a new address through the API’s write: served at once, in the history as the user’s', async () => {
    const owner = await signIn(t.app, OWNER);
    const dashboard = await owner.get('/espace-centre');
    expect(dashboard.body).toContain(`href="${lyonPage}"`);
    const page = await owner.get(lyonPage);
    expect(page.statusCode).toBe(200);
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.body).toContain('Coordonnées de Centre Lyon');
    expect(page.body).toContain('R2306900001');

    const saved = await save(owner, {
      phone: '04 72 10 20 30',
      email: 'accueil@centre-lyon.example',
      address: '12 quai Perrache',
      postalCode: '69002',
      city: 'Lyon',
      lat: '45,7485',
      lng: '4.8270',
    });
    expect(saved.statusCode).toBe(303);
    expect(saved.headers.location).toBe(`${lyonPage}?enregistre=1`);
    expect((await owner.get(`${lyonPage}?enregistre=1`)).body).toContain('Coordonnées enregistrées.');

    expect(await stored()).toMatchObject({
      phone: '04 72 10 20 30',
      email: 'accueil@centre-lyon.example',
      address: '12 quai Perrache',
      postalCode: '69002',
      lat: 45.7485,
      lng: 4.827,
      name: 'Centre Lyon',
      agrementNumber: 'R2306900001',
    });
    // The public API serves the new address at once.
    const session = (await t.app.inject({ url: `/api/stages/${SESSIONS.lyonMar5.id}` })).json();
    expect(JSON.stringify(session)).toContain('12 quai Perrache');
    expect(JSON.stringify(session)).toContain('69002');
    expect((await t.app.inject({ url: '/centres/centre-lyon' })).body).toContain('12 quai Perrache');

    const { admin } = await keysFor(t.app, CENTRES.lyon.id);
    const history = (
      await t.app.inject({ url: `/api/admin/history?entity=centre&entityId=${CENTRES.lyon.id}`, headers: admin })
    ).json().data as { field: string; newValue: string; actor: { kind: string; label: string } }[];
    const address = history.find((h) => h.field === 'address');
    expect(address).toMatchObject({ newValue: '12 quai Perrache', actor: { kind: 'user', label: OWNER } });
    expect(history.map((h) => h.field).sort()).toEqual(['address', 'email', 'lat', 'lng', 'phone', 'postalCode']);

    // Emptying the email and phone is allowed (both optional in the API).
    expect((await save(owner, { email: '', phone: '' })).statusCode).toBe(303);
    expect(await stored()).toMatchObject({ email: null, phone: null, address: '12 quai Perrache' });
  });

  it.each([
    ['postalCode', '75001', 'ne dessert aucune commune du département 69'],
    ['postalCode', '6900', 'Le code postal a 5 chiffres'],
    ['email', 'pas-un-email', 'Saisissez une adresse e-mail complète'],
    ['phone', 'appelez-nous', 'Saisissez un numéro de téléphone'],
    ['address', '   ', 'Saisissez le numéro et la rue'],
    ['lat', '60,5', 'Ce point est hors de la zone du département 69'],
    ['lng', 'est', 'Saisissez la longitude'],
  ])('refuses %s "%s" with a French message next to the field (400), saving nothing', async (field, value, message) => {
    const owner = await signIn(t.app, OWNER);
    const before = await stored();
    const res = await save(owner, { [field]: value, city: 'Villeurbanne' });
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain(`<span class="field-error" id="${field}-error">`);
    expect(res.body).toContain(message);
    expect(res.body).toContain('aria-invalid="true"');
    // What was typed is shown again.
    expect(res.body).toContain('value="Villeurbanne"');
    expect(await stored()).toEqual(before);
  });

  it('refuses a form read before someone else’s change (409), showing the current values, saving nothing', async () => {
    const owner = await signIn(t.app, OWNER);
    const page = await owner.get(lyonPage);
    const version = /name="version" value="([^"]+)"/.exec(page.body)?.[1]?.replaceAll('&quot;', '"') as string;
    expect(version).toBeDefined();
    expect((await save(owner, { city: 'Lyon 2e' })).statusCode).toBe(303);
    const stale = await owner.post(lyonPage, {
      _csrf: Browser.token(page.body),
      version,
      phone: '',
      email: '',
      address: '1 rue A',
      postalCode: '69003',
      city: 'Lyon',
      lat: '45',
      lng: '4',
    });
    expect(stale.statusCode).toBe(409);
    expect(stale.body).toContain('modifiées entre-temps');
    expect(stale.body).toContain('value="Lyon 2e"');
    expect((await stored()).city).toBe('Lyon 2e');
  });

  it('refuses a forged or missing anti-forgery token, changing nothing', async () => {
    const owner = await signIn(t.app, OWNER);
    const before = await stored();
    const forged = await save(owner, { _csrf: 'forged-token-forged-tok', city: 'Forgée' });
    expect(forged.statusCode).toBe(403);
    expect(forged.body).toContain('rien n’a été modifié');
    const fields = { address: '1 rue X', postalCode: '69003', city: 'Forgée', lat: '45', lng: '4' };
    expect((await owner.post(lyonPage, fields)).statusCode).toBe(403);
    expect(await stored()).toEqual(before);
  });

  it('answers staff 403 for the page and its form, with no link to it', async () => {
    const staff = await signIn(t.app, STAFF);
    const before = await stored();
    const dashboard = await staff.get('/espace-centre');
    expect(dashboard.body).not.toContain(`href="${lyonPage}"`);
    const page = await staff.get(lyonPage);
    expect(page.statusCode).toBe(403);
    expect(page.body).toContain('réservée au responsable du centre');
    const token = Browser.token(dashboard.body);
    const post = await staff.post(lyonPage, {
      _csrf: token,
      address: '9 rue du Personnel',
      postalCode: '69003',
      city: 'Lyon',
      lat: '45',
      lng: '4',
    });
    expect(post.statusCode).toBe(403);
    expect(await stored()).toEqual(before);
  });

  it('answers another centre’s owner 404, for a centre that exists or not, changing nothing', async () => {
    const paris = await signIn(t.app, PARIS_OWNER);
    const before = await stored();
    const own = await paris.get(parisPage);
    expect(own.statusCode).toBe(200);
    const token = Browser.token(own.body);
    const fields = { _csrf: token, address: '9 rue de Paris', postalCode: '69003', city: 'Lyon', lat: '45', lng: '4' };
    const refusals = [
      await paris.get(lyonPage),
      await paris.get('/espace-centre/centres/00000000-0000-4000-8000-00000000dead'),
      await paris.get('/espace-centre/centres/pas-un-id'),
      await paris.post(lyonPage, fields),
    ];
    const bodies = new Set<string>();
    for (const res of refusals) {
      expect(res.statusCode).toBe(404);
      expect(res.body).toContain('Page introuvable');
      bodies.add(res.body);
    }
    expect(bodies.size).toBe(1);
    expect(await stored()).toEqual(before);
  });

  it('refuses a form without the version it was read at, rather than overwrite', async () => {
    const owner = await signIn(t.app, OWNER);
    const before = await stored();
    const res = await save(owner, { version: '', phone: '04 78 99 99 99' });
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('Ce formulaire est incomplet');
    expect((await stored()).phone).toBe(before.phone);
  });

  it('saves the cancellation terms the owner writes, line breaks kept; too long is refused in French, nothing saved', async () => {
    const owner = await signIn(t.app, OWNER);
    const page = (await owner.get(lyonPage)).body;
    expect(page).toContain('<textarea id="cancellationTerms" name="cancellationTerms"');
    const terms = 'Annulation gratuite jusqu’à 7 jours avant.\r\nEnsuite, l’acompte de 50 € est gardé.';
    const saved = await save(owner, { cancellationTerms: terms });
    expect(saved.statusCode).toBe(303);
    expect((await stored()).cancellationTerms).toBe(terms.replace('\r\n', '\n'));
    const again = (await owner.get(lyonPage)).body;
    expect(again).toMatch(
      /<textarea[^>]*>Annulation gratuite jusqu’à 7 jours avant.\nEnsuite, l’acompte de 50 € est gardé.<\/textarea>/,
    );
    // Shown next to the booking form at once.
    expect((await t.app.inject(`/stages/${SESSIONS.lyonMar5.id}`)).body).toContain(
      'Annulation gratuite jusqu’à 7 jours avant.<br/>Ensuite',
    );
    const refused = await save(owner, { cancellationTerms: 'x'.repeat(2001) });
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toContain('Écrivez vos conditions en 2000 caractères au plus');
    expect(refused.body).toContain('aria-invalid="true"');
    expect((await stored()).cancellationTerms).toBe(terms.replace('\r\n', '\n'));
  });
});
