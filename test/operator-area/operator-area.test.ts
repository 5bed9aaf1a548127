import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grantRole, listUsers } from '../../src/accounts/users.js';
import { listApiKeys } from '../../src/admin/api-keys.js';
import { setCentreSuspension } from '../../src/admin/repository/centres.js';
import { CLI_ACTOR } from '../../src/history/actor.js';
import { Browser, signIn } from '../helpers/accounts.js';
import { keysFor } from '../helpers/admin-keys.js';
import { buildTestApp, frozenClock, type TestApp } from '../helpers/app.js';
import { openForm, submit } from '../helpers/booking.js';
import { CENTRES, FIXTURE_CATALOGUE, FIXTURE_NOW, SESSIONS } from '../helpers/fixtures.js';

/*
 * The operators' area (/administration): an admin only; centres searched, created with the admin
 * API's validation, suspended with a reason and restored (every public answer follows), approvals
 * ending listed; users disabled; API keys created (shown once) and revoked; the history; the
 * webhooks' health. Forged forms change nothing.
 */

const clock = frozenClock(FIXTURE_NOW);
const ADMIN = 'exploitant@stages.example';
const OWNER = 'patron@centre-lyon.example';
const STAFF = 'equipe@centre-lyon.example';
const NOBODY = 'personne@example.org';
let t: TestApp;
let admin: Browser;
const lyon = CENTRES.lyon;

beforeAll(async () => {
  t = await buildTestApp({ catalogue: FIXTURE_CATALOGUE, clock });
  const db = t.app.database.db;
  await grantRole(db, ADMIN, 'admin');
  await grantRole(db, OWNER, 'owner', lyon.id);
  await grantRole(db, STAFF, 'staff', lyon.id);
  admin = await signIn(t.app, ADMIN);
});
afterAll(() => t.close());

const PAGES = [
  '/administration',
  '/administration?q=lyon',
  `/administration/centres/${lyon.id}`,
  '/administration/centres/nouveau',
  '/administration/utilisateurs',
  '/administration/cles',
  '/administration/historique',
  '/administration/webhooks',
];

/** Posts a form of `path`'s page, with that page's token. */
async function postFrom(browser: Browser, pagePath: string, action: string, fields: Record<string, string>) {
  const page = await browser.get(pagePath);
  expect(page.statusCode).toBe(200);
  // The API keys' create form carries its one-time id too.
  const form = action === '/administration/cles' ? Browser.createForm(page.body) : { _csrf: Browser.token(page.body) };
  return browser.post(action, { ...form, ...fields });
}

describe('who may open it', () => {
  it('sends whoever is not signed in to /connexion, an API key included', async () => {
    const keys = await keysFor(t.app, lyon.id);
    for (const headers of [{}, keys.admin, { authorization: 'Bearer not-a-token' }]) {
      const res = await t.app.inject({ url: '/administration', headers });
      expect(res.statusCode).toBe(303);
      expect(res.headers.location).toBe('/connexion');
    }
    const post = await t.app.inject({
      method: 'POST',
      url: `/administration/centres/${lyon.id}/suspension`,
      headers: { ...keys.admin, 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'action=suspend&reason=pirate',
    });
    expect(post.statusCode).toBe(303);
  });

  it('refuses a centre owner, staff and a user with no role with a 403 page, on every page and form', async () => {
    for (const email of [OWNER, STAFF, NOBODY]) {
      const browser = await signIn(t.app, email);
      for (const path of PAGES) {
        const res = await browser.get(path);
        expect(res.statusCode, `${email} ${path}`).toBe(403);
        expect(res.body).toContain('réservée à l’exploitant');
        expect(res.headers['cache-control']).toBe('no-store');
      }
      const post = await browser.post(`/administration/centres/${lyon.id}/suspension`, {
        _csrf: 'x',
        action: 'suspend',
        reason: 'pas moi',
      });
      expect(post.statusCode).toBe(403);
    }
    expect((await t.app.inject(`/api/stages/${SESSIONS.lyonMar5.id}`)).statusCode).toBe(200);
  });

  it('opens every page to an admin, private and not indexed', async () => {
    for (const path of PAGES) {
      const res = await admin.get(path);
      expect(res.statusCode, path).toBe(200);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers['x-robots-tag']).toBe('noindex');
    }
  });
});

describe('centres', () => {
  it('finds centres by name, city, approval number and department', async () => {
    for (const q of ['lyon', 'LYON', 'R2306900001', '69']) {
      const res = await admin.get(`/administration?q=${encodeURIComponent(q)}`);
      expect(res.body, q).toContain('Centre Lyon');
      expect(res.body, q).not.toContain('Centre Paris');
    }
    expect((await admin.get('/administration?q=zzzz')).body).toContain('Aucun centre ne correspond');
  });

  it('suspends a centre with its reason: every public answer drops it, its bookings stay listed; restoring brings it back', async () => {
    const form = await openForm(t.app, `/stages/${SESSIONS.lyonMar5.id}`);
    expect((await submit(t.app, SESSIONS.lyonMar5.id, form)).statusCode).toBe(303);
    const page = `/administration/centres/${lyon.id}`;

    const short = await postFrom(admin, page, `${page}/suspension`, { action: 'suspend', reason: 'x' });
    expect(short.statusCode).toBe(400);
    expect(short.body).toContain('Donnez le motif');
    expect((await t.app.inject(`/api/stages/${SESSIONS.lyonMar5.id}`)).statusCode).toBe(200);

    const res = await postFrom(admin, page, `${page}/suspension`, {
      action: 'suspend',
      reason: 'Contrôle préfectoral',
    });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('Le centre est suspendu');
    expect(res.body).toContain('Contrôle préfectoral');
    // Its booking is kept and listed for the operator.
    expect(res.body).toContain('Réservations faites ici (1)');
    expect(res.body).toContain('Éloïse');
    expect((await t.app.inject(`/api/stages/${SESSIONS.lyonMar5.id}`)).statusCode).toBe(404);
    expect((await t.app.inject(`/centres/${lyon.slug}`)).statusCode).toBe(404);
    expect((await admin.get('/administration')).body).toMatch(/Centres suspendus[\s\S]*Centre Lyon/);
    // The history names the operator.
    const history = (await admin.get('/administration/historique')).body;
    expect(history).toContain('suspended');
    expect(history).toContain(ADMIN);

    const back = await postFrom(admin, page, `${page}/suspension`, { action: 'restore' });
    expect(back.statusCode).toBe(200);
    expect(back.body).toContain('Le centre est rétabli');
    expect((await t.app.inject(`/api/stages/${SESSIONS.lyonMar5.id}`)).statusCode).toBe(200);
    expect((await t.app.inject(`/centres/${lyon.slug}`)).statusCode).toBe(200);
  });

  it('changes nothing on a forged or missing anti-forgery token, and answers 404 for an unknown centre', async () => {
    const action = `/administration/centres/${lyon.id}/suspension`;
    const forged = await admin.post(action, { _csrf: 'forged', action: 'suspend', reason: 'Contrefaçon' });
    expect(forged.statusCode).toBe(403);
    const missing = await admin.post(action, { action: 'suspend', reason: 'Contrefaçon' });
    expect(missing.statusCode).toBe(403);
    const page = await admin.get(`/administration/centres/${lyon.id}`);
    const crossSite = await admin.post(
      action,
      { _csrf: Browser.token(page.body), action: 'suspend', reason: 'Contrefaçon' },
      { 'sec-fetch-site': 'cross-site' },
    );
    expect(crossSite.statusCode).toBe(403);
    expect((await t.app.inject(`/api/stages/${SESSIONS.lyonMar5.id}`)).statusCode).toBe(200);

    const unknown = '20000000-0000-4000-8000-00000000abcd';
    expect((await admin.get(`/administration/centres/${unknown}`)).statusCode).toBe(404);
    expect((await admin.get('/administration/centres/not-an-id')).statusCode).toBe(404);
    const post = await postFrom(
      admin,
      `/administration/centres/${lyon.id}`,
      `/administration/centres/${unknown}/suspension`,
      {
        action: 'suspend',
        reason: 'Fantôme',
      },
    );
    expect(post.statusCode).toBe(404);
  });

  it('creates a centre with the admin API’s checks, each refusal next to its field', async () => {
    const fields = {
      name: 'Route Sereine Villeurbanne',
      slug: 'route-sereine-villeurbanne',
      address: '12 rue Francis de Pressensé',
      postalCode: '75001',
      city: 'Villeurbanne',
      deptCode: '69',
      lat: '45,7719',
      lng: '4.8902',
      agrementNumber: 'R2406900123',
      approvedOn: '2026-01-15',
      phone: '04 72 00 00 00',
      email: '',
    };
    const refused = await postFrom(admin, '/administration/centres/nouveau', '/administration/centres/nouveau', fields);
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toContain('id="postalCode-error"');
    expect(refused.body).toContain('doit desservir une commune du département');
    expect(refused.body).toContain('value="Route Sereine Villeurbanne"');

    const taken = await postFrom(admin, '/administration/centres/nouveau', '/administration/centres/nouveau', {
      ...fields,
      postalCode: '69100',
      agrementNumber: lyon.agrementNumber,
    });
    expect(taken.statusCode).toBe(409);

    const created = await postFrom(admin, '/administration/centres/nouveau', '/administration/centres/nouveau', {
      ...fields,
      postalCode: '69100',
    });
    expect(created.statusCode).toBe(303);
    const location = String(created.headers.location);
    const page = await admin.get(location);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Le centre est créé');
    expect(page.body).toContain('R2406900123');
    // Served at once by the public site.
    expect((await t.app.inject('/centres/route-sereine-villeurbanne')).statusCode).toBe(200);
    const forged = await admin.post('/administration/centres/nouveau', { ...fields, slug: 'autre-centre', _csrf: 'x' });
    expect(forged.statusCode).toBe(403);
    expect((await t.app.inject('/centres/autre-centre')).statusCode).toBe(404);
  });

  it('lists the approvals that end within 90 days or have ended', async () => {
    const keys = await keysFor(t.app, lyon.id);
    const stored = (await t.app.inject({ url: `/api/admin/centres/${CENTRES.paris.id}`, headers: keys.admin })).json();
    const { id, updatedAt, approvalExpiresOn, suspended, suspendedAt, suspensionReason, ...fields } = stored;
    // Paris's approval ends on 2030-05-01: within 90 days of 2030-03-04.
    const put = await t.app.inject({
      method: 'PUT',
      url: `/api/admin/centres/${CENTRES.paris.id}`,
      headers: keys.admin,
      payload: { ...fields, approvedOn: '2025-05-01' },
    });
    expect(put.statusCode).toBe(200);
    const home = (await admin.get('/administration')).body;
    expect(home).toMatch(
      /Agréments expirés ou qui expirent dans les 90 jours[\s\S]*Centre Paris[\s\S]*Centres suspendus/,
    );
    expect(home).toContain('il expire le');
  });
});

describe('users, keys, history and webhooks', () => {
  it('disables a user: their session ends at once', async () => {
    const staff = await signIn(t.app, STAFF);
    expect((await staff.get('/espace-centre')).statusCode).toBe(200);
    const forged = await admin.post('/administration/utilisateurs/desactiver', { _csrf: 'x', email: STAFF });
    expect(forged.statusCode).toBe(403);
    expect((await listUsers(t.app.database.db)).find((u) => u.email === STAFF)?.disabled).toBe(false);

    const res = await postFrom(admin, '/administration/utilisateurs', '/administration/utilisateurs/desactiver', {
      email: STAFF,
    });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain(`${STAFF} est désactivé`);
    expect((await staff.get('/espace-centre')).statusCode).toBe(303);
    const self = await postFrom(admin, '/administration/utilisateurs', '/administration/utilisateurs/desactiver', {
      email: ADMIN,
    });
    expect(self.statusCode).toBe(400);
  });

  it('creates an API key shown once, which works, and revokes it', async () => {
    const noCentre = await postFrom(admin, '/administration/cles', '/administration/cles', {
      name: 'Logiciel du centre',
      role: 'partner',
      centre: '',
    });
    expect(noCentre.statusCode).toBe(400);
    expect(noCentre.body).toContain('nomme un centre existant');

    const res = await postFrom(admin, '/administration/cles', '/administration/cles', {
      name: 'Logiciel du centre',
      role: 'partner',
      centre: lyon.slug,
    });
    expect(res.statusCode).toBe(201);
    const key = /sk_[0-9a-f]{16}_[A-Za-z0-9_-]{43}/.exec(res.body)?.[0] as string;
    expect(key).toBeDefined();
    const auth = { authorization: `Bearer ${key}` };
    expect((await t.app.inject({ url: `/api/admin/centres/${lyon.id}`, headers: auth })).statusCode).toBe(200);
    // Shown once: the list gives its id only.
    expect((await admin.get('/administration/cles')).body).not.toContain(key);

    const id = (await listApiKeys(t.app.database.db)).find((k) => k.name === 'Logiciel du centre')?.id as string;
    const forged = await admin.post(`/administration/cles/${id}/revocation`, { _csrf: 'x' });
    expect(forged.statusCode).toBe(403);
    expect((await t.app.inject({ url: `/api/admin/centres/${lyon.id}`, headers: auth })).statusCode).toBe(200);
    const revoked = await postFrom(admin, '/administration/cles', `/administration/cles/${id}/revocation`, {});
    expect(revoked.statusCode).toBe(200);
    expect((await t.app.inject({ url: `/api/admin/centres/${lyon.id}`, headers: auth })).statusCode).toBe(401);
  });

  it('pages the history newest first', async () => {
    const first = await admin.get('/administration/historique');
    expect(first.statusCode).toBe(200);
    const times = [...first.body.matchAll(/<strong>(\d\d)\/(\d\d)\/(\d{4}) (\d\d:\d\d)<\/strong>/g)].map(
      (m) => `${m[3]}-${m[2]}-${m[1]} ${m[4]}`,
    );
    expect(times.length).toBeGreaterThan(0);
    expect([...times].sort().reverse()).toEqual(times);
    // The suspension made through the area is there, as the operator's.
    expect(first.body).toContain('suspensionReason');
    const bad = await admin.get('/administration/historique?avant=garbage');
    expect(bad.statusCode).toBe(200);

    // More than a page: 60 changes of 2 fields each; pages of 50 rows, followed to the last, cover them all.
    for (let i = 0; i < 30; i++) {
      await setCentreSuspension(
        t.app.database.db,
        CENTRES.stEtienne.id,
        { suspended: true, reason: `Essai ${i}` },
        undefined,
        CLI_ACTOR,
      );
      await setCentreSuspension(t.app.database.db, CENTRES.stEtienne.id, { suspended: false }, undefined, CLI_ACTOR);
    }
    await t.app.catalogue.refresh();
    let path: string | undefined = '/administration/historique';
    const counts: number[] = [];
    const seen = new Set<string>();
    while (path) {
      const html: string = (await admin.get(path)).body;
      counts.push(html.match(/<li><strong>/g)?.length ?? 0);
      for (const m of html.matchAll(/Essai (\d+)/g)) seen.add(m[1] as string);
      path = /href="(\/administration\/historique\?avant=[^"]+)"/.exec(html)?.[1]?.replace(/&amp;/g, '&');
    }
    expect(counts.length).toBeGreaterThanOrEqual(3);
    expect(counts.slice(0, -1).every((n) => n === 50)).toBe(true);
    expect(counts.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(120);
    expect(seen.size).toBe(30);
  });

  it('shows every subscription with its state on the webhooks’ health page', async () => {
    const keys = await keysFor(t.app, lyon.id);
    const sub = await t.app.inject({
      method: 'POST',
      url: '/api/admin/webhooks',
      headers: keys.partner,
      payload: { url: 'https://hooks.centre-lyon.example/stages', events: ['reservation.created'] },
    });
    expect(sub.statusCode).toBe(201);
    const page = await admin.get('/administration/webhooks');
    expect(page.body).toContain('https://hooks.centre-lyon.example/stages');
    expect(page.body).toContain('Centre Lyon');
    expect(page.body).toContain('actif');
  });
});

describe('bad input in the operators’ area', () => {
  it('answers a readable refusal and changes nothing', async () => {
    const page = `/administration/centres/${lyon.id}`;
    // A suspension form without its action neither suspends nor restores.
    const noAction = await postFrom(admin, page, `${page}/suspension`, { reason: 'Contrôle préfectoral' });
    expect(noAction.statusCode).toBe(400);
    expect(noAction.body).toContain('Choisissez Suspendre ou Rétablir.');
    expect((await t.app.inject(`/api/stages/${SESSIONS.lyonMar5.id}`)).statusCode).toBe(200);

    const before = (await listApiKeys(t.app.database.db)).length;
    const twoLines = await postFrom(admin, '/administration/cles', '/administration/cles', {
      name: 'ligne 1\nligne 2\u202e',
      role: 'admin',
      centre: '',
    });
    expect(twoLines.statusCode).toBe(400);
    expect((await listApiKeys(t.app.database.db)).length).toBe(before);

    const history = await admin.get(
      `/administration/historique?avant=0000-01-01T00:00:00.000Z.10000000-0000-4000-8000-000000000002`,
    );
    expect(history.statusCode).toBe(200);
  });
});
