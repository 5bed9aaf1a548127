import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSignInLink } from '../../src/accounts/sign-in-links.js';
import { grantRole } from '../../src/accounts/users.js';
import { createAlert } from '../../src/alerts/create-alert.js';
import { alerts, reservations, signInLinks, userSessions, users } from '../../src/db/schema.js';
import type { Tx } from '../../src/db/write.js';
import { Browser, signIn } from '../helpers/accounts.js';
import { buildTestApp, frozenClock, type TestApp } from '../helpers/app.js';
import { openForm, PERSON, placesLeft, privatePath, submit } from '../helpers/booking.js';
import { CENTRES, FIXTURE_CATALOGUE, FIXTURE_NOW, SESSIONS } from '../helpers/fixtures.js';

/*
 * "Mes données" in the people's area: the page says what is held about the signed-in email, the
 * download holds all of it and nothing of anyone else's, and the deletion (confirmed, guarded) cancels
 * the upcoming reservations by the person's own path (places back), erases the rest as the purge does,
 * keeps what the centre must keep for a course under way, deletes the account and signs out; forged,
 * it is refused (403); repeated, it changes nothing more.
 */

const clock = frozenClock(FIXTURE_NOW);
let t: TestApp;
const OTHER = 'marc.durand@example.org';
const OWNER = 'patron@centre-lyon.example';
const lyon = SESSIONS.lyonMar5.id;
const reunion = SESSIONS.reunionMar19.id;
const paris = SESSIONS.parisMar12.id;
const links: Record<string, string> = {};

async function book(sessionId: string, fields: Record<string, string> = {}) {
  const form = await openForm(t.app, `/stages/${sessionId}`);
  const res = await submit(t.app, sessionId, form, { ...PERSON, ...fields });
  expect(res.statusCode).toBe(303);
  return privatePath(res.headers.location);
}

const rowsOf = (email: string) =>
  t.app.database.db.select().from(reservations).where(eq(reservations.email, email.toLowerCase()));
const rowByRef = async (reference: string) =>
  (await t.app.database.db.select().from(reservations).where(eq(reservations.reference, reference)))[0];

let me: Browser;
const refs: Record<string, string> = {};

beforeAll(async () => {
  t = await buildTestApp({ catalogue: FIXTURE_CATALOGUE, clock });
  links.lyon = await book(lyon, { reason: 'probationary' });
  links.reunion = await book(reunion);
  links.paris = await book(paris);
  links.other = await book(lyon, { firstName: 'Marc', lastName: 'Durand', email: OTHER, phone: '07 11 22 33 44' });
  for (const row of [...(await rowsOf(PERSON.email)), ...(await rowsOf(OTHER))])
    refs[
      row.email === OTHER ? 'other' : row.sessionId === lyon ? 'lyon' : row.sessionId === reunion ? 'reunion' : 'paris'
    ] = row.reference;
  // A search alert each (the person's made while signed in: running at once).
  for (const email of [PERSON.email, OTHER]) {
    const deps = { now: clock.now(), snapshot: t.app.catalogue.snapshot, baseUrl: 'https://x.test', platformName: 'P' };
    const search = { city: email === OTHER ? 'Paris' : 'Lyon', maxPrice: 250 };
    const made = await createAlert(
      t.app.database.db,
      { email, criteria: { search }, creator: { via: 'site' }, confirmed: true },
      deps,
    );
    expect(made.kind).toBe('active');
  }
  me = await signIn(t.app, PERSON.email);
  // The Paris one is cancelled by the person beforehand: it is among what is held, and erased too.
  const area = await me.get('/mon-espace');
  const id = (await rowsOf(PERSON.email)).find((r) => r.sessionId === paris)?.id as string;
  expect(
    (await me.post(`/mon-espace/reservations/${id}/annulation`, { _csrf: Browser.token(area.body) })).statusCode,
  ).toBe(303);
});
afterAll(() => t.close());

describe('Mes données', () => {
  it('is linked from /mon-espace and says what is held about the email; nobody signed in is sent to sign in', async () => {
    expect((await me.get('/mon-espace')).body).toContain('href="/mon-espace/donnees"');
    const page = await me.get('/mon-espace/donnees');
    expect(page.statusCode).toBe(200);
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.body).toContain(PERSON.email);
    for (const key of ['lyon', 'reunion', 'paris']) expect(page.body).toContain(refs[key]);
    expect(page.body).not.toContain(refs.other);
    expect(page.body).toContain('href="/mon-espace/donnees/mes-donnees.json"');
    expect(page.body).toContain('href="/mon-espace/donnees/suppression"');
    const anonymous = await t.app.inject('/mon-espace/donnees');
    expect(anonymous.statusCode).toBe(303);
    expect(anonymous.headers.location).toBe('/connexion');
    expect((await t.app.inject('/mon-espace/donnees/mes-donnees.json')).statusCode).toBe(303);
  });

  it('downloads everything held about the email as JSON, and nothing of another person’s', async () => {
    const res = await me.get('/mon-espace/donnees/mes-donnees.json');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['content-disposition']).toBe('attachment; filename="mes-donnees.json"');
    expect(res.headers['cache-control']).toBe('no-store');
    const data = res.json() as {
      email: string;
      account: { user: { email: string; createdAt: string } | null; sessions: unknown[]; signInLinks: unknown[] };
      alerts: { search: unknown; createdVia: string; confirmedAt: string | null; endsAt: string }[];
      reservations: {
        reference: string;
        status: string;
        reason: string;
        firstName: string;
        lastName: string;
        email: string;
        phone: string;
        consentAt: string;
        cancelledAt: string | null;
        session: { day1: string };
        centre: { name: string };
      }[];
    };
    expect(data.email).toBe(PERSON.email);
    expect(data.account.user?.email).toBe(PERSON.email);
    expect(data.account.sessions.length).toBeGreaterThan(0);
    expect(data.account.signInLinks.length).toBeGreaterThan(0);
    expect(data.reservations.map((r) => r.reference).sort()).toEqual([refs.lyon, refs.reunion, refs.paris].sort());
    const lyonData = data.reservations.find((r) => r.reference === refs.lyon);
    expect(lyonData).toMatchObject({
      status: 'pending',
      reason: 'probationary',
      firstName: PERSON.firstName,
      lastName: PERSON.lastName,
      email: PERSON.email,
      phone: '+33612345678',
      cancelledAt: null,
      session: { day1: '2030-03-05' },
      centre: { name: CENTRES.lyon.name },
    });
    expect(Number.isNaN(Date.parse(lyonData?.consentAt ?? ''))).toBe(false);
    expect(data.reservations.find((r) => r.reference === refs.paris)?.status).toBe('cancelled');
    // The alert: what it watches, how it was made, its state; never the other person's.
    expect(data.alerts).toHaveLength(1);
    expect(data.alerts[0]).toMatchObject({ search: { city: 'Lyon', maxPrice: 250 }, createdVia: 'site' });
    expect(data.alerts[0]?.confirmedAt).not.toBeNull();
    // Nothing of the other person, and no internal hash or key.
    for (const absent of [refs.other, OTHER, 'Marc', '+33711223344', 'browserHash', 'emailKey', 'tokenHash', 'idHash'])
      expect(res.body).not.toContain(absent);
  });

  it('refuses a forged deletion (403), changing nothing', async () => {
    const confirm = await me.get('/mon-espace/donnees/suppression');
    expect(confirm.statusCode).toBe(200);
    expect(confirm.body).toContain(refs.lyon); // to be cancelled, named before confirming
    const forged = await me.post('/mon-espace/donnees/suppression', { _csrf: 'forged' });
    expect(forged.statusCode).toBe(403);
    const crossSite = await me.post(
      '/mon-espace/donnees/suppression',
      { _csrf: Browser.token(confirm.body) },
      { 'sec-fetch-site': 'cross-site' },
    );
    expect(crossSite.statusCode).toBe(403);
    expect(await rowsOf(PERSON.email)).toHaveLength(3);
    expect((await me.get('/mon-espace')).statusCode).toBe(200);
  });

  it('cancels the upcoming ones (places back), erases, keeps what the centre needs, deletes the account, signs out', async () => {
    const reunionBefore = await placesLeft(t.app, reunion);
    // Day 1 of the Lyon course, after it began: it can no longer be cancelled; La Réunion's can.
    clock.set('2030-03-05T10:00:00Z');
    me = await signIn(t.app, PERSON.email, me); // a day later: signed in again
    const confirm = await me.get('/mon-espace/donnees/suppression');
    expect(confirm.body).toContain(refs.reunion);
    expect(confirm.body).toContain('attestation');
    const token = Browser.token(confirm.body);
    const res = await me.post('/mon-espace/donnees/suppression', { _csrf: token });
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toContain('Vos données ont été supprimées');
    expect(res.body).toContain(refs.reunion); // cancelled first
    expect(res.body).toContain('R223-8'); // why the Lyon one keeps a name
    expect(me.cookies.size).toBeLessThanOrEqual(1); // the session cookie is gone (the form guard's may stay)
    expect((await me.get('/mon-espace')).headers.location).toBe('/connexion');

    expect(await placesLeft(t.app, reunion)).toBe(reunionBefore + 1);
    const db = t.app.database.db;
    const reunionRow = await rowByRef(refs.reunion as string);
    expect(reunionRow).toBeUndefined(); // its reference now leads to nobody
    expect(await rowsOf(PERSON.email)).toHaveLength(0);
    const all = await db.select().from(reservations);
    const erased = all.filter((r) => r.reference.startsWith('X-'));
    expect(erased).toHaveLength(2); // La Réunion (cancelled now) and Paris (cancelled before)
    for (const r of erased) {
      expect([r.firstName, r.lastName, r.email, r.emailKey, r.phone, r.browserHash]).toEqual([
        null,
        null,
        null,
        null,
        null,
        null,
      ]);
      expect(r.status).toBe('cancelled');
      expect(r.cancelledBy).toBe('person');
      expect(r.purgedAt).not.toBeNull();
    }
    // The course under way: the centre keeps the name and reason for the attestation; the rest goes.
    const kept = await rowByRef(refs.lyon as string);
    expect(kept).toMatchObject({
      firstName: PERSON.firstName,
      lastName: PERSON.lastName,
      reason: 'probationary',
      status: 'pending',
      email: null,
      emailKey: null,
      phone: null,
      browserHash: null,
      purgedAt: null,
    });
    // Private links lead nowhere; the other person's reservation is untouched.
    for (const key of ['lyon', 'reunion', 'paris'])
      expect((await t.app.inject(links[key] as string)).statusCode).toBe(404);
    expect((await t.app.inject(links.other as string)).statusCode).toBe(200);
    expect(await rowsOf(OTHER)).toHaveLength(1);
    // The person's alert is gone, the other person's stays.
    expect(res.body).toContain('1 alerte « Prévenez-moi » supprimée');
    expect((await db.select().from(alerts)).map((a) => a.email)).toEqual([OTHER]);
    // The account, its sessions and its sign-in links are gone.
    expect(await db.select().from(users).where(eq(users.email, PERSON.email))).toEqual([]);
    expect(await db.select().from(signInLinks).where(eq(signInLinks.email, PERSON.email))).toEqual([]);
    expect((await db.select().from(userSessions)).length).toBe(0);

    // The same POST again (a reload, a double tap): not signed in any more, nothing changes.
    const again = await me.post('/mon-espace/donnees/suppression', { _csrf: token });
    expect(again.statusCode).toBe(303);
    expect(again.headers.location).toBe('/connexion');
    expect(await placesLeft(t.app, reunion)).toBe(reunionBefore + 1);
    expect(await db.select().from(reservations)).toEqual(all);
  });

  it('changes nothing more when the same person signs in again and deletes again', async () => {
    const before = await t.app.database.db.select().from(reservations);
    const back = await signIn(t.app, PERSON.email);
    const data = (await back.get('/mon-espace/donnees/mes-donnees.json')).json() as { reservations: unknown[] };
    expect(data.reservations).toEqual([]);
    const confirm = await back.get('/mon-espace/donnees/suppression');
    const res = await back.post('/mon-espace/donnees/suppression', { _csrf: Browser.token(confirm.body) });
    expect(res.statusCode).toBe(200);
    expect(await t.app.database.db.select().from(reservations)).toEqual(before);
  });

  it('keeps a centre member’s account (the centre’s tool), signing it out everywhere', async () => {
    const db = t.app.database.db;
    await grantRole(db, OWNER, 'owner', CENTRES.lyon.id);
    const owner = await signIn(t.app, OWNER);
    const elsewhere = await signIn(t.app, OWNER);
    await db.transaction((tx) => createSignInLink(tx as Tx, OWNER, clock.now()));
    const confirm = await owner.get('/mon-espace/donnees/suppression');
    expect(confirm.body).toContain('votre compte reste');
    const res = await owner.post('/mon-espace/donnees/suppression', { _csrf: Browser.token(confirm.body) });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('pour un centre ou pour le service');
    const [user] = await db.select().from(users).where(eq(users.email, OWNER));
    expect(user?.email).toBe(OWNER);
    expect(
      await db
        .select()
        .from(userSessions)
        .where(eq(userSessions.userId, user?.id as string)),
    ).toEqual([]);
    expect(await db.select().from(signInLinks).where(eq(signInLinks.email, OWNER))).toEqual([]);
    expect((await elsewhere.get('/espace-centre')).headers.location).toBe('/connexion');
  });
});
