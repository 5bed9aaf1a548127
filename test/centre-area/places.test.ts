import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grantRole } from '../../src/accounts/users.js';
import { Browser, signIn } from '../helpers/accounts.js';
import { keysFor } from '../helpers/admin-keys.js';
import { buildTestApp, frozenClock, type TestApp } from '../helpers/app.js';
import { placesLeft } from '../helpers/booking.js';
import { CENTRES, FIXTURE_CATALOGUE, FIXTURE_NOW, SESSIONS } from '../helpers/fixtures.js';

/*
 * The centre's area from a signed-in owner's or staff member's side: their sessions, places
 * changed in one tap through the partner API's atomic change (served by another instance at once),
 * and nothing of another centre, by page or by form, however its ids are guessed.
 */

const clock = frozenClock(FIXTURE_NOW);
let t: TestApp;
let other: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ catalogue: FIXTURE_CATALOGUE, clock });
  other = await buildTestApp({ database: t.db, clock });
  await grantRole(t.app.database.db, 'equipe@centre-lyon.example', 'staff', CENTRES.lyon.id);
  await grantRole(t.app.database.db, 'gerant@centre-paris.example', 'owner', CENTRES.paris.id);
});
afterAll(async () => {
  await other.close();
  await t.close();
});

const placesPath = (id: string) => `/espace-centre/seances/${id}/places`;

async function tap(browser: Browser, id: string, change: string, token?: string) {
  const page = await browser.get('/espace-centre');
  return browser.post(placesPath(id), { _csrf: token ?? Browser.token(page.body), change });
}

describe('the centre’s area', () => {
  it('lists the centre’s upcoming sessions with places left and capacity, and no other centre’s', async () => {
    const browser = await signIn(t.app, 'equipe@centre-lyon.example');
    const page = await browser.get('/espace-centre');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(`id="seance-${SESSIONS.lyonMar5.id}"`);
    expect(page.body).toContain('3 places libres sur 20');
    expect(page.body).not.toContain(SESSIONS.lyonPast.id);
    expect(page.body).not.toContain(SESSIONS.parisMar12.id);
    // 17 of 20 taken: not at risk.
    expect(page.body).toContain(`id="seance-${SESSIONS.lyonMar5.id}" class="session"`);
  });

  it('makes a session with fewer than 6 places taken, 10 days or less before it starts, stand out', async () => {
    await grantRole(t.app.database.db, 'accueil@centre-bourg.example', 'owner', CENTRES.bourg.id);
    const page = await (await signIn(t.app, 'accueil@centre-bourg.example')).get('/espace-centre');
    // 2030-03-14, ten days after the fixtures' today, none of its 20 places taken.
    expect(page.body).toContain(`id="seance-${SESSIONS.bourgMar14.id}" class="session risk"`);
    expect(page.body).toContain('Risque d’annulation');
  });

  it('takes and gives back a place in one tap, served by another instance at once', async () => {
    const browser = await signIn(t.app, 'equipe@centre-lyon.example');
    const id = SESSIONS.lyonMar5.id;
    const before = await placesLeft(other.app, id);
    const taken = await tap(browser, id, '-1');
    expect(taken.statusCode).toBe(303);
    expect(taken.headers.location).toBe(`/espace-centre?modifie=1#seance-${id}`);
    expect(await placesLeft(t.app, id)).toBe(before - 1);
    await other.app.catalogue.refresh();
    expect(await placesLeft(other.app, id)).toBe(before - 1);
    expect((await browser.get('/espace-centre?modifie=1')).body).toContain('Places mises à jour');
    expect((await tap(browser, id, '1')).statusCode).toBe(303);
    expect(await placesLeft(t.app, id)).toBe(before);

    // The centre's history says who: the signed-in user.
    const { admin } = await keysFor(t.app, CENTRES.lyon.id);
    const history = await t.app.inject({ url: `/api/admin/history?entity=session&entityId=${id}`, headers: admin });
    const entries = history.json().data as { field: string; actor: { kind: string; label: string } }[];
    expect(entries.slice(0, 2).map((e) => [e.field, e.actor.kind, e.actor.label])).toEqual([
      ['spotsAvailable', 'user', 'equipe@centre-lyon.example'],
      ['spotsAvailable', 'user', 'equipe@centre-lyon.example'],
    ]);
  });

  it('says why when there is no place left to take', async () => {
    const browser = await signIn(t.app, 'equipe@centre-lyon.example');
    const full = await tap(browser, SESSIONS.lyonApr2Full.id, '-1');
    expect(full.statusCode).toBe(409);
    expect(full.body).toContain('ne peuvent pas passer sous 0');
    expect(await placesLeft(t.app, SESSIONS.lyonApr2Full.id)).toBe(0);
  });

  it('never changes another centre’s session, whatever id is posted', async () => {
    const lyon = await signIn(t.app, 'equipe@centre-lyon.example');
    for (const id of [SESSIONS.parisMar12.id, '00000000-0000-4000-8000-00000000dead', 'not-an-id']) {
      const res = await tap(lyon, id, '-1');
      expect(res.statusCode, id).toBe(404);
      expect(res.body).toContain('Ce stage n’est pas l’un des vôtres');
    }
    expect(await placesLeft(t.app, SESSIONS.parisMar12.id)).toBe(1);
    const paris = await signIn(t.app, 'gerant@centre-paris.example');
    expect((await paris.get('/espace-centre')).body).not.toContain(SESSIONS.lyonMar5.id);
  });

  it('refuses a forged or missing anti-forgery token, and a post from another site', async () => {
    const browser = await signIn(t.app, 'equipe@centre-lyon.example');
    const id = SESSIONS.lyonMar5.id;
    const before = await placesLeft(t.app, id);
    expect((await tap(browser, id, '-1', 'forged-token-forged-tok')).statusCode).toBe(403);
    expect((await browser.post(placesPath(id), { change: '-1' })).statusCode).toBe(403);
    const token = Browser.token((await browser.get('/espace-centre')).body);
    const crossSite = await browser.post(
      placesPath(id),
      { _csrf: token, change: '-1' },
      { 'sec-fetch-site': 'cross-site' },
    );
    expect(crossSite.statusCode).toBe(403);
    expect(await placesLeft(t.app, id)).toBe(before);
  });

  it('sends a visitor who is not signed in to /connexion, even for a form post', async () => {
    const res = await new Browser(t.app).post(placesPath(SESSIONS.lyonMar5.id), { change: '-1' });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/connexion');
  });
});
