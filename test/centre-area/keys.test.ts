import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grantRole } from '../../src/accounts/users.js';
import { createApiKey, listApiKeys } from '../../src/admin/api-keys.js';
import { Browser, signIn } from '../helpers/accounts.js';
import { buildTestApp, frozenClock, type TestApp } from '../helpers/app.js';
import { CENTRES, FIXTURE_CATALOGUE, FIXTURE_NOW, SESSIONS } from '../helpers/fixtures.js';

/*
 * The centre's API keys page, its owner's alone: a key created in the page (shown once) works at
 * once on /api/admin/* for this centre only, on another instance too, and is refused (401) once
 * revoked; staff 403, another centre 404 (its keys neither listed nor revocable), a forged form 403.
 */

const clock = frozenClock(FIXTURE_NOW);
const OWNER = 'patron@centre-lyon.example';
const STAFF = 'equipe@centre-lyon.example';
const PARIS_OWNER = 'gerant@centre-paris.example';
let t: TestApp;
let other: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ catalogue: FIXTURE_CATALOGUE, clock });
  other = await buildTestApp({ database: t.db, clock, env: { JOBS_POLL_MS: '0' } });
  const db = t.app.database.db;
  await grantRole(db, OWNER, 'owner', CENTRES.lyon.id);
  await grantRole(db, STAFF, 'staff', CENTRES.lyon.id);
  await grantRole(db, PARIS_OWNER, 'owner', CENTRES.paris.id);
});
afterAll(async () => {
  await other.close();
  await t.close();
});

const lyonPage = `/espace-centre/centres/${CENTRES.lyon.id}/cles`;
const parisPage = `/espace-centre/centres/${CENTRES.paris.id}/cles`;
const keysOf = (centreId: string) => listApiKeys(t.app.database.db, { centreId });
const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

async function create(browser: Browser, name: string, path = lyonPage) {
  const page = await browser.get(path);
  expect(page.statusCode).toBe(200);
  return browser.post(path, { ...Browser.createForm(page.body), name });
}

describe('the centre’s API keys page', () => {
  it('creates a key shown once that works at once for this centre only, then revokes it: 401', async () => {
    const owner = await signIn(t.app, OWNER);
    const dashboard = await owner.get('/espace-centre');
    expect(dashboard.body).toContain(`href="${lyonPage}"`);

    const created = await create(owner, 'Logiciel de planning');
    expect(created.statusCode).toBe(201);
    expect(created.headers['cache-control']).toBe('no-store');
    const key = /<code id="key"[^>]*>(sk_[^<]+)<\/code>/.exec(created.body)?.[1] as string;
    expect(key).toMatch(/^sk_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
    expect(created.body).toContain('elle ne sera plus jamais affichée');
    const [row] = await keysOf(CENTRES.lyon.id);
    expect(row).toMatchObject({
      name: 'Logiciel de planning',
      role: 'partner',
      centreId: CENTRES.lyon.id,
      revokedAt: null,
    });

    const reloaded = await owner.get(lyonPage);
    expect(reloaded.body).toContain('Logiciel de planning');
    expect(reloaded.body).toContain(`sk_${row?.id}_…`);
    expect(reloaded.body).not.toContain(key);

    // The key works at once, on this instance and another, for this centre's sessions only.
    for (const app of [t.app, other.app]) {
      const list = await app.inject({ url: '/api/admin/sessions', headers: bearer(key) });
      expect(list.statusCode).toBe(200);
      const centres = new Set(list.json().data.map((s: { centreId: string }) => s.centreId));
      expect([...centres]).toEqual([CENTRES.lyon.id]);
    }
    const paris = await t.app.inject({ url: `/api/admin/sessions/${SESSIONS.parisMar12.id}`, headers: bearer(key) });
    // A partner key is told another centre's records are out of its reach (the admin API's 403).
    expect(paris.statusCode).toBe(403);
    const parisCentre = await t.app.inject({ url: `/api/admin/centres/${CENTRES.paris.id}`, headers: bearer(key) });
    expect(parisCentre.statusCode).toBe(403);

    const revoked = await owner.post(`${lyonPage}/${row?.id}/revoquer`, { _csrf: Browser.token(reloaded.body) });
    expect(revoked.statusCode).toBe(303);
    expect(revoked.headers.location).toBe(`${lyonPage}?revoquee=1`);
    const after = await owner.get(`${lyonPage}?revoquee=1`);
    expect(after.body).toContain('Clé révoquée');
    expect(after.body).toContain('révoquée le');
    expect(after.body).not.toContain(`aria-label="Révoquer la clé Logiciel de planning"`);
    for (const app of [t.app, other.app])
      expect((await app.inject({ url: '/api/admin/sessions', headers: bearer(key) })).statusCode).toBe(401);
  });

  it.each([
    ['', 'empty'],
    ['x'.repeat(101), 'too long'],
    ['deux\u0007lignes', 'a control character'],
  ])('refuses the name "%s" (%s) next to the field (400), creating nothing', async (name) => {
    const owner = await signIn(t.app, OWNER);
    const before = (await keysOf(CENTRES.lyon.id)).length;
    const res = await create(owner, name);
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('<span class="field-error" id="name-error">Donnez-lui un nom');
    expect(res.body).not.toContain('id="key"');
    expect((await keysOf(CENTRES.lyon.id)).length).toBe(before);
  });

  it('refuses a forged or missing anti-forgery token, creating and revoking nothing', async () => {
    const owner = await signIn(t.app, OWNER);
    const before = await keysOf(CENTRES.lyon.id);
    const forged = await owner.post(lyonPage, { _csrf: 'forged-token-forged-tok', name: 'Forgée' });
    expect(forged.statusCode).toBe(403);
    expect(forged.body).toContain('rien n’a été modifié');
    expect(forged.body).not.toContain('id="key"');
    expect((await owner.post(lyonPage, { name: 'Sans jeton' })).statusCode).toBe(403);
    expect(await keysOf(CENTRES.lyon.id)).toEqual(before);

    const { key, identity } = await createApiKey(t.app.database.db, {
      name: 'par la CLI',
      role: 'partner',
      centreId: CENTRES.lyon.id,
    });
    expect(
      (await owner.post(`${lyonPage}/${identity.id}/revoquer`, { _csrf: 'forged-token-forged-tok' })).statusCode,
    ).toBe(403);
    expect((await owner.post(`${lyonPage}/${identity.id}/revoquer`, {})).statusCode).toBe(403);
    expect((await t.app.inject({ url: '/api/admin/sessions', headers: bearer(key) })).statusCode).toBe(200);
  });

  it('answers staff 403 for the page and its forms, with no link to it', async () => {
    const { key, identity } = await createApiKey(t.app.database.db, {
      name: 'clé du responsable',
      role: 'partner',
      centreId: CENTRES.lyon.id,
    });
    const staff = await signIn(t.app, STAFF);
    const before = await keysOf(CENTRES.lyon.id);
    const dashboard = await staff.get('/espace-centre');
    expect(dashboard.body).not.toContain(lyonPage);
    const token = Browser.token(dashboard.body);
    const page = await staff.get(lyonPage);
    expect(page.statusCode).toBe(403);
    expect(page.body).toContain('réservée au responsable du centre');
    expect(page.body).not.toContain('clé du responsable');
    const post = await staff.post(lyonPage, { _csrf: token, name: 'clé de l’équipe' });
    expect(post.statusCode).toBe(403);
    expect(post.body).not.toContain('sk_');
    expect((await staff.post(`${lyonPage}/${identity.id}/revoquer`, { _csrf: token })).statusCode).toBe(403);
    expect(await keysOf(CENTRES.lyon.id)).toEqual(before);
    expect((await t.app.inject({ url: '/api/admin/sessions', headers: bearer(key) })).statusCode).toBe(200);
  });

  it('answers another centre’s owner 404 for the page and every post; their page lists only their keys', async () => {
    const lyonKey = await createApiKey(t.app.database.db, {
      name: 'clé de Lyon',
      role: 'partner',
      centreId: CENTRES.lyon.id,
    });
    const operatorKey = await createApiKey(t.app.database.db, {
      name: 'clé exploitant',
      role: 'admin',
      centreId: null,
    });
    const paris = await signIn(t.app, PARIS_OWNER);
    const before = await keysOf(CENTRES.lyon.id);
    const own = await paris.get(parisPage);
    expect(own.statusCode).toBe(200);
    expect(own.body).toContain('Aucune clé pour l’instant.');
    expect(own.body).not.toContain('clé de Lyon');
    expect(own.body).not.toContain('clé exploitant');
    const token = Browser.token(own.body);
    const refusals = [
      await paris.get(lyonPage),
      await paris.get('/espace-centre/centres/00000000-0000-4000-8000-00000000dead/cles'),
      await paris.post(lyonPage, { _csrf: token, name: 'intruse' }),
      await paris.post(`${lyonPage}/${lyonKey.identity.id}/revoquer`, { _csrf: token }),
      // Lyon's key and the operator's under Paris's own page; ids of no key.
      await paris.post(`${parisPage}/${lyonKey.identity.id}/revoquer`, { _csrf: token }),
      await paris.post(`${parisPage}/${operatorKey.identity.id}/revoquer`, { _csrf: token }),
      await paris.post(`${parisPage}/0000000000000000/revoquer`, { _csrf: token }),
      await paris.post(`${parisPage}/pas-une-cle/revoquer`, { _csrf: token }),
    ];
    const bodies = new Set<string>();
    for (const res of refusals) {
      expect(res.statusCode).toBe(404);
      expect(res.body).toContain('Page introuvable');
      bodies.add(res.body);
    }
    expect(bodies.size).toBe(1);
    expect(await keysOf(CENTRES.lyon.id)).toEqual(before);
    expect(await keysOf(CENTRES.paris.id)).toEqual([]);
    for (const key of [lyonKey.key, operatorKey.key])
      expect((await t.app.inject({ url: '/api/admin/sessions', headers: bearer(key) })).statusCode).toBe(200);
  });
});
