import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendSignInLink } from '../../src/accounts/sign-in.js';
import { grantRole } from '../../src/accounts/users.js';
import { Browser, followLink, linkPath } from '../helpers/accounts.js';
import { buildTestApp, frozenClock, type TestApp } from '../helpers/app.js';
import { CENTRES, FIXTURE_CATALOGUE, FIXTURE_NOW } from '../helpers/fixtures.js';

/*
 * Where a sign-in lands: an admin with no centre role in the operators' area; a member of a centre
 * (an admin too, whose centres' area links to the operators') in the centres' area; an email with
 * no role in the people's area.
 */

const clock = frozenClock(FIXTURE_NOW);
let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ catalogue: FIXTURE_CATALOGUE, clock });
  const db = t.app.database.db;
  await grantRole(db, 'exploitant@service.example', 'admin');
  await grantRole(db, 'patron@centre-lyon.example', 'owner', CENTRES.lyon.id);
  await grantRole(db, 'equipe@centre-lyon.example', 'staff', CENTRES.lyon.id);
  await grantRole(db, 'double@service.example', 'admin');
  await grantRole(db, 'double@service.example', 'staff', CENTRES.paris.id);
});
afterAll(() => t.close());

/** Signs in through a link as the sign-in page sends it: the answer to pressing its button. */
async function signInThrough(email: string) {
  const browser = new Browser(t.app);
  const url = await sendSignInLink(t.app.database.db, email, t.app.clock.now(), {
    baseUrl: t.app.config.publicBaseUrl,
    platformName: t.app.config.platformName,
    mail: false,
  });
  const res = await followLink(browser, linkPath(url));
  expect(res.statusCode).toBe(303);
  expect(res.headers['cache-control']).toBe('no-store');
  return { browser, location: res.headers.location };
}

describe('where a sign-in lands', () => {
  it('takes an admin with no centre role to the operators’ area', async () => {
    const { browser, location } = await signInThrough('exploitant@service.example');
    expect(location).toBe('/administration');
    const area = await browser.get('/administration');
    expect(area.statusCode).toBe(200);
    expect(area.body).toContain('exploitant@service.example');
  });

  it.each([
    ['an owner', 'patron@centre-lyon.example', 'Centre Lyon'],
    ['staff', 'equipe@centre-lyon.example', 'Centre Lyon'],
    ['an admin who is also staff of a centre', 'double@service.example', 'Centre Paris'],
  ])('takes %s to the centres’ area', async (_who, email, centre) => {
    const { browser, location } = await signInThrough(email);
    expect(location).toBe('/espace-centre');
    const area = await browser.get('/espace-centre');
    expect(area.statusCode).toBe(200);
    expect(area.body).toContain(centre);
    expect(area.body.includes('href="/administration"')).toBe(email === 'double@service.example');
  });

  it('takes an email with no role to the people’s area (their reservations)', async () => {
    const { browser, location } = await signInThrough('personne@example.org');
    expect(location).toBe('/mon-espace');
    const area = await browser.get('/mon-espace');
    expect(area.statusCode).toBe(200);
    expect(area.body).toContain('Mes réservations');
    expect(area.body).not.toContain('href="/administration"');
    expect(area.body).not.toContain('href="/espace-centre"');
    // The centres' area still opens, and says the account has no centre.
    expect((await browser.get('/espace-centre')).body).toContain('Votre compte n’est rattaché à aucun centre');
  });
});
