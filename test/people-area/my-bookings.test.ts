import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendSignInLink } from '../../src/accounts/sign-in.js';
import { grantRole } from '../../src/accounts/users.js';
import { purgePersonalData } from '../../src/reservations/repository.js';
import { Browser, followLink, linkPath, signIn } from '../helpers/accounts.js';
import { buildTestApp, frozenClock, type TestApp } from '../helpers/app.js';
import { openForm, PERSON, placesLeft, privatePath, submit } from '../helpers/booking.js';
import { CENTRES, FIXTURE_CATALOGUE, FIXTURE_NOW, SESSIONS } from '../helpers/fixtures.js';

/*
 * The people's area (/mon-espace): a person signed in with the emailed link sees every reservation
 * made with their email, and nobody else's, and cancels one there as on the private link's page.
 */

const clock = frozenClock(FIXTURE_NOW);
let t: TestApp;
const OTHER = 'marc.durand@example.org';
const stEtienne = SESSIONS.stEtienneMar5.id;
const reunion = SESSIONS.reunionMar19.id;
let privateLink = '';
let othersLink = '';

async function book(sessionId: string, fields: Record<string, string>) {
  const form = await openForm(t.app, `/stages/${sessionId}`);
  const res = await submit(t.app, sessionId, form, { ...PERSON, ...fields });
  expect(res.statusCode).toBe(303);
  return privatePath(res.headers.location);
}

const referenceOf = async (path: string) =>
  /Référence <strong>(SRP-[0-9A-Z-]+)<\/strong>/.exec((await t.app.inject(path)).body)?.[1] as string;
const cancelForms = (html: string) =>
  [...html.matchAll(/action="\/mon-espace\/reservations\/([0-9a-f-]{36})\/annulation"/g)].map((m) => m[1] as string);

beforeAll(async () => {
  t = await buildTestApp({ catalogue: FIXTURE_CATALOGUE, clock });
  // One person books twice (the address typed differently the second time), another once.
  privateLink = await book(stEtienne, {});
  await book(reunion, { email: PERSON.email.toUpperCase(), reason: 'probationary' });
  othersLink = await book(stEtienne, { firstName: 'Marc', email: OTHER });
});
afterAll(() => t.close());

describe('a person’s reservations in one place', () => {
  it('sends a person with no role there after signing in, and asks anyone else to sign in', async () => {
    const browser = new Browser(t.app);
    const url = await sendSignInLink(t.app.database.db, PERSON.email, clock.now(), {
      baseUrl: t.app.config.publicBaseUrl,
      platformName: t.app.config.platformName,
      mail: false,
    });
    const res = await followLink(browser, linkPath(url));
    expect(res.headers.location).toBe('/mon-espace');
    const anonymous = await t.app.inject('/mon-espace');
    expect(anonymous.statusCode).toBe(303);
    expect(anonymous.headers.location).toBe('/connexion');
  });

  it('lists both of the person’s reservations with what to bring, and not the other person’s', async () => {
    const me = await signIn(t.app, PERSON.email);
    const page = await me.get('/mon-espace');
    expect(page.statusCode).toBe(200);
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.headers['x-robots-tag']).toBe('noindex');
    const mine = await referenceOf(privateLink);
    const others = await referenceOf(othersLink);
    expect(mine).toMatch(/^SRP-/);
    expect(others).toMatch(/^SRP-/);
    expect(page.body).toContain(mine);
    expect(page.body).not.toContain(others);
    expect(page.body).not.toContain('Marc');
    expect(page.body).toContain('Centre Saint-Étienne');
    expect(page.body).toContain('Centre Saint-Denis');
    expect(page.body).toContain('heure de La Réunion'); // the overseas centre's hours in its zone
    expect(page.body).toContain('la lettre 48N'); // the probationary booking only
    expect(page.body.match(/la lettre 48N/g)).toHaveLength(1);
    expect(page.body.match(/votre permis de conduire/g)).toHaveLength(2);
    expect(page.body).toContain('en attente de confirmation');
    // Upcoming soonest first: Saint-Étienne (5 March) before Saint-Denis (19 March).
    expect(page.body.indexOf('Centre Saint-Étienne')).toBeLessThan(page.body.indexOf('Centre Saint-Denis'));
    expect(cancelForms(page.body)).toHaveLength(2);

    const marc = await signIn(t.app, OTHER);
    const theirs = await marc.get('/mon-espace');
    expect(theirs.body).toContain(others);
    expect(theirs.body).not.toContain(mine);
    expect(theirs.body).not.toContain('Centre Saint-Denis');
    expect(cancelForms(theirs.body)).toHaveLength(1);
  });

  it('cancels one, giving its place back; another person’s id or a forged form changes nothing', async () => {
    const me = await signIn(t.app, PERSON.email);
    const marc = await signIn(t.app, OTHER);
    const marcsId = cancelForms((await marc.get('/mon-espace')).body)[0] as string;
    const page = await me.get('/mon-espace');
    const [mineStEtienne] = cancelForms(page.body);
    const places = await placesLeft(t.app, stEtienne);

    // Another person's reservation: 404, as an id that is nobody's.
    const foreign = await me.post(`/mon-espace/reservations/${marcsId}/annulation`, {
      _csrf: Browser.token(page.body),
    });
    expect(foreign.statusCode).toBe(404);
    expect(foreign.body).not.toContain(OTHER);
    const nonsense = await me.post('/mon-espace/reservations/not-an-id/annulation', {
      _csrf: Browser.token(page.body),
    });
    expect(nonsense.statusCode).toBe(404);
    // A forged form: refused, nothing changed.
    const forged = await me.post(`/mon-espace/reservations/${mineStEtienne}/annulation`, { _csrf: 'forged' });
    expect(forged.statusCode).toBe(403);
    expect(forged.body).toContain('rien n’a été modifié');
    const missing = await me.post(`/mon-espace/reservations/${mineStEtienne}/annulation`, {});
    expect(missing.statusCode).toBe(403);
    expect(await placesLeft(t.app, stEtienne)).toBe(places);
    expect(cancelForms((await marc.get('/mon-espace')).body)).toEqual([marcsId]);

    const cancelled = await me.post(`/mon-espace/reservations/${mineStEtienne}/annulation`, {
      _csrf: Browser.token(page.body),
    });
    expect(cancelled.statusCode).toBe(303);
    expect(cancelled.headers.location).toBe('/mon-espace?annule=1');
    expect(await placesLeft(t.app, stEtienne)).toBe(places + 1);
    const after = await me.get('/mon-espace?annule=1');
    expect(after.body).toContain('Réservation annulée : la place est rendue');
    expect(cancelForms(after.body)).toHaveLength(1);
    expect(after.body).toContain('Passées ou annulées');
    // The private link's page says the same.
    expect((await t.app.inject(privateLink)).body).toContain('Réservation annulée');
    // Again: already cancelled, no second place given back.
    const again = await me.post(`/mon-espace/reservations/${mineStEtienne}/annulation`, {
      _csrf: Browser.token(after.body),
    });
    expect(again.headers.location).toBe('/mon-espace?deja=1');
    expect(await placesLeft(t.app, stEtienne)).toBe(places + 1);
  });

  it('no longer cancels once the course has begun in the centre’s zone', async () => {
    const before = await signIn(t.app, OTHER);
    const [id] = cancelForms((await before.get('/mon-espace')).body);
    clock.set('2030-03-05T08:00:00Z'); // 9 h in Saint-Étienne on the first day
    try {
      const marc = await signIn(t.app, OTHER);
      const page = await marc.get('/mon-espace');
      expect(page.statusCode).toBe(200);
      expect(page.body).toContain('Centre Saint-Étienne');
      expect(cancelForms(page.body)).toHaveLength(0);
      const late = await marc.post(`/mon-espace/reservations/${id}/annulation`, { _csrf: Browser.token(page.body) });
      expect(late.statusCode).toBe(409);
      expect(late.body).toContain('Le stage a commencé');
    } finally {
      clock.set(FIXTURE_NOW);
    }
  });

  it('keeps centre members landing in the centres’ area, which links here', async () => {
    await grantRole(t.app.database.db, 'equipe@centre-st-etienne.example', 'staff', CENTRES.stEtienne.id);
    const browser = new Browser(t.app);
    const url = await sendSignInLink(t.app.database.db, 'equipe@centre-st-etienne.example', clock.now(), {
      baseUrl: t.app.config.publicBaseUrl,
      platformName: t.app.config.platformName,
      mail: false,
    });
    expect((await followLink(browser, linkPath(url))).headers.location).toBe('/espace-centre');
    expect((await browser.get('/espace-centre')).body).toContain('href="/mon-espace"');
    const mine = await browser.get('/mon-espace');
    expect(mine.statusCode).toBe(200);
    expect(mine.body).toContain('Aucune réservation n’a été faite avec cette adresse');
    expect(mine.body).toContain('href="/espace-centre"');
  });

  it('is offered from the private page', async () => {
    expect((await t.app.inject(privateLink)).body).toContain('href="/connexion">Retrouver toutes mes réservations');
  });

  it('shows a course that has ended among the past ones, and nothing once its data is purged', async () => {
    clock.set('2030-03-10T09:00:00Z');
    try {
      const marc = await signIn(t.app, OTHER);
      const page = await marc.get('/mon-espace');
      expect(page.body).not.toContain('À venir');
      expect(page.body).toContain('Passées ou annulées');
      expect(page.body).toContain(await referenceOf(othersLink));
      expect(page.body).not.toContain('votre permis de conduire'); // nothing to bring to a course that is over
      expect(cancelForms(page.body)).toHaveLength(0);

      // The purge erases the email of reservations whose course ended: nobody's list shows them.
      await purgePersonalData(t.app.database.db, '2030-04-01');
      const purged = await marc.get('/mon-espace');
      expect(purged.statusCode).toBe(200);
      expect(purged.body).toContain('Aucune réservation n’a été faite avec cette adresse');
      const me = await signIn(t.app, PERSON.email);
      expect((await me.get('/mon-espace')).body).toContain('Aucune réservation n’a été faite avec cette adresse');
    } finally {
      clock.set(FIXTURE_NOW);
    }
  });
});
